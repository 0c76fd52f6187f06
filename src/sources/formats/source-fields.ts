// The fields every source has (docs/interface.md section 10, "Feed sources"), and the zod pieces the formats' own fields are built from.
import { z } from 'zod';
import { RISK_LEVELS } from '../../domain.js';
import { INDICATOR_TYPES, indicatorTypeOf } from '../../indicator-types.js';
import { neverReachable } from '../transports/network-policy.js';
import { parseSchedule, ScheduleError } from '../schedule.js';

/** An hour: a feed slower than that is down, and a pull holds its lease for its whole timeout. */
export const MAX_TIMEOUT_SECONDS = 3600;
/** 4 GiB: the largest body a pull may buffer and parse in one process. */
export const MAX_MEGABYTES = 4096;
/** A day: the longest a single pull may run, however slow its source. */
export const MAX_PULL_SECONDS = 86_400;
/** Ten million pages: a bound on a walk, not a size anyone reaches (a million-object mirror is 1,000 pages). */
export const MAX_PAGES = 10_000_000;

/** `${env:NAME}`: a secret read from the pulling process's environment at pull time. */
export const ENV_REFERENCE = /\$\{env:([^}]*)\}/g;
/** The scheme is written literally, not through `${env:...}`, so it is checked when the source is added. */
const ALLOWED_SCHEMES = ['https', 'http', 'file'];

export const text = z.string().min(1, 'must not be empty');
export const dottedPath = z.string().regex(/^[^.]+(\.[^.]+)*$/, 'must be a dotted path such as "data.ioc"');
const risk = z.enum(RISK_LEVELS, { error: `must be one of ${RISK_LEVELS.join(', ')}` });
/**
 * A threat's name and category within what an import takes for a threat record (docs/getting-started.md,
 * "Import format"): any category its data uses, as threats have (docs/stix-mapping.md maps the known ones
 * to STIX), so that a threat a pull creates can be exported and imported again.
 */
const threatName = text.max(1000, 'must be at most 1000 characters');
const threatCategory = text.max(200, 'must be at most 200 characters');

/**
 * The error of a field a format cannot do without: parseSource says `required` for any missing
 * field, and this says for which format (`source.csv.value: required for format csv`), as docs/interface.md
 * section 10 words it. Pass it as the field's `error`: `z.string({ error: missingFor('csv') })`.
 */
export function missingFor(format: string): (issue: { input?: unknown }) => string | undefined {
  return (issue) => (issue.input === undefined ? `required for format ${format}` : undefined);
}

function checkUrl(url: string, ctx: z.RefinementCtx): void {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  // The URL itself is never echoed: it may carry a password.
  if (scheme === undefined) ctx.addIssue({ code: 'custom', message: 'must start with https://, http:// or file://' });
  else if (!ALLOWED_SCHEMES.includes(scheme) || !url.slice(scheme.length).startsWith('://')) {
    ctx.addIssue({ code: 'custom', message: `scheme "${scheme}" is not supported; use https://, http:// or file://` });
  } else if (!URL.canParse(url.replace(ENV_REFERENCE, 'x'))) ctx.addIssue({ code: 'custom', message: 'is not a valid URL' });
  else {
    // A link-local, multicast or unspecified host is refused now, not at every pull (docs/security.md).
    const never = neverReachable(url.replace(ENV_REFERENCE, 'x'));
    if (never !== undefined) ctx.addIssue({ code: 'custom', message: never });
  }
}

/** The fields of every format, in the order parseSource reports their problems. */
export const COMMON_FIELDS = {
  url: z.string().superRefine(checkUrl),
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
  /**
   * The threat every value is linked to: a name (created with category `malware` when no threat has
   * that name or other name), or `{"name": NAME, "category": CATEGORY}` for another category.
   */
  threat: z
    .union([threatName, z.strictObject({ name: threatName, category: threatCategory.default('malware') })], {
      error: (issue) => (issue.input === undefined ? undefined : 'must be a threat name or {"name": NAME, "category": CATEGORY}'),
    })
    .transform((threat) => (typeof threat === 'string' ? { name: threat, category: 'malware' } : threat))
    .optional(),
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
  /** The whole pull, every request and the writing included (docs/security.md): a source that never ends must not hold a pull forever. */
  maxSeconds: z.number().positive('must be positive').max(MAX_PULL_SECONDS, `must be at most ${MAX_PULL_SECONDS}`).default(1800),
  /** Pages, events or files a paged source (taxii, misp, lookup-api) may give one pull. */
  maxPages: z.number().int('must be a whole number').positive('must be positive').max(MAX_PAGES, `must be at most ${MAX_PAGES}`).default(100_000),
  /** The sanity gate (sanity-gate.ts): a full-list pull listing fewer than this share of the previous good pull's values is an outage. */
  minRatio: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').default(0.5),
  /**
   * The sanity gate's churn check (sanity-gate.ts): a full-list pull that no longer lists more than
   * this share of the previous listing's values is an outage. Left out, churn alone never refuses a
   * pull: some lists replace most of their values every day (docs/sources.md).
   */
  maxChurn: z.number({ error: 'must be a number between 0 and 1' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
  /** `private`: the source may reach loopback and private networks (an internal MISP, a partner over VPN); see network-policy.ts. */
  network: z.enum(['private'], { error: 'must be "private" (or left out)' }).optional(),
  /**
   * A zip archive's member to read (docs/sources.md, "Compressed bodies"): a body that is a zip archive is read from this member,
   * or from its only member when this is left out. Other bodies ignore it.
   */
  zip: z.strictObject({ member: text }).optional(),
};

/** The schema of one format's sources: the common fields, `format` itself, and the format's own fields. */
export function sourceSchema<F extends string, S extends z.ZodRawShape>(format: F, own: S) {
  return z.strictObject({ url: COMMON_FIELDS.url, format: z.literal(format), ...omitUrl(COMMON_FIELDS), ...own });
}

function omitUrl<T extends { url: unknown }>({ url: _url, ...rest }: T): Omit<T, 'url'> {
  return rest;
}

const commonSchema = sourceSchema('text', {});
/** What every source has, whatever its format: what the HTTP transport and the pull read. */
export type CommonSource = Omit<z.output<typeof commonSchema>, 'format'>;
