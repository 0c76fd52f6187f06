// Where a row's attributes come from (docs/sources.md, "Feed shapes"): `csv.attributes` and `json.attributes`, attribute name to column or field, checked.
import { z } from 'zod';

/** Attributes one source may fill: the store keeps a bounded number of keys per indicator too. */
export const MAX_SOURCE_ATTRIBUTES = 32;
/** Lower case, as the spec's own keys (`port`, `protocol`, `technology`, `hosttype`): one name, one key, whatever the feed's case. */
const ATTRIBUTE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Where one attribute comes from, as the readers take it whichever way the source wrote it. */
export interface AttributeSource {
  /** The column (csv) or dotted path (json). */
  from: string;
  /** Cut each string there: `","` for URLhaus's `tags` cell `elf,Mozi`. */
  split?: string;
}

const separator = z.string().min(1, 'must not be empty').max(8, 'must be at most 8 characters');

/**
 * The schema of a format's `attributes`: `{"port": "dst_port"}`, or `{"tags": {WORD: "tags",
 * "split": ","}}` for a cell that holds a list, WORD being `column` (csv) or `field` (json), the
 * word each format already uses for where a value is; `place` checks that name or path. Both forms
 * read as an AttributeSource. Checked by hand rather than as a zod union, so that each message
 * names the part that is wrong (`source.csv.attributes.tags.split: must not be empty`).
 */
export function attributeOptions(word: 'column' | 'field', place: z.ZodString) {
  const other = word === 'column' ? 'field' : 'column';
  const spec = z.unknown().transform((raw, ctx): AttributeSource => {
    const fail = (message: string, path: string[] = []) => {
      ctx.addIssue({ code: 'custom', message, path });
      return z.NEVER;
    };
    const checked = (value: unknown, path: string[]) => {
      const result = place.safeParse(value);
      return result.success ? result.data : fail(result.error.issues[0]?.message ?? 'is not valid', path);
    };
    if (typeof raw === 'string') return { from: checked(raw, []) };
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(`must be a ${word} name or {"${word}": NAME, "split": SEPARATOR}`);
    const fields = raw as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (key !== word && key !== 'split') return fail(key === other ? `unknown field (this format names a ${word}: {"${word}": NAME})` : 'unknown field', [key]);
    }
    if (fields[word] === undefined) return fail('required', [word]);
    if (typeof fields[word] !== 'string') return fail('must be a string', [word]);
    const from = checked(fields[word], [word]);
    if (fields.split === undefined) return { from };
    const split = separator.safeParse(fields.split);
    if (!split.success) return fail(typeof fields.split === 'string' ? (split.error.issues[0]?.message ?? 'is not valid') : 'must be a string', ['split']);
    return { from, split: split.data };
  });
  const notObject = { error: (issue: { code: string }) => (issue.code === 'invalid_type' ? `must be an object of attribute name to ${word}` : undefined) };
  return z.record(z.string(), spec, notObject).superRefine((attributes, ctx) => {
    const names = Object.keys(attributes);
    if (names.length > MAX_SOURCE_ATTRIBUTES) ctx.addIssue({ code: 'custom', message: `must name at most ${MAX_SOURCE_ATTRIBUTES} attributes` });
    for (const name of names) {
      if (!ATTRIBUTE_NAME.test(name)) {
        ctx.addIssue({ code: 'custom', path: [name], message: 'is not an attribute name: lower-case letters, digits, "_" and "-", starting with a letter' });
      }
    }
  });
}
