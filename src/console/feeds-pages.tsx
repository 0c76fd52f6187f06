// The console's feed routes (docs/interface.md section 14): the feeds page, a feed's page, and "Pull now" (the operator API's console pull).
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { fidParam, runsLimitParam } from '../admin/admin-params.js';
import { requestPullNow, runOfRequest, type PullNowDeps } from '../admin/pull-now.js';
import { formatStamp } from '../clock.js';
import { BadRequestError, NotFoundError } from '../errors.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { singleParam } from '../http/query-params.js';
import { feedStatuses } from '../sources/feed-health.js';
import { maskedDefinition } from '../sources/masked-definition.js';
import { CONSOLE_PATHS, pageContext, type ConsoleDeps } from './console-deps.js';
import { FeedPage } from './feed-page.js';
import { FeedsPage } from './feeds-page.js';
import { sendPage } from './render.js';

/** Runs each feed's chart on the feeds page covers. */
export const OVERVIEW_RUNS = 20;

/** `requested`: when (ms) the "Pull now" that redirected here was made, so the page can report its run. */
function requestedParam(req: Request): number | undefined {
  const text = singleParam(req, 'requested');
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw new BadRequestError('Parameter "requested" must be a time in milliseconds.');
  return Number(text);
}

export function createFeedsPages(deps: ConsoleDeps): Router {
  const { store, config, clock, logger } = deps;
  const health = { quietDays: config.health.quietDays };
  const pullDeps: PullNowDeps = { store, clock, logger, wakePuller: deps.wakePuller };

  const showFeeds: RequestHandler = async (_req, res) => {
    const now = clock.now();
    const statuses = feedStatuses(await store.feedHealthFacts(), health, now);
    const feeds = await Promise.all(statuses.map(async (status) => ({ status, runs: await store.listFeedRuns(status.fid, OVERVIEW_RUNS) })));
    sendPage(res, <FeedsPage ctx={pageContext(res)} asOf={formatStamp(now)} feeds={feeds} />);
  };

  /** The feed's page; after a "Pull now", first what became of the request: waiting, running, or the run it made. */
  const showFeed: RequestHandler = async (req, res) => {
    const fid = fidParam(req);
    const requested = requestedParam(req);
    const limit = runsLimitParam(req);
    const feed = await store.findFeed(fid);
    if (feed === undefined) throw new NotFoundError(`There is no feed ${fid}.`);
    const [source, facts, runs, waiting, lease] = await Promise.all([
      store.findFeedSource(fid), store.feedHealthFacts(fid), store.listFeedRuns(fid, limit), store.findPullRequest(fid), store.findPullLease(fid),
    ]);
    const now = clock.now();
    const [status] = feedStatuses(facts, health, now);
    const definition = source === undefined ? undefined : maskedDefinition(JSON.parse(source.definition));
    const pulling = lease !== undefined && lease.until >= now ? `${lease.owner}${lease.since === null ? '' : ` since ${formatStamp(lease.since)} UTC`}` : undefined;
    const pulled = requested === undefined ? undefined : runOfRequest(runs, requested);
    const request = requested === undefined || pulled !== undefined ? undefined : { waiting: waiting !== undefined, pulling };
    sendPage(res, <FeedPage ctx={pageContext(res)} feed={feed} status={status} definition={definition} runs={runs} limit={limit} pulled={pulled} request={request} checkSeconds={config.pull.checkSeconds} />);
  };

  /**
   * Hands the pull to the puller and sends the browser to the feed's page (303: a reload does not
   * ask again), which reports the request until its run is recorded, then the run.
   */
  const pullNow: RequestHandler = async (req, res) => {
    const fid = fidParam(req);
    await requestPullNow(fid, pageContext(res).keyId, pullDeps);
    res.redirect(303, `${CONSOLE_PATHS.feed(fid)}?requested=${clock.now()}`);
  };

  const router = Router();
  router.route('/').get(showFeeds).all(methodNotAllowed(['GET', 'HEAD']));
  router.route('/feeds/:fid').get(showFeed).all(methodNotAllowed(['GET', 'HEAD']));
  router.route('/feeds/:fid/pull').post(pullNow).all(methodNotAllowed(['POST']));
  return router;
}
