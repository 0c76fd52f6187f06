// The `lookup-api` format (DESIGN 7, issue 16): another Pulsedive-style service, read through feed.php as spec 4.3 pages it.
import { setTimeout as delay } from 'node:timers/promises';
import { fetchSource, FetchError } from '../fetch-source.js';
import type { ResolveHost } from '../guarded-agent.js';
import { SourceDefinitionError, type SourceDefinition } from '../source-definition.js';
import { FeedFormatError, type FeedBatch, type FeedEntry } from './feed-entry.js';
import { arrayField, field, isObject, readJsonDocument, textField } from './json-document.js';

/** The descriptive fields of the upstream feed record that a local feed may take over when its own are empty. */
export interface UpstreamFeed {
  description?: string;
  website?: string;
  category?: string;
  pricing?: string;
}

export interface LookupApiOptions {
  fetchImpl?: typeof fetch;
  signal?: AbortSignal;
  /** The configured base URL, redacted (`redactedUrl`): messages name `<base>api/feed.php`, never the query. */
  displayUrl: string;
  /** Waits out a 429 (default: a timer that the signal cancels); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** Hears the one warning a read can give: the upstream's page limit ended it. Never given the key. */
  warn: (message: string, fields: Record<string, unknown>) => void;
  /** The most a read waits for rate limits in total, over every request; default 300 s. */
  maxWaitSeconds?: number;
  /** Resolves host names (tests control DNS with it): see FetchOptions.resolveHost. */
  resolveHost?: ResolveHost;
}

export interface LookupApiRead {
  /** One batch per links page. A failed request throws, except a page refused by the plan's page limit. */
  batches: AsyncIterable<FeedBatch>;
  /**
   * The upstream feed record's description, website, category and pricing (those that are
   * non-empty strings; undefined when none is), fetched on the first call only, so a pull that
   * needs nothing from it spends no request. Rejects as a page request would (FetchError, FeedFormatError).
   */
  feed(): Promise<UpstreamFeed | undefined>;
}

/** Retry-After values under a second still wait a second, so a `Retry-After: 0` loop is bounded by the wait budget. */
const MIN_WAIT_SECONDS = 1;
/** A 429 without Retry-After (not ours: our API always sends it) waits this long. */
const DEFAULT_WAIT_SECONDS = 1;
const DEFAULT_MAX_WAIT_SECONDS = 300;
/** Rate-limit answers in a row for one request before the read gives up, whatever the budget left. */
const MAX_RETRIES = 10;
const DESCRIPTIVE_FIELDS = ['description', 'website', 'category', 'pricing'] as const;
/** The risk an upstream threatgate gives an indicator it aged out (DESIGN 8). */
const RETIRED = 'retired';

/**
 * Reads the links of upstream feed `source.fid` with `source.key`, as spec 4.3 pages them: the first
 * request without `page` (page 0), then `page=page_next` until a page has no `page_next`.
 *
 * `source.url` is the service root, the URL under which `api/feed.php` lives
 * (`https://intel.example.org/` reads `https://intel.example.org/api/feed.php`). A URL that already
 * ends with `/api`, `/api/` or `/api/feed.php` is taken as naming that endpoint.
 *
 * - Each result row is an entry: `indicator` its value, with the row's `type` and `risk` (which the
 *   pull keeps over the source's); rows without an indicator are counted as skipped. A row of risk
 *   `retired` (the upstream aged it out, DESIGN 8) is withdrawn, not an entry (FeedBatch
 *   `withdrawn`, issue 27). Position: `page N row M` (rows from 1).
 * - A 429 (or a 503 that says `Retry-After`) is waited out and the same request repeated, within
 *   `maxWaitSeconds` in total; past that, the read fails.
 * - A 403 on a page after the first, which the previous page announced with `page_next`, is the
 *   upstream plan's page limit (our API: "The Pro plan may read 2 pages per request ..."): the read
 *   ends there, keeps what it read and calls `warn`. A 403 on the first page is a failure: the key
 *   may read nothing.
 * - A page with no rows ends the read even if it names a next page, and a `page_next` that does not
 *   move forward is a format error: a broken upstream cannot make a pull loop.
 *
 * The key goes only into request URLs; messages name the endpoint without its query string.
 */
