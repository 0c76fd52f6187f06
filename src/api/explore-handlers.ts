// How explore and search requests are answered (docs/explore.md): the plan's page allowance, the
// store's query under `explore.maxMillis`, and the page as JSON (paged as links are) or as CSV.
import type { Response } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { BadRequestError } from '../errors.js';
import { exploreCsv } from '../explore/explore-csv.js';
import { ResponseCache, type CacheCounter } from '../http/response-cache.js';
import { sendBytes, sendJsonText, serialize } from '../http/send-json.js';
import { assertPageAllowed } from '../plans/plan-rules.js';
import { getClient } from '../plans/request-client.js';
import type { ExploreQuery, ExploreResult, FeedFilter, IndicatorFilter, ThreatFilter } from '../store/contract/explore.js';
import type { Store } from '../store/contract/store.js';
import type { SearchRequest } from './search-request.js';

/** An age in the query (`seen>7d`) makes the answer depend on the time as well as the data. */
const AGE_IN_QUERY = /[<>=]\s*"?\s*\d{1,6}\s*[dhm]\b/i;

/** Spec 4.3's paging, as links pages have it: one page alone carries only `results`. */
function pagedBody(page: number, results: unknown[], more: boolean) {
  if (page === 0 && !more) return { results };
  return more ? { page_current: page, page_next: page + 1, results } : { page_current: page, results };
}

export function createExploreHandlers(store: Store, config: Config, clock: Clock, cacheCounter?: CacheCounter) {
  // A query asked again (Amass polling a parent domain, a dashboard) costs a map read until the data changes.
  // A quarter of the lookups' memory: explore pages are larger and asked again less often.
  const cache = new ResponseCache<Buffer>(
    () => store.dataVersion(),
    clock,
    { ...config.cache, maxMegabytes: config.cache.maxMegabytes / 4, admitOnRepeat: true },
    (body) => body.length,
    cacheCounter,
  );

  async function run(request: SearchRequest, offset: number, limit: number): Promise<Extract<ExploreResult, { timedOut?: false }>> {
    const { maxMillis } = config.explore;
    const query: ExploreQuery =
      request.mode === 'indicators'
        ? { mode: 'indicators', filter: request.filter as IndicatorFilter, offset, limit, maxMillis }
        : request.mode === 'threats'
          ? { mode: 'threats', filter: request.filter as ThreatFilter, offset, limit, maxMillis }
          : { mode: 'feeds', filter: request.filter as FeedFilter, offset, limit, maxMillis };
    const result = await store.explore(query);
    if (result.timedOut === true) throw new BadRequestError(`q: narrow the query: it ran longer than ${maxMillis} ms.`);
    return result;
  }

  async function jsonBody(request: SearchRequest): Promise<Buffer> {
    const result = await run(request, request.page * request.limit, request.limit);
    return Buffer.from(serialize(pagedBody(request.page, result.rows, result.more), request.pretty), 'utf8');
  }

  /** Every page the plan may read, as one CSV document. */
  async function csvBody(request: SearchRequest, pages: number): Promise<Buffer> {
    const result = await run(request, 0, request.limit * pages);
    return Buffer.from(exploreCsv(result.mode, result.rows), 'utf8');
  }

  async function serve(res: Response, request: SearchRequest): Promise<void> {
    const client = getClient(res);
    if (request.csv) {
      const body = await csvBody(request, client.plan.pages);
      res.setHeader('Content-Disposition', `attachment; filename="explore-${request.mode}.csv"`);
      sendBytes(res, 200, 'text/csv; charset=utf-8', body);
      return;
    }
    assertPageAllowed(client, request.page);
    const minute = AGE_IN_QUERY.test(request.q) ? Math.floor(clock.now() / 60_000) : '';
    const key = `${request.mode}|${request.limit}|${request.page}|${request.pretty ? 1 : 0}|${minute}|${request.q}`;
    const body = cache.peek(key) ?? (await cache.get(key, () => jsonBody(request)));
    sendJsonText(res, body!);
  }

  return { serve };
}
