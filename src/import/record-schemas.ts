// Validation of import records (docs/getting-started.md, "Import format"): one zod schema per record kind, defaults filled in.
import { z } from 'zod';
import { RISK_LEVELS, type Feed, type Indicator, type Link, type Threat } from '../domain.js';
import { INDICATOR_TYPES, indicatorTypeOf } from '../indicator-types.js';
import { isValidStamp } from '../stix/stix-time.js';
import { acceptIndicator, acceptLink } from './fast-records.js';
import { hasControlCharacter, withoutControlCharacters } from '../sources/control-characters.js';
import { scheduleFromFeed } from '../sources/schedule.js';
import { parseSource, redactedUrl, SourceDefinitionError } from '../sources/source-definition.js';

const stamp = z.string().refine(isValidStamp, 'must be a timestamp "YYYY-MM-DD HH:MM:SS"');

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const text = z.string().max(100_000);
const risk = z.enum(RISK_LEVELS);
const freeObject = z.record(z.string(), z.unknown());
/** 1/0 are accepted for booleans, as the interface writes `retired` both ways (docs/interface.md sections 2.1 and 2.5). */
const flag = z.union([z.boolean(), z.literal(0).transform(() => false), z.literal(1).transform(() => true)]);
/**
 * A threat's or a feed's name as stored, its control characters out (control-characters.ts says
 * which and why); a name that held nothing else is refused like an empty one.
 */
const storedName = z
  .string()
  .min(1)
  .max(1000)
  .transform(withoutControlCharacters)
  .refine((cleaned) => cleaned !== '', 'must hold more than control characters');

const news = z.strictObject({
  title: text,
  channel: text,
  icon: text,
  link: text,
  stamp,
  primary: z.number().int(),
});

const comment = z.strictObject({
  cid: id,
  username: text,
  title: text,
  comment: text,
  stamp_added: stamp,
  stamp_updated: stamp,
});

/** `related` items may carry only a tid, or the whole related-threat object (names are recomputed). */
const related = z.union([id, z.looseObject({ tid: id })]).transform((item) => (typeof item === 'number' ? item : item.tid));

export const threatSchema = z.strictObject({
  tid: id,
  threat: storedName,
  category: z.string().min(1).max(200),
  risk,
  othernames: z.array(storedName).default([]),
  description: text.nullable().default(null),
  notes: text.nullable().default(null),
  wikisummary: text.nullable().default(null),
  wikireference: text.nullable().default(null),
  retired: flag.nullable().default(null),
  stamp_added: stamp.nullable().default(null),
  stamp_updated: stamp.nullable().default(null),
  stamp_seen: stamp.nullable().default(null),
  stamp_retired: stamp.nullable().default(null),
  attributes: freeObject.default({}),
  ttps: z.array(freeObject).default([]),
  news: z.array(news).default([]),
  comments: z.array(comment).default([]),
  related: z.array(related).default([]),
}) satisfies z.ZodType<Threat, any>;

/** A feed record of an import; `source` is its source object (docs/interface.md section 10, "Feed sources") as JSON text, `${env:NAME}` kept. */
export type FeedImportRecord = Feed & { source?: string };

/**
 * A feed that names its source is pulled from it: the source object is validated here (the message
 * names its field), its URL without credentials becomes the feed's `accesslink`, and its schedule
 * (else the feed's own when it parses, else `daily`) the feed's `schedule`.
 */
function withSource({ source, ...feed }: Feed & { source?: unknown }, ctx: z.RefinementCtx): FeedImportRecord {
  if (source === undefined) return feed;
  try {
    // An unset `${env:NAME}` is not refused here: the file may be imported where the puller's
    // environment is not; a pull without it fails, naming the variable.
    const parsed = parseSource(source);
    return { ...feed, accesslink: redactedUrl(parsed.url), schedule: scheduleFromFeed(parsed.schedule ?? feed.schedule).text, source: JSON.stringify(source) };
  } catch (error) {
    if (!(error instanceof SourceDefinitionError)) throw error;
    ctx.addIssue({ code: 'custom', path: error.field.split('.'), message: error.reason });
    return z.NEVER;
  }
}