export function readLookupApi(source: SourceDefinition, options: LookupApiOptions): LookupApiRead {
  if (!/^https?:\/\//i.test(source.url)) throw new SourceDefinitionError('source.url', 'must be an http:// or https:// URL for format lookup-api');
  if (source.fid === undefined) throw new SourceDefinitionError('source.fid', 'required for format lookup-api');
  if (source.key === undefined) throw new SourceDefinitionError('source.key', 'required for format lookup-api');
  const fid = source.fid;
  const key = source.key;
  const endpoint = endpointOf(source.url);
  const display = displayEndpointOf(options.displayUrl);
  const maxWait = options.maxWaitSeconds ?? DEFAULT_MAX_WAIT_SECONDS;
  const sleep = options.sleep ?? ((ms: number) => delay(ms, undefined, options.signal ? { signal: options.signal } : {}));
  let waited = 0;

  /** The JSON document the endpoint answers for `params` (key added), rate limits waited out. */
  async function request(params: Record<string, string>, where: string): Promise<unknown> {
    const url = new URL(endpoint);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    url.searchParams.set('key', key);
    for (let retries = 0; ; retries++) {
      try {
        const fetched = await fetchSource({ ...source, url: url.href }, {}, {
          displayUrl: display,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
          ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
        });
        if (fetched.kind !== 'body') throw new FetchError(display, 'HTTP status 304 without a conditional request', 304);
        return await readJsonDocument(fetched.body, where);
      } catch (error) {
        const limited = error instanceof FetchError && (error.status === 429 || (error.status === 503 && error.retryAfter !== undefined));
        if (!limited) throw error;
        const seconds = Math.max(MIN_WAIT_SECONDS, error.retryAfter ?? DEFAULT_WAIT_SECONDS);
        if (retries === MAX_RETRIES) throw new FetchError(display, `HTTP status ${error.status} ${MAX_RETRIES + 1} times in a row for ${where}`, error.status, error.retryAfter);
        if (waited + seconds > maxWait) {
          throw new FetchError(display, `HTTP status ${error.status} for ${where}: waiting ${seconds} s more would exceed ${maxWait} s of rate-limit waits`, error.status, error.retryAfter);
        }
        waited += seconds;
        try {
          await sleep(seconds * 1000);
        } catch {
          // The signal ended the wait: the pull was stopped, not the upstream's fault.
          throw new FetchError(display, 'aborted');
        }
      }
    }
  }

  async function* batches(): AsyncGenerator<FeedBatch> {
    let read = 0;
    let pages = 0;
    for (let page = 0; ; ) {
      const where = `page ${page}`;
      // page_next only moves forward (checked below), so no page comes twice; an upstream that never stops is bounded here.
      if (pages >= source.maxPages) throw new FeedFormatError(where, `more than maxPages (${source.maxPages}) pages in one pull`);
      let document: unknown;
      try {
        document = await request(page === 0 ? { fid: String(fid), get: 'links' } : { fid: String(fid), get: 'links', page: String(page) }, where);
      } catch (error) {
        if (page > 0 && error instanceof FetchError && error.status === 403) {
          options.warn('lookup-api: the upstream plan allows no more pages; keeping the pages read', { url: display, fid, pages, refusedPage: page, values: read });
          return;
        }
        throw error;
      }
      if (!isObject(document) || !Array.isArray(document.results)) throw new FeedFormatError(where, 'not a links page: no "results" array');
      const batch: FeedBatch = { entries: [], skipped: 0 };
      document.results.forEach((row, i) => {
        const entry = toEntry(row, `${where} row ${i + 1}`);
        if (entry === undefined) batch.skipped++;
        else if (entry.risk?.toLowerCase() === RETIRED) (batch.withdrawn ??= []).push(entry);
        else batch.entries.push(entry);
      });
      read += batch.entries.length + (batch.withdrawn?.length ?? 0);
      pages++;
      yield batch;
      const next = pageNumber(field(document, 'page_next'));
      if (next === undefined || document.results.length === 0) return;
      if (next === null || next <= page) throw new FeedFormatError(where, 'page_next is not a page number after this page');
      page = next;
    }
  }

  let record: Promise<UpstreamFeed | undefined> | undefined;
  async function feed(): Promise<UpstreamFeed | undefined> {
    const document = await request({ fid: String(fid) }, 'feed record');
    if (!isObject(document)) throw new FeedFormatError('feed record', 'not a feed object');
    const upstream: UpstreamFeed = {};
    for (const name of DESCRIPTIVE_FIELDS) {
      const value = field(document, name);
      if (typeof value === 'string' && value.trim() !== '') upstream[name] = value.trim();
    }
    return Object.keys(upstream).length > 0 ? upstream : undefined;
  }

  return {
    batches: { [Symbol.asyncIterator]: () => batches() },
    feed: () => (record ??= feed()),
  };
}

/** A page number: undefined when absent (or null), null when present but not a non-negative integer. */
function pageNumber(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return null;
}

function toEntry(row: unknown, position: string): FeedEntry | undefined {
  const value = textField(row, 'indicator');
  if (value === undefined) return undefined;
  const entry: FeedEntry = { value, position };
  const type = textField(row, 'type');
  const risk = textField(row, 'risk');
  if (type !== undefined) entry.type = type;
  if (risk !== undefined) entry.risk = risk;
  return entry;
}

/** `<root>/api/feed.php`, no query string or fragment (the key is added per request). */
function endpointOf(url: string): URL {
  const endpoint = new URL(url);
  endpoint.search = '';
  endpoint.hash = '';
  endpoint.pathname = endpointPath(endpoint.pathname);
  return endpoint;
}

/** As endpointOf, on the text of the display URL, whose `${env:NAME}` placeholders `new URL` would encode. */
function displayEndpointOf(url: string): string {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)/s.exec(url);
  return match ? `${match[1]}${endpointPath(match[2] || '/')}` : url.replace(/[?#].*$/s, '');
}

function endpointPath(path: string): string {
  if (/\/api\/feed\.php$/i.test(path)) return path;
  if (/\/api\/?$/i.test(path)) return `${path.replace(/\/$/, '')}/feed.php`;
  return `${path.endsWith('/') ? path : `${path}/`}api/feed.php`;
}
