// Handlers of GET /api/threat.php and GET /api/feed.php (spec 4.1-4.3, DESIGN section 4).
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { prettyParam, singleParam } from '../http/query-params.js';
import { ResponseCache, type CacheCounter } from '../http/response-cache.js';
import { sendJsonText, serialize } from '../http/send-json.js';
import { assertPageAllowed } from '../plans/plan-rules.js';
import { getClient } from '../plans/request-client.js';
import type { LinkOwner } from '../store/contract/records.js';
import type { Store } from '../store/store.js';
import { toFeedBody, toLinksBody, toThreatBody } from './lookup-views.js';
import { idParam, pageParam, requiredParam } from './lookup-params.js';

const THREAT_NOT_FOUND = 'Threat not found.';
const FEED_NOT_FOUND = 'Feed not found.';

/** `get` selects the linked indicators; its only value is `links`. */
function wantsLinks(req: Request): boolean {
  const get = singleParam(req, 'get');
  if (get === undefined) return false;
  if (get !== 'links') throw new BadRequestError('Parameter "get" must be "links".');
  return true;
}

export function createLookupHandlers(store: Store, config: Config, clock: Clock, cacheCounter?: CacheCounter) {
  // Bodies are kept as UTF-8 bytes: a links page of 1,000 rows is not encoded again per request.
  const cache = new ResponseCache<Buffer>(() => store.dataVersion(), clock, config.cache, (body) => body.length, cacheCounter);

  /**
   * Serves the cached body for `key` (what the record is) rendered compact or `pretty`, building it
   * on a miss; a missing record is a 404.
   */
  async function send(res: Response, key: string, pretty: boolean, notFound: string, build: () => Promise<unknown>): Promise<void> {
    const body = await cache.get(`${key}|${pretty ? 1 : 0}`, async () => {
      const value = await build();
      return value === undefined ? undefined : Buffer.from(serialize(value, pretty), 'utf8');
    });
    if (body === undefined) throw new NotFoundError(notFound);
    sendJsonText(res, body);
  }

  async function sendLinks(req: Request, res: Response, owner: LinkOwner, notFound: string): Promise<void> {
    const page = pageParam(req);
    const pretty = prettyParam(req);
    // The plan check comes before the cache: a cached page is never a way around the limit.
    assertPageAllowed(getClient(res), page);
    const id = owner.kind === 'feed' ? owner.fid : owner.tid;
    await send(res, `links|${owner.kind}|${id}|${page}`, pretty, notFound, async () => {
      const links = await store.findLinksPage(owner, page, config.linksPageSize);
      return links.found ? toLinksBody(page, links) : undefined;
    });
  }

  /** GET /api/threat.php?tid=N | ?threat=NAME | ?tid=N&get=links[&page=P] */
  const getThreat: RequestHandler = async (req, res) => {
    if (wantsLinks(req)) return sendLinks(req, res, { kind: 'threat', tid: idParam(req, 'tid') }, THREAT_NOT_FOUND);
    const pretty = prettyParam(req);
    const byId = singleParam(req, 'tid') !== undefined || singleParam(req, 'threat') === undefined;
    const tid = byId ? idParam(req, 'tid') : undefined;
    const name = byId ? undefined : requiredParam(req, 'threat').trim();
    const key = tid !== undefined ? `threat|${tid}` : `threat-name|${name!.toLowerCase()}`;
    await send(res, key, pretty, THREAT_NOT_FOUND, async () => {
      const threat = tid !== undefined ? await store.findThreat(tid) : await store.findThreatByName(name!);
      return threat && toThreatBody(threat, await store.findRelatedThreats(threat.related));
    });
  };

  /** GET /api/feed.php?feed=NAME&organization=ORG | ?fid=N | ?fid=N&get=links[&page=P] */
  const getFeed: RequestHandler = async (req, res) => {
    if (wantsLinks(req)) return sendLinks(req, res, { kind: 'feed', fid: idParam(req, 'fid') }, FEED_NOT_FOUND);
    const pretty = prettyParam(req);
    if (singleParam(req, 'fid') !== undefined) {
      const fid = idParam(req, 'fid');
      return send(res, `feed|${fid}`, pretty, FEED_NOT_FOUND, async () => {
        const feed = await store.findFeed(fid);
        return feed && toFeedBody(feed);
      });
    }
    const feedName = requiredParam(req, 'feed').trim();
    const organization = requiredParam(req, 'organization').trim();
    // JSON-encoding the pair keeps names holding the separator from colliding.
    await send(res, `feed-name|${JSON.stringify([feedName.toLowerCase(), organization.toLowerCase()])}`, pretty, FEED_NOT_FOUND, async () => {
      const feed = await store.findFeedByName(feedName, organization);
      return feed && toFeedBody(feed);
    });
  };

  return { getThreat, getFeed };
}
