// Parses TAXII 2.1 query parameters (section 3.4): added_after, limit, next and the match[...] filters.
import { BadRequestError } from '../errors.js';
import { normalizeStixTime, StixMappingError } from '../stix/index.js';
import type { ObjectFilters } from './next-token.js';
import { parseTimestampMicros, timestampParam } from './taxii-time.js';

export type MatchField = 'id' | 'type' | 'version' | 'spec_version';

export interface ListingQuery {
  filters: ObjectFilters;
  /** Requested page size, already capped at the configured maximum; null when not given. */
  limit: number | null;
  next: string | null;
}

const STIX_TYPE = /^[a-z0-9][a-z0-9-]{1,248}[a-z0-9]$/;
const STIX_ID = /^[a-z0-9][a-z0-9-]{1,248}[a-z0-9]--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SPEC_VERSION = /^\d{1,2}\.\d{1,2}$/;

/** Which parameters the query may carry besides the authentication ones (key, accept, pretty). */
const LISTING_PARAMS = new Set(['added_after', 'limit', 'next']);

function single(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new BadRequestError(`Parameter "${name}" must be given once (use a comma-separated list for several values).`);
  return value;
}

function list(query: Record<string, unknown>, field: MatchField, valid: (value: string) => boolean, what: string): string[] | null {
  const name = `match[${field}]`;
  const value = single(query, name);
  if (value === undefined) return null;
  const items = value.split(',').map((v) => v.trim());
  for (const item of items) if (!valid(item)) throw new BadRequestError(`Parameter "${name}" has "${item}", which is not ${what}.`);
  return [...new Set(items)];
}

/** A version is a keyword or a timestamp that is a STIX timestamp once in UTC (an offset may move it out of years 0000-9999). */
const validVersion = (v: string) => v === 'first' || v === 'last' || v === 'all' || (parseTimestampMicros(v) !== undefined && isStixTime(v));

function isStixTime(v: string): boolean {
  try {
    normalizeStixTime(v);
    return true;
  } catch (error) {
    if (error instanceof StixMappingError) return false;
    throw error;
  }
}

/**
 * `allowed` names the match fields the endpoint supports; any other match[...] is a 400, as is
 * a malformed value. Other unknown parameters are ignored, as TAXII clients add their own.
 */
export function parseListingQuery(query: Record<string, unknown>, allowed: readonly MatchField[], maxLimit: number): ListingQuery {
  for (const name of Object.keys(query)) {
    const match = /^match\[(.*)\]$/.exec(name);
    if (match && !(allowed as readonly string[]).includes(match[1]!)) {
      throw new BadRequestError(`Parameter "${name}" is not supported here; supported: ${allowed.map((f) => `match[${f}]`).join(', ')}.`);
    }
    if (!match && name.startsWith('match')) throw new BadRequestError(`Parameter "${name}" is not a TAXII filter.`);
    if (LISTING_PARAMS.has(name)) single(query, name);
  }
  const addedAfterText = single(query, 'added_after');
  const limitText = single(query, 'limit');
  let limit: number | null = null;
  if (limitText !== undefined) {
    // Any positive integer is a valid request; a large one is capped, not refused (docs/interface.md section 9.4).
    if (!/^[1-9][0-9]*$/.test(limitText)) throw new BadRequestError('Parameter "limit" must be a positive integer.');
    limit = Math.min(Number(limitText), maxLimit);
  }
  const next = single(query, 'next') ?? null;
  if (next === '') throw new BadRequestError('Parameter "next" is empty.');
  return {
    filters: {
      addedAfter: addedAfterText === undefined ? null : timestampParam('added_after', addedAfterText),
      ids: allowed.includes('id') ? list(query, 'id', (v) => STIX_ID.test(v), 'a STIX identifier') : null,
      types: allowed.includes('type') ? list(query, 'type', (v) => STIX_TYPE.test(v), 'a STIX object type') : null,
      versions: allowed.includes('version') ? list(query, 'version', validVersion, '"first", "last", "all" or a timestamp') : null,
      specVersions: allowed.includes('spec_version') ? list(query, 'spec_version', (v) => SPEC_VERSION.test(v), 'a STIX version such as 2.1') : null,
    },
    limit,
    next,
  };
}
