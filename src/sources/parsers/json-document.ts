// One JSON document fetched whole (a MISP manifest or event, a lookup API page), parsed with errors a person can place, and what is read out of JSON values.
import { decodeText } from '../../text/decode-text.js';
import type { FeedBody } from './feed-body.js';
import { FeedFormatError } from './feed-entry.js';

/**
 * The body parsed as one JSON document. `where` names the document in errors (`manifest.json`,
 * `page 3`). The piece of the body V8 quotes (`Unexpected token 'a', "..." is not valid JSON`) is
 * left out of the message: a body may echo what the request carried, a key included.
 */
export async function readJsonDocument(body: FeedBody, where: string): Promise<unknown> {
  const parts: string[] = [];
  for await (const text of decodeText(body)) parts.push(text);
  const text = parts.join('');
  if (text.trim() === '') throw new FeedFormatError(where, 'empty body, expected a JSON document');
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message)?.[1];
    const reason = message.replace(/,\s*".*$/s, '').replace(/ in JSON at position \d+.*$/s, '');
    if (at === undefined) throw new FeedFormatError(where, `not valid JSON (${reason})`);
    const before = text.slice(0, Number(at));
    const line = before.split('\n').length;
    const column = Number(at) - before.lastIndexOf('\n');
    throw new FeedFormatError(`${where} line ${line} column ${column}`, `not valid JSON (${reason})`);
  }
}

/** A plain JSON object (not an array, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property of a JSON object: `constructor` or `__proto__` in a document find nothing inherited. */
export function field(value: unknown, name: string): unknown {
  return isObject(value) && Object.hasOwn(value, name) ? value[name] : undefined;
}

/** A JSON array, or an empty one for anything else (absent, null, or the wrong kind). */
export function arrayField(value: unknown, name: string): unknown[] {
  const found = field(value, name);
  return Array.isArray(found) ? found : [];
}

/** A non-empty trimmed string; a finite number as its decimal text. */
export function textField(value: unknown, name: string): string | undefined {
  const found = field(value, name);
  const text = typeof found === 'string' ? found.trim() : typeof found === 'number' && Number.isFinite(found) ? String(found) : '';
  return text === '' ? undefined : text;
}

/** The value at a dotted path (`data.ioc`, `tags.0`); a numeric segment indexes an array. Own properties only, so `constructor` finds nothing. */
export function valueAtPath(root: unknown, path: string): unknown {
  let value = root;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
