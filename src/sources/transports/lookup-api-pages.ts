// The `lookup-api` transport (docs/feeds.md, "Structured sources"): another Pulsedive-style service's feed.php, paged as docs/interface.md sections 4.2 and 5 page it.
import { fetchSource, FetchError, type FetchOptions } from './fetch-source.js';
import type { CommonSource } from '../formats/source-fields.js';
import { FeedFormatError } from '../parsers/feed-entry.js';
import { field, isObject, readJsonDocument } from '../parsers/json-document.js';
import type { RateLimitWaits } from './rate-limit-waits.js';

export interface LookupApiPagesOptions {
  /** Every request's options; `displayUrl` is the configured base URL, redacted: messages name `<base>api/feed.php`, never the query. */
  fetch: FetchOptions & { displayUrl: string };
  /** The pull's rate-limit budget. */
  waits: RateLimitWaits;
  /** Hears the one warning a walk can give: the upstream's page limit ended it. Never given the key. */
  warn: (message: string, fields: Record<string, unknown>) => void;
}

/** A links page as the upstream answered it, with its name for messages (`page 2`). */
export interface LinksPage {
  where: string;
  document: unknown;
}

export interface LookupApiPages {
  /** The links pages of the feed. A failed request throws, except a page refused by the plan's page limit. */
  pages(): AsyncGenerator<LinksPage>;
  /** The feed record (`feed.php?fid=F`), one request. */
  feedRecord(): Promise<unknown>;
}

/**
 * Reads upstream feed `fid` with `key`, as docs/interface.md section 5 pages its links: the first
 * request without `page` (page 0), then `page=page_next` until a page has no `page_next`.
 *
 * `source.url` is the service root, the URL under which `api/feed.php` lives
 * (`https://intel.example.org/` reads `https://intel.example.org/api/feed.php`). A URL that already
 * ends with `/api`, `/api/` or `/api/feed.php` is taken as naming that endpoint.
 *
 * - A rate limit is waited out by the pull's RateLimitWaits and the same request made again.
 * - A 403 on a page after the first, which the previous page announced with `page_next`, is the
 *   upstream plan's page limit (our API: "The Pro plan may read 2 pages per request ..."): the walk
 *   ends there, keeps what it read and calls `warn`. A 403 on the first page is a failure: the key
 *   may read nothing.
 * - A page with no rows ends the walk even if it names a next page, and a `page_next` that does not
 *   move forward is a format error: a broken upstream cannot make a pull loop.
 *
 * The key goes only into request URLs; messages name the endpoint without its query string.
 */
export function lookupApiPages(source: CommonSource, fid: number, key: string, options: LookupApiPagesOptions): LookupApiPages {
  const endpoint = endpointOf(source.url);
  const display = displayEndpointOf(options.fetch.displayUrl);

  /** The JSON document the endpoint answers for `params` (key added), rate limits waited out. */
  function request(params: Record<string, string>, where: string): Promise<unknown> {
    const url = new URL(endpoint);
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    url.searchParams.set('key', key);
    return options.waits.retrying(async () => {
      const fetched = await fetchSource({ ...source, url: url.href }, {}, { ...options.fetch, displayUrl: display });
      if (fetched.kind !== 'body') throw new FetchError(display, 'HTTP status 304 without a conditional request', 304);
      return readJsonDocument(fetched.body, where);
    }, where);
  }

  async function* pages(): AsyncGenerator<LinksPage> {
    let pagesRead = 0;
    for (let page = 0; ; ) {
      const where = `page ${page}`;
      // page_next only moves forward (checked below), so no page comes twice; an upstream that never stops is bounded here.
      if (pagesRead >= source.maxPages) throw new FeedFormatError(where, `more than maxPages (${source.maxPages}) pages in one pull`);
      let document: unknown;
      try {
        document = await request(page === 0 ? { fid: String(fid), get: 'links' } : { fid: String(fid), get: 'links', page: String(page) }, where);
      } catch (error) {
        if (page > 0 && error instanceof FetchError && error.status === 403) {
          options.warn('lookup-api: the upstream plan allows no more pages; keeping the pages read', { url: display, fid, pages: pagesRead, refusedPage: page });
          return;
        }
        throw error;
      }
      pagesRead++;
      yield { where, document };
      const results = isObject(document) && Array.isArray(document.results) ? document.results : [];
      const next = pageNumber(field(document, 'page_next'));
      if (next === undefined || results.length === 0) return;
      if (next === null || next <= page) throw new FeedFormatError(where, 'page_next is not a page number after this page');
      page = next;
    }
  }

  return { pages, feedRecord: () => request({ fid: String(fid) }, 'feed record') };
}

/** A page number: undefined when absent (or null), null when present but not a non-negative integer. */
function pageNumber(value: unknown): number | undefined | null {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : null;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return null;
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
