// The `taxii` transport (docs/feeds.md, "Structured sources"): a TAXII 2.1 collection's objects walked page by page from the previous pull's X-TAXII-Date-Added-Last, and the threats its relationships name asked for by id.
import { fetchSource, type FetchOptions } from './fetch-source.js';
import type { CommonSource } from '../formats/source-fields.js';
import { decodeText } from '../../text/decode-text.js';
import type { FeedBody } from '../parsers/feed-body.js';
import { FeedFormatError } from '../parsers/feed-entry.js';
import type { StixObjectAt } from '../parsers/read-stix.js';
import type { RateLimitWaits } from './rate-limit-waits.js';

export interface TaxiiWalkOptions {
  /** Every request's options (display URL, signal, test hooks): see FetchOptions. */
  fetch: FetchOptions & { displayUrl: string };
  /** The pull's rate-limit budget. */
  waits: RateLimitWaits;
  /** Objects asked for per page (`limit`); default 1000. */
  limit?: number;
  /** Hears what the walk could not do but did not fail for (a server paging without `next` whose dates do not advance). */
  onWarning?: (message: string) => void;
}

/** A page's objects, each with its position (`page 3 objects[4]`). */
export type TaxiiPage = StixObjectAt[];

export interface TaxiiWalk {
  /** The collection's objects from the cursor on, a page at a time. */
  pages(): AsyncGenerator<TaxiiPage>;
  /** The objects with these ids, whenever added (`match[id]`, no `added_after`), a page at a time. */
  objectsById(ids: readonly string[]): AsyncGenerator<TaxiiPage>;
  /**
   * The `added_after` for the next pull: the latest X-TAXII-Date-Added-Last of the walk's pages, once
   * `pages()` has ended without error; until then, or when no page carried a later one, the cursor
   * it was given.
   */
  cursor(): string | null;
}

export const DEFAULT_TAXII_LIMIT = 1000;
/** Ids per `match[id]` request when fetching the threats that relationships point to: about 3 KB of URL. */
const IDS_PER_REQUEST = 50;

interface Envelope {
  more: boolean;
  next: string | undefined;
  objects: unknown[];
}

interface Page {
  envelope: Envelope;
  dateAddedLast: string | null;
}

/**
 * The TAXII 2.1 media type (section 1.6.8), written here rather than imported from src/taxii: a
 * client of any TAXII server, ours included, depends on the spec, not on our server's code.
 */
const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

/** A TAXII timestamp as [whole seconds in ms, nanoseconds]: servers send up to microseconds, which a Date drops. */
function timeParts(text: string): [number, number] | undefined {
  const match = TIMESTAMP.exec(text);
  if (!match) return undefined;
  const seconds = Date.parse(`${match[1]}${match[3]!.toUpperCase()}`);
  return Number.isNaN(seconds) ? undefined : [seconds, Number((match[2] ?? '').padEnd(9, '0'))];
}

/** `a` is later than `b` (to the nanosecond, whatever the offsets); anything is later than no cursor. */
export function isLater(a: string, b: string | null): boolean {
  if (b === null) return true;
  const left = timeParts(a);
  const right = timeParts(b);
  if (left === undefined || right === undefined) return a > b;
  return left[0] > right[0] || (left[0] === right[0] && left[1] > right[1]);
}

