// The source object of a feed (DESIGN 7): its zod schema, `${env:NAME}` references, and a URL safe to display.
import { z } from 'zod';
import { RISK_LEVELS } from '../domain.js';
import { INDICATOR_TYPES, indicatorTypeOf } from '../indicator-types.js';
import { neverReachable } from './network-policy.js';
import { parseSchedule, ScheduleError } from './schedule.js';

/** A source object that is not valid; the message starts with the field path (`source.csv.value: ...`). */
export class SourceDefinitionError extends Error {
  override name = 'SourceDefinitionError';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

export const SOURCE_FORMATS = ['text', 'csv', 'json', 'stix', 'taxii', 'lookup-api', 'misp'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/** An hour: a feed slower than that is down, and a pull holds its lease for its whole timeout. */
export const MAX_TIMEOUT_SECONDS = 3600;
/** 4 GiB: the largest body a pull may buffer and parse in one process. */
export const MAX_MEGABYTES = 4096;
/** A day: the longest a single pull may run, however slow its source. */
export const MAX_PULL_SECONDS = 86_400;
/** Ten million pages: a bound on a walk, not a size anyone reaches (a million-object mirror is 1,000 pages). */
export const MAX_PAGES = 10_000_000;

const ENV_REFERENCE = /\$\{env:([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The scheme is written literally, not through `${env:...}`, so it is checked when the source is added. */
const ALLOWED_SCHEMES = ['https', 'http', 'file'];

const text = z.string().min(1, 'must not be empty');
const dottedPath = z.string().regex(/^[^.]+(\.[^.]+)*$/, 'must be a dotted path such as "data.ioc"');
const risk = z.enum(RISK_LEVELS, { error: `must be one of ${RISK_LEVELS.join(', ')}` });

function checkUrl(url: string, ctx: z.RefinementCtx): void {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  // The URL itself is never echoed: it may carry a password.
  if (scheme === undefined) ctx.addIssue({ code: 'custom', message: 'must start with https://, http:// or file://' });
  else if (!ALLOWED_SCHEMES.includes(scheme) || !url.slice(scheme.length).startsWith('://')) {
    ctx.addIssue({ code: 'custom', message: `scheme "${scheme}" is not supported; use https://, http:// or file://` });
  } else if (!URL.canParse(url.replace(ENV_REFERENCE, 'x'))) ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
  else {
    // A link-local, multicast or unspecified host is refused now, not at every pull (issue 26).
    const never = neverReachable(url.replace(ENV_REFERENCE, 'x'));
    if (never !== undefined) ctx.addIssue({ code: 'custom', message: never });
  }
}

const csvOptions = z.strictObject({
  /** `first-row`, `comment` (the last `#` line before the data, as abuse.ch writes), or the names. */
  header: z.union([z.enum(['first-row', 'comment']), z.array(text).min(1)], {
    error: 'must be "first-row", "comment" or a list of column names',
  }),
  value: text.optional(),
  type: text.optional(),
  threat: text.optional(),
  risk: text.optional(),
  lastSeen: text.optional(),
  /** One character; RFC 4180's comma by default, `;` or a tab for the feeds that use them. */
  delimiter: z
    .string()
    .length(1, 'must be one character')
    .refine((c) => !['"', '\r', '\n'].includes(c), 'must not be a quote or a line break')
    .default(','),
});

const jsonOptions = z.strictObject({
  value: dottedPath.optional(),
  type: dottedPath.optional(),
  threat: dottedPath.optional(),
  risk: dottedPath.optional(),
  lastSeen: dottedPath.optional(),
  /** The array's path when the document wraps it (`{"data": [...]}`). */
  items: dottedPath.optional(),
});

const sourceSchema = z
  .strictObject({
    url: z.string().superRefine(checkUrl),
    format: z.enum(SOURCE_FORMATS, { error: `must be one of ${SOURCE_FORMATS.join(', ')}` }),
    schedule: z
      .string()
      .superRefine((value, ctx) => {
        try {
          parseSchedule(value);
        } catch (error) {
          if (!(error instanceof ScheduleError)) throw error;
          ctx.addIssue({ code: 'custom', message: error.message });
        }
      })
      .optional(),
    risk: risk.default('unknown'),
    threat: text.optional(),
    type: z
      .string()
      .refine((t) => indicatorTypeOf(t) !== undefined, `must be one of ${INDICATOR_TYPES.join(', ')}`)
      .transform((t) => indicatorTypeOf(t)!)
      .optional(),
    headers: z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'is not an HTTP header name'), z.string()).optional(),
    username: z.string().optional(),
    password: z.string().optional(),
    timeoutSeconds: z.number().positive('must be positive').max(MAX_TIMEOUT_SECONDS, `must be at most ${MAX_TIMEOUT_SECONDS}`).default(60),
    maxMegabytes: z.number().positive('must be positive').max(MAX_MEGABYTES, `must be at most ${MAX_MEGABYTES}`).default(256),
    /** The whole pull, every request and the writing included (issue 26): a source that never ends must not hold a pull forever. */
    maxSeconds: z.number().positive('must be positive').max(MAX_PULL_SECONDS, `must be at most ${MAX_PULL_SECONDS}`).default(1800),
    /** Pages, events or files a paged source (taxii, misp, lookup-api) may give one pull. */
    maxPages: z.number().int('must be a whole number').positive('must be positive').max(MAX_PAGES, `must be at most ${MAX_PAGES}`).default(100_000),
    /** The sanity gate (sanity-gate.ts): a full-list pull listing fewer than this share of the previous good pull's values is an outage. */
    minRatio: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').default(0.5),
    /** `private`: the source may reach loopback and private networks (an internal MISP, a partner over VPN); see network-policy.ts. */
    network: z.enum(['private'], { error: 'must be "private" (or left out)' }).optional(),
    csv: csvOptions.optional(),
    json: jsonOptions.optional(),
    misp: z.strictObject({ onlyIds: z.boolean().default(true) }).optional(),
    fid: z.number().int('must be a whole number').positive('must be positive').optional(),
    key: text.optional(),
  })
  .superRefine((source, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    for (const option of ['csv', 'json', 'misp'] as const) {
      if (source[option] !== undefined && source.format !== option) issue([option], `only allowed with format ${option}`);
    }
    if (source.format === 'csv' && source.csv?.value === undefined) issue(['csv', 'value'], 'required for format csv');
    if (source.format === 'json' && source.json?.value === undefined) issue(['json', 'value'], 'required for format json');
    const header = source.csv?.header;
    if (Array.isArray(header)) {
      for (const column of ['value', 'type', 'threat', 'risk', 'lastSeen'] as const) {
        const name = source.csv?.[column];
        if (name !== undefined && !header.includes(name)) issue(['csv', column], `column "${name}" is not in csv.header`);
      }
    }
    for (const field of ['fid', 'key'] as const) {
      if (source.format === 'lookup-api' && source[field] === undefined) issue([field], 'required for format lookup-api');
      if (source.format !== 'lookup-api' && source[field] !== undefined) issue([field], 'only allowed with format lookup-api');
    }
    if (source.password !== undefined && source.username === undefined) issue(['password'], 'needs a username');
    if (source.format === 'taxii') {
      const wrong = taxiiUrlProblem(source.url);
      if (wrong !== undefined) issue(['url'], wrong);
    }
  });

export type SourceDefinition = z.output<typeof sourceSchema>;

/**
 * Why a `taxii` source's URL is not a collection's objects endpoint (TAXII 2.1 section 5.3,
 * `{api-root}/collections/{id}/objects/`), naming the URL it should be when that can be told; a
 * discovery URL, an API root or a collection URL reads no objects and every pull would list nothing.
 */
export function taxiiUrlProblem(url: string): string | undefined {
  const probe = url.replace(ENV_REFERENCE, 'x');
  if (!URL.canParse(probe)) return undefined;
  const { pathname } = new URL(probe);
  if (/\/collections\/[^/]+\/objects\/?$/.test(pathname)) return undefined;
  const bare = url.replace(/[?#].*$/s, '');
  if (/\/collections\/[^/]+\/?$/.test(pathname)) {
    return `is a TAXII collection, not its objects: use ${redactedUrl(bare.endsWith('/') ? bare : `${bare}/`)}objects/`;
  }
  return 'is not a TAXII collection\'s objects URL: give {api-root}/collections/{id}/objects/ (GET {api-root}/collections/ lists the ids)';
}

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
    if (issue.code === 'unrecognized_keys') throw new SourceDefinitionError(`${path}.${issue.keys[0]}`, 'unknown field');
    // A missing field fails its type, enum or union check; say "required" rather than what it is not.
    if (issue.code !== 'custom' && valueAt(raw, issue.path) === undefined) throw new SourceDefinitionError(path, 'required');
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

/** A query value a reader may see: nothing to hide, or only `${env:NAME}` references, which name a variable and leak nothing. */
const SHOWN_QUERY_VALUE = /^(\$\{env:[^}]*\})*$/;

/**
 * The URL as configured, for `accesslink`, `feeds list` and logs (issue 27): userinfo (`user:pass@`)
 * and the fragment removed, each query value shown as `***` with its parameter name kept
 * (`?token=***&list=***`), a part without `=` (`?SECRET`) as `***` too, and `${env:NAME}`
 * placeholders kept, in the path or as a whole query value. Pass the configured URL, never the
 * resolved one. Done on the text, as `new URL` would percent-encode the placeholders; a backslash
 * ends the authority as it does for WHATWG URL parsers on http, https and file.
 */
export function redactedUrl(url: string): string {
  // Always matches: text without a scheme (an accesslink imported as typed) is all path, and still loses its query values.
  const [, scheme = '', authority = '', path = '', query] = /^(?:((?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/)([^/\\?#]*))?([^?#]*)(?:\?([^#]*))?/s.exec(url)!;
  const at = authority.lastIndexOf('@');
  const host = at >= 0 ? authority.slice(at + 1) : authority;
  return `${scheme}${host}${path}${query === undefined ? '' : `?${maskedQuery(query)}`}`;
}

function maskedQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part === '' ? part : '***';
      const value = part.slice(eq + 1);
      return SHOWN_QUERY_VALUE.test(value) ? part : `${part.slice(0, eq)}=***`;
    })
    .join('&');
}
