// Handlers of GET /api/threat.php and GET /api/feed.php (spec 4.1-4.3, DESIGN section 4).
import type { Request, RequestHandler, Response } from 'express';
import type { Config } from '../config.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { sendJson } from '../http/send-json.js';
import { assertPageAllowed, type Client } from '../plans/plan-rules.js';
import type { LinkOwner } from '../store/records.js';
import type { Store } from '../store/store.js';
import { toFeedBody, toLinksBody, toThreatBody } from './lookup-views.js';
import { idParam, pageParam, prettyParam, requiredParam, singleParam } from './query-params.js';

const THREAT_NOT_FOUND = 'Threat not found.';
const FEED_NOT_FOUND = 'Feed not found.';

/** `get` selects the linked indicators; its only value is `links`. */
function wantsLinks(req: Request): boolean {
  const get = singleParam(req, 'get');
  if (get === undefined) return false;
  if (get !== 'links') throw new BadRequestError('Parameter "get" must be "links".');
  return true;
}

export function createLookupHandlers(store: Store, config: Config) {
  async function sendLinks(req: Request, res: Response, owner: LinkOwner, notFound: string): Promise<void> {
    const page = pageParam(req);
    const pretty = prettyParam(req);
    assertPageAllowed(res.locals.client as Client, page);
    const links = await store.findLinksPage(owner, page, config.linksPageSize);
    if (!links.found) throw new NotFoundError(notFound);
    sendJson(res, toLinksBody(page, links), pretty);
  }

  /** GET /api/threat.php?tid=N | ?threat=NAME | ?tid=N&get=links[&page=P] */
  const getThreat: RequestHandler = async (req, res) => {
    if (wantsLinks(req)) return sendLinks(req, res, { kind: 'threat', tid: idParam(req, 'tid') }, THREAT_NOT_FOUND);
    const pretty = prettyParam(req);
    const threat =
      singleParam(req, 'tid') !== undefined || singleParam(req, 'threat') === undefined
        ? await store.findThreat(idParam(req, 'tid'))
        : await store.findThreatByName(requiredParam(req, 'threat').trim());
    if (!threat) throw new NotFoundError(THREAT_NOT_FOUND);
    sendJson(res, toThreatBody(threat, await store.findRelatedThreats(threat.related)), pretty);
  };

  /** GET /api/feed.php?feed=NAME&organization=ORG | ?fid=N | ?fid=N&get=links[&page=P] */
  const getFeed: RequestHandler = async (req, res) => {
    if (wantsLinks(req)) return sendLinks(req, res, { kind: 'feed', fid: idParam(req, 'fid') }, FEED_NOT_FOUND);
    const pretty = prettyParam(req);
    const feed =
      singleParam(req, 'fid') !== undefined
        ? await store.findFeed(idParam(req, 'fid'))
        : await store.findFeedByName(requiredParam(req, 'feed').trim(), requiredParam(req, 'organization').trim());
    if (!feed) throw new NotFoundError(FEED_NOT_FOUND);
    sendJson(res, toFeedBody(feed), pretty);
  };

  return { getThreat, getFeed };
}
