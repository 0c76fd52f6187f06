// How every lookup of the API is served (docs/interface.md sections 4 and 5): its request read as a Lookup
// (lookup-requests.ts), its body from the response cache or built from the store.
import type { Response } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { MaybePromise } from '../maybe-promise.js';
import { NotFoundError } from '../errors.js';
import { ResponseCache, type CacheCounter } from '../http/response-cache.js';
import { sendJsonText, serialize } from '../http/send-json.js';
import { assertPageAllowed } from '../plans/plan-rules.js';
import { getClient } from '../plans/request-client.js';
import { isSingleAddress, storedBlocksHolding } from '../sources/stored-blocks.js';
import type { Store } from '../store/contract/store.js';
import { findIndicatorLinks } from './indicator-links.js';
import type { Lookup, LookupRequest } from './lookup-requests.js';
import { toFeedBody, toIndicatorBody, toIndicatorLinksBody, toLinksBody, toThreatBody } from './lookup-views.js';

const THREAT_NOT_FOUND = 'Threat not found.';
const FEED_NOT_FOUND = 'Feed not found.';
const INDICATOR_NOT_FOUND = 'Indicator not found.';

/** How a lookup is served: its cache key (what the record is), its 404 message, and how its body is built. */
interface LookupPlan {
  key: string;
  notFound: string;
  build: () => Promise<unknown>;
}

export function createLookupHandlers(store: Store, config: Config, clock: Clock, cacheCounter?: CacheCounter) {
  // Bodies are kept as UTF-8 bytes: a links page of 1,000 rows is not encoded again per request.
  const cache = new ResponseCache<Buffer>(() => store.dataVersion(), clock, config.cache, (body) => body.length, cacheCounter);

  function planOf(lookup: Lookup): LookupPlan {
    switch (lookup.kind) {
      case 'threat':
        return { key: `threat|${lookup.tid}`, notFound: THREAT_NOT_FOUND, build: async () => threatBody(await store.findThreat(lookup.tid)) };
      case 'threat-name':
        return { key: `threat-name|${lookup.name.toLowerCase()}`, notFound: THREAT_NOT_FOUND, build: async () => threatBody(await store.findThreatByName(lookup.name)) };
      case 'feed':
        return { key: `feed|${lookup.fid}`, notFound: FEED_NOT_FOUND, build: async () => feedBody(await store.findFeed(lookup.fid)) };
      case 'feed-name':
        // JSON-encoding the pair keeps names holding the separator from colliding.
        return {
          key: `feed-name|${JSON.stringify([lookup.feed.toLowerCase(), lookup.organization.toLowerCase()])}`,
          notFound: FEED_NOT_FOUND,
          build: async () => feedBody(await store.findFeedByName(lookup.feed, lookup.organization)),
        };
      case 'links': {
        const { owner, page } = lookup;
        const id = owner.kind === 'feed' ? owner.fid : owner.tid;
        return {
          key: `links|${owner.kind}|${id}|${page}`,
          notFound: owner.kind === 'feed' ? FEED_NOT_FOUND : THREAT_NOT_FOUND,
          build: async () => {
            const links = await store.findLinksPage(owner, page, config.linksPageSize);
            return links.found ? toLinksBody(page, links) : undefined;
          },
        };
      }
      case 'indicator':
        return { key: `indicator|${lookup.iid}`, notFound: INDICATOR_NOT_FOUND, build: async () => indicatorBody(await store.findIndicator(lookup.iid)) };
      case 'indicator-value':
        // The value is normalized and its type follows from it; the spelling given counts only when
        // it is not the normalized value (an import's unnormalized value, found as stored).
        return {
          // The detected type names every type looked under; the value's length ends it unambiguously
          // whatever it holds, and what follows is the spelling given, when it counts.
          // A block's answer (below) is cached under the address asked, as its `matched.query` says;
          // a block stored later changes the data version, which empties the cache, so it is never hidden.
          key: `indicator-value|${lookup.types[0]}|${lookup.value.length}|${lookup.value}|${lookup.asGiven === lookup.value ? '' : lookup.asGiven}`,
          notFound: INDICATOR_NOT_FOUND,
          build: async () => indicatorBody(await store.findIndicatorByValue(lookup.value, lookup.types, lookup.asGiven)) ?? blockBody(lookup.value, lookup.types[0]),
        };
      case 'indicator-links': {
        const { iid, page } = lookup;
        return {
          key: `indicator-links|${iid}|${page}`,
          notFound: INDICATOR_NOT_FOUND,
          build: async () => {
            const indicator = await store.findIndicator(iid);
            return indicator && toIndicatorLinksBody(page, await findIndicatorLinks(store, indicator, { page, size: config.linksPageSize, maxMillis: config.explore.maxMillis }));
          },
        };
      }
      case 'indicator-properties':
        return {
          key: `indicator-properties|${lookup.iid}`,
          notFound: INDICATOR_NOT_FOUND,
          build: async () => {
            const properties = await store.findIndicatorProperties(lookup.iid);
            return properties && { properties };
          },
        };
    }
  }

  /**
   * An address no indicator holds, answered by the narrowest active stored block holding it, with
   * `matched` saying so (docs/lookup-api.md, "An address inside a listed block"); undefined when
   * the value is no single address or no active block holds it.
   */
  async function blockBody(value: string, type: string | undefined) {
    if ((type !== 'ip' && type !== 'ipv6') || !isSingleAddress(value, type)) return undefined;
    const narrowest = (await storedBlocksHolding(store, value, type)).find((block) => block.risk !== 'retired');
    const block = narrowest && (await store.findIndicator(narrowest.iid));
    return block && { ...toIndicatorBody(block), matched: { query: value, by: 'block' as const } };
  }

  async function threatBody(threat: Awaited<ReturnType<Store['findThreat']>>) {
    return threat && toThreatBody(threat, await store.findRelatedThreats(threat.related));
  }
  const feedBody = (feed: Awaited<ReturnType<Store['findFeed']>>) => feed && toFeedBody(feed);
  const indicatorBody = (indicator: Awaited<ReturnType<Store['findIndicator']>>) => indicator && toIndicatorBody(indicator);

  const cacheKey = (plan: LookupPlan, pretty: boolean) => `${plan.key}|${pretty ? 1 : 0}`;

  /**
   * Serves the cached body of the lookup, rendered compact or `pretty`, building it on a miss; a
   * missing record is a 404. The plan's page allowance is checked before the cache: a cached page
   * is never a way around the limit. At once when the body is cached (no promise), else when it is built.
   */
  function serve(res: Response, request: LookupRequest): MaybePromise<void> {
    const { lookup, pretty } = request;
    if (lookup.kind === 'links' || lookup.kind === 'indicator-links') assertPageAllowed(getClient(res), lookup.page);
    const plan = planOf(lookup);
    const { notFound, build } = plan;
    const key = cacheKey(plan, pretty);
    const hit = cache.peek(key);
    if (hit !== undefined) return sendJsonText(res, hit);
    return cache
      .get(key, async () => {
        const value = await build();
        return value === undefined ? undefined : Buffer.from(serialize(value, pretty), 'utf8');
      })
      .then((body) => {
        if (body === undefined) throw new NotFoundError(notFound);
        sendJsonText(res, body);
      });
  }

  return {
    serve,
    /** Whether `serve` would find the body cached now (the fast path's question); counts nothing. */
    isCached: ({ lookup, pretty }: LookupRequest) => cache.has(cacheKey(planOf(lookup), pretty)),
  };
}
