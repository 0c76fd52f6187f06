// The source object of a feed (docs/interface.md section 10, "Feed sources"): one schema per format (formats/), told apart by `format`, and its `${env:NAME}` references.
import { z } from 'zod';
import { ThreatgateError } from '../errors.js';
import { FORMATS, SOURCE_FORMATS, type SourceFormat } from './formats/format-registry.js';
import { COMMON_FIELDS, ENV_REFERENCE } from './formats/source-fields.js';

export { FORMATS, SOURCE_FORMATS, type SourceFormat } from './formats/format-registry.js';
export { MAX_MEGABYTES, MAX_PAGES, MAX_PULL_SECONDS, MAX_TIMEOUT_SECONDS } from './formats/source-fields.js';
export { taxiiUrlProblem } from './formats/taxii-format.js';
export { redactedUrl } from './redacted-url.js';

/** A source object that is not valid; the message starts with the field path (`source.csv.value: ...`). */
export class SourceDefinitionError extends ThreatgateError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const sourceSchema = z
  .discriminatedUnion(
    'format',
    // The registry's order, spelled out for zod's tuple type.
    [FORMATS.text.schema, FORMATS.csv.schema, FORMATS.json.schema, FORMATS.stix.schema, FORMATS.hosts.schema, FORMATS.taxii.schema, FORMATS['lookup-api'].schema, FORMATS.misp.schema],
    { error: (issue) => (issue.code === 'invalid_union' ? `must be one of ${SOURCE_FORMATS.join(', ')}` : undefined) },
  )
  .superRefine((source, ctx) => {
    if (source.password !== undefined && source.username === undefined) ctx.addIssue({ code: 'custom', path: ['password'], message: 'needs a username' });
  });

/** A source object as parseSource gives it: one format's fields, told apart by `format`. */
export type SourceDefinition = z.output<typeof sourceSchema>;

/** The format that owns each field no other format has (`csv`: csv, `fid`: lookup-api), for the message of such a field elsewhere. */
const OWNERS: ReadonlyMap<string, SourceFormat> = new Map(
  SOURCE_FORMATS.flatMap((format) => Object.keys(FORMATS[format].schema.shape).filter((field) => !(field in COMMON_FIELDS) && field !== 'format').map((field) => [field, format] as const)),
);

/** Every string of the source, with its field path: header values are included, header names not. */
function mapStrings(value: unknown, path: string, fn: (text: string, path: string) => string): unknown {
  if (typeof value === 'string') return fn(value, path);
  if (Array.isArray(value)) return value.map((item, i) => mapStrings(item, `${path}.${i}`, fn));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, mapStrings(inner, `${path}.${key}`, fn)]));
  }
  return value;
}

function badReferences(raw: unknown): SourceDefinitionError | undefined {
  let found: SourceDefinitionError | undefined;
  mapStrings(raw, 'source', (value, path) => {
    for (const [, name = ''] of value.matchAll(ENV_REFERENCE)) {
      if (!ENV_NAME.test(name)) found ??= new SourceDefinitionError(path, `"\${env:${name}}" is not an environment variable name`);
    }
    return value;
  });
  return found;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

/** Validates a source object; the error names the first bad field as `source.PATH`. */
export function parseSource(raw: unknown): SourceDefinition {
  const result = sourceSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = ['source', ...issue.path.map(String)].join('.');
    if (issue.code === 'unrecognized_keys') {
      const field = issue.keys[0]!;
      const owner = OWNERS.get(field);
      throw new SourceDefinitionError(`${path}.${field}`, owner === undefined ? 'unknown field' : `only allowed with format ${owner}`);
    }
    // A missing field fails its type, enum or union check; say "required" rather than what it is
    // not, and for which format when the schema says (source-fields.ts, missingFor).
    if (issue.code !== 'custom' && valueAt(raw, issue.path) === undefined && !issue.message.startsWith('required')) throw new SourceDefinitionError(path, 'required');
    // A bad record key carries the key check's own issue (the header-name message).
    if (issue.code === 'invalid_key') throw new SourceDefinitionError(path, issue.issues[0]?.message ?? 'is not a valid key');
    // zod's own wording ("Invalid input: expected ...") is replaced; messages given in the schema are kept.
    if (issue.code !== 'invalid_type' || !issue.message.startsWith('Invalid input')) throw new SourceDefinitionError(path, issue.message);
    throw new SourceDefinitionError(path, `must be ${issue.expected === 'object' ? 'an' : 'a'} ${issue.expected}`);
  }
  const bad = badReferences(result.data);
  if (bad) throw bad;
  return result.data;
}

/** Every NAME that a `${env:NAME}` in any string of the source refers to, each once, in order. */
export function envReferences(source: SourceDefinition): string[] {
  const names = new Set<string>();
  mapStrings(source, 'source', (value) => {
    for (const [, name = ''] of value.matchAll(ENV_REFERENCE)) names.add(name);
    return value;
  });
  return [...names];
}

/**
 * Refuses a source whose references are not set, naming each variable and where it is used, never
 * a value. An empty variable counts as unset: a blank secret is a mistake, as for the app's settings.
 */
export function checkEnv(source: SourceDefinition, env: Readonly<Record<string, string | undefined>>): void {
  const missing: string[] = [];
  mapStrings(source, 'source', (value, path) => {
    for (const [, name = ''] of value.matchAll(ENV_REFERENCE)) {
      if (!env[name]) missing.push(`${path}: environment variable ${name} is not set`);
    }
    return value;
  });
  if (missing.length > 0) {
    const [first = '', ...rest] = missing;
    const cut = first.indexOf(': ');
    throw new SourceDefinitionError(first.slice(0, cut), [first.slice(cut + 2), ...rest].join('; '));
  }
}

/** The source with every `${env:NAME}` replaced by its value, at pull time only; never log the result. */
export function resolveEnv(source: SourceDefinition, env: Readonly<Record<string, string | undefined>>): SourceDefinition {
  checkEnv(source, env);
  return mapStrings(source, 'source', (value) => value.replace(ENV_REFERENCE, (_, name: string) => env[name]!)) as SourceDefinition;
}