/** The URL with `params` set; null removes a parameter, undefined leaves what the configured URL has. */
function pageUrl(base: string, params: Record<string, string | number | null | undefined>): string {
  const url = new URL(base);
  for (const [name, value] of Object.entries(params)) {
    if (value === null) url.searchParams.delete(name);
    else if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url.href;
}

async function bodyText(body: FeedBody): Promise<string> {
  const parts: string[] = [];
  for await (const chunk of decodeText(body)) parts.push(chunk);
  return parts.join('');
}

/**
 * A TAXII 2.1 envelope (section 3.7) as real servers send it: `objects` may be missing or `[]`,
 * `more` missing means false, a `next` that is null or empty is no `next`.
 */
function parseEnvelope(text: string, where: string): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FeedFormatError(where, `not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new FeedFormatError(where, 'not a TAXII envelope (a JSON object)');
  const { more, next, objects } = value as Record<string, unknown>;
  if (objects !== undefined && objects !== null && !Array.isArray(objects)) throw new FeedFormatError(where, '"objects" is not an array');
  if (more !== undefined && typeof more !== 'boolean') throw new FeedFormatError(where, '"more" is not a boolean');
  if (next !== undefined && next !== null && typeof next !== 'string') throw new FeedFormatError(where, '"next" is not a string');
  return { more: more === true, next: typeof next === 'string' && next !== '' ? next : undefined, objects: Array.isArray(objects) ? objects : [] };
}

function positioned(objects: unknown[], where: string): StixObjectAt[] {
  return objects.map((object, i) => ({ object, position: `${where} objects[${i}]` }));
}

/**
 * Walks a TAXII 2.1 collection's objects URL (`source.url`, env-resolved).
 *
 * - Each page is `GET url?added_after=CURSOR&limit=N` (no `added_after` on a first pull), with
 *   `Accept: application/taxii+json;version=2.1`, the source's headers and Basic credentials, and
 *   the limits of fetchSource per request (timeoutSeconds, maxMegabytes, redirects, no secret in a
 *   message). Parameters already in the URL are kept (an `added_after` there starts a first pull).
 * - `more: true` with a `next` asks for `next` with the same `added_after` and `limit` (TAXII 2.1
 *   section 3.4: the same query with `next`); `more: true` without one goes on with `added_after` =
 *   that page's X-TAXII-Date-Added-Last, and stops (with a warning) if it is missing or not later
 *   than the `added_after` asked, so the walk never loops. A `next` met twice fails it.
 * - A rate limit is waited out by the pull's RateLimitWaits and the same page asked again.
 * - Every request counts against maxPages, the threats asked for by id included.
 * - Any failure throws from the iteration (FetchError, FeedFormatError): the pull then keeps nothing.
 */
export function walkTaxii(source: CommonSource, cursor: string | null, options: TaxiiWalkOptions): TaxiiWalk {
  const limit = options.limit ?? DEFAULT_TAXII_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, not ${limit}`);
  // Configured headers win over the Accept given here, as they do over fetchSource's own.
  const headers = { accept: TAXII_MEDIA_TYPE, ...source.headers };
  const warn = (message: string) => options.onWarning?.(message);
  let latest: string | null = cursor;
  let requested = 0;

  async function getPage(url: string, where: string): Promise<Page> {
    if (++requested > source.maxPages) throw new FeedFormatError(where, `more than maxPages (${source.maxPages}) pages in one pull`);
    const fetched = await options.waits.retrying(() => fetchSource({ ...source, url, headers }, {}, options.fetch), where);
    if (fetched.kind !== 'body') throw new FeedFormatError(where, 'the server answered 304 Not Modified to a request without validators');
    const envelope = parseEnvelope(await bodyText(fetched.body), where);
    return { envelope, dateAddedLast: fetched.headers.get('x-taxii-date-added-last') || null };
  }

  async function* pages(): AsyncGenerator<TaxiiPage> {
    let addedAfter = cursor;
    let next: string | undefined;
    let seen: string | null = cursor;
    // A `next` met again means the server pages in a circle (two tokens taking turns, say): the walk would never end.
    const tokens = new Map<string, number>();
    for (let page = 1; ; page++) {
      const where = `page ${page}`;
      const { envelope, dateAddedLast } = await getPage(pageUrl(source.url, { added_after: addedAfter ?? undefined, limit, next: next ?? null }), where);
      yield positioned(envelope.objects, where);
      // Never backwards: a server that ignores added_after must not make the next pull start earlier.
      if (dateAddedLast !== null && isLater(dateAddedLast, seen)) seen = dateAddedLast;
      if (!envelope.more) break;
      if (envelope.next !== undefined) {
        const before = tokens.get(envelope.next);
        if (before !== undefined) throw new FeedFormatError(where, `the server sent a "next" it sent before, on page ${before}: its paging goes in a circle`);
        tokens.set(envelope.next, page);
        next = envelope.next;
        continue;
      }
      if (dateAddedLast === null || !isLater(dateAddedLast, addedAfter)) {
        warn(
          `${where}: "more" without "next", and X-TAXII-Date-Added-Last ${dateAddedLast === null ? 'is missing' : `(${dateAddedLast}) is not later than added_after`}: ` +
            'the walk stops here; the next pull goes on from the last date seen',
        );
        break;
      }
      addedAfter = dateAddedLast;
      next = undefined;
    }
    latest = seen;
  }

  async function* objectsById(missing: readonly string[]): AsyncGenerator<TaxiiPage> {
    for (let first = 0, request = 1; first < missing.length; first += IDS_PER_REQUEST, request++) {
      const ids = missing.slice(first, first + IDS_PER_REQUEST).join(',');
      let more: string | undefined;
      const asked = new Set<string>();
      for (let page = 1; ; page++) {
        const where = `threats ${request} page ${page}`;
        const { envelope } = await getPage(pageUrl(source.url, { added_after: null, 'match[id]': ids, limit, next: more ?? null }), where);
        yield positioned(envelope.objects, where);
        // These pages only complete the threats: a token met again ends them rather than the pull.
        if (!envelope.more || envelope.next === undefined || asked.has(envelope.next)) break;
        asked.add(envelope.next);
        more = envelope.next;
      }
    }
  }

  return { pages, objectsById, cursor: () => latest };
}