export const feedSchema = z.strictObject({
  fid: id,
  feed: storedName,
  organization: storedName,
  category: z.string().max(200).default(''),
  pricing: z.string().max(200).default(''),
  contact: z.strictObject({ name: text.default(''), email: text.default(''), phone: text.default('') }).default({ name: '', email: '', phone: '' }),
  website: text.default(''),
  schedule: z.string().max(200).default(''),
  stamp_added: stamp.nullable().default(null),
  stamp_updated: stamp.nullable().default(null),
  stamp_pulled: stamp.nullable().default(null),
  stamp_modified: stamp.nullable().default(null),
  description: text.default(''),
  accesslink: text.default(''),
  source: z.unknown().optional(),
}).transform(withSource) satisfies z.ZodType<FeedImportRecord, any>;

/**
 * Attribute values are strings (`{"port": ["443"]}`). A whole number is taken as its decimal
 * string (`443` is `"443"`): lossless, and what a port written as a number means. Other numbers
 * are refused: a fraction is no port, protocol or name, and an integer beyond 2^53 has already
 * lost digits when the JSON was parsed, so storing it would keep a value the file never held.
 */
const attributeValues = z.array(
  z.union([z.string(), z.int().transform(String)], { error: 'must be a string, or a whole number (stored as its decimal string)' }),
);

/** The vocabulary's name for the type (indicator-types.ts: case and surrounding blanks ignored). */
const indicatorType = z.string().transform((name, ctx) => {
  const type = indicatorTypeOf(name);
  if (type !== undefined) return type;
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  ctx.addIssue({ code: 'custom', message: `${JSON.stringify(shown)} is unknown; the indicator types are ${INDICATOR_TYPES.join(', ')}` });
  return z.NEVER;
});

export const indicatorSchema = z.strictObject({
  iid: id,
  // Refused rather than cleaned, as a pull refuses it (normalize-value.ts): without its control
  // character the value would be another indicator.
  indicator: z
    .string()
    .min(1)
    .max(8192)
    .refine((value) => !hasControlCharacter(value), 'holds a control character (U+0000-U+001F, U+007F-U+009F), which no indicator value does'),
  type: indicatorType,
  risk,
  stamp_added: stamp.nullable().default(null),
  stamp_updated: stamp.nullable().default(null),
  stamp_seen: stamp.nullable().default(null),
  retired: flag.nullable().default(null),
  attributes: z.record(z.string(), attributeValues).default({}),
  properties: freeObject.default({}),
}) satisfies z.ZodType<Indicator, any>;

export const linkSchema = z.union([
  z.strictObject({ iid: id, fid: id, stamp_linked: stamp }),
  z.strictObject({ iid: id, tid: id, stamp_linked: stamp }),
]) satisfies z.ZodType<Link, any>;

export type RecordKind = 'threat' | 'feed' | 'indicator' | 'link';

export type ImportRecord =
  | { kind: 'threat'; value: Threat }
  | { kind: 'feed'; value: FeedImportRecord }
  | { kind: 'indicator'; value: Indicator }
  | { kind: 'link'; value: Link };

const SCHEMAS = { threat: threatSchema, feed: feedSchema, indicator: indicatorSchema, link: linkSchema } as const;

/** Validates one raw record; the message names the first offending field. */
export function parseRecord(kind: RecordKind, raw: unknown): { ok: true; record: ImportRecord } | { ok: false; reason: string } {
  if (kind === 'link') {
    const value = acceptLink(raw);
    if (value !== undefined) return { ok: true, record: { kind, value } };
  } else if (kind === 'indicator') {
    const value = acceptIndicator(raw);
    if (value !== undefined) return { ok: true, record: { kind, value } };
  }
  const result = SCHEMAS[kind].safeParse(raw);
  if (result.success) return { ok: true, record: { kind, value: result.data } as ImportRecord };
  const issue = result.error.issues[0];
  if (kind === 'link' && issue?.code === 'invalid_union') {
    return { ok: false, reason: 'link must have iid, stamp_linked and exactly one of fid or tid' };
  }
  if (issue?.code === 'unrecognized_keys') {
    const where = issue.path.length ? ` ${issue.path.join('.')}` : '';
    return { ok: false, reason: `${kind}${where}: unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}` };
  }
  const field = issue?.path.length ? issue.path.join('.') : kind;
  return { ok: false, reason: `${kind} ${field}: ${issue?.message ?? 'is invalid'}` };
}
