// The console's feed routes (DESIGN 12): the feeds page, a feed's page, and "Pull now" (the operator API's console pull).
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { fidParam, runsLimitParam } from '../admin/admin-params.js';
import { pullFromConsole, type ConsolePullDeps } from '../admin/console-pull.js';
import { formatStamp } from '../clock.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { methodNotAllowed } from '../http/method-guard.js';
import { singleParam } from '../http/query-params.js';
import { createAllowlist } from '../sources/allowlist.js';
import { feedStatuses } from '../sources/feed-health.js';
import { maskedDefinition } from '../sources/masked-definition.js';
import { CONSOLE_PATHS, pageContext, type ConsoleDeps } from './console-deps.js';
import { FeedPage } from './feed-page.js';
import { FeedsPage } from './feeds-page.js';
import { sendPage } from './render.js';

/** Runs each feed's chart on the feeds page covers. */
export const OVERVIEW_RUNS = 20;

/** `pulled`: the run "Pull now" just recorded, named in the redirect to the feed's page. */
function pulledParam(req: Request): number | undefined {
  const text = singleParam(req, 'pulled');
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(text)) throw new BadRequestError('Parameter "pulled" must be a run number.');
  return Number(text);
}

export function createFeedsPages(deps: ConsoleDeps): Router {
  const { store, config, clock, logger } = deps;
  const health = { quietDays: config.health.quietDays };
  const pullDeps: ConsolePullDeps = {
    store,
    clock,
    logger,
    allowlist: createAllowlist(config.allowlist),
    env: deps.env,
    allowPrivateNetworks: config.sources.allowPrivateNetworks,
    keepRuns: config.health.keepRuns,
  };

  const showFeeds: RequestHandler = async (_req, res) => {
    const now = clock.now();
    const statuses = feedStatuses(await store.feedHealthFacts(), health, now);
    const feeds = await Promise.all(statuses.map(async (status) => ({ status, runs: await store.listFeedRuns(status.fid, OVERVIEW_RUNS) })));
    sendPage(res, <FeedsPage ctx={pageContext(res)} asOf={formatStamp(now)} feeds={feeds} />);
  };

  /** The feed's page, with what "Pull now" reports first: the run it made, or (409) why it could not start. */
  const renderFeed = async (req: Request, res: Response, fid: number, report: { pulled?: number | undefined; refusal?: string; status?: number }) => {
    const limit = runsLimitParam(req);
    const feed = await store.findFeed(fid);
    if (feed === undefined) throw new NotFoundError(`There is no feed ${fid}.`);
    const [source, facts, runs] = await Promise.all([store.findFeedSource(fid), store.feedHealthFacts(), store.listFeedRuns(fid, limit)]);
    const [status] = feedStatuses(
      facts.filter((f) => f.fid === fid),
      health,
      clock.now(),
    );
    // The run just pulled is among the latest unless others followed it at once; then the table shows it in its place.
    const pulled = report.pulled === undefined ? undefined : runs.find((run) => run.run === report.pulled);
    const definition = source === undefined ? undefined : maskedDefinition(JSON.parse(source.definition));
    sendPage(
      res,
      <FeedPage ctx={pageContext(res)} feed={feed} status={status} definition={definition} runs={runs} limit={limit} pulled={pulled} refusal={report.refusal} />,
      report.status,
    );
  };

  const showFeed: RequestHandler = async (req, res) => {
    await renderFeed(req, res, fidParam(req), { pulled: pulledParam(req) });
  };

  /**
   * Pulls now, then sends the browser to the feed's page with the new run named (303: a reload of
   * that page does not pull again). A pull that fails is a run like any other; a feed another holder
   * is pulling is the feed's page again, 409, saying who holds it, with nothing recorded.
   */
  const pullNow: RequestHandler = async (req, res) => {
    const fid = fidParam(req);
    try {
      const run = await pullFromConsole(fid, pageContext(res).keyId, pullDeps);
      res.redirect(303, `${CONSOLE_PATHS.feed(fid)}?pulled=${run.run}`);
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      await renderFeed(req, res, fid, { refusal: error.message, status: 409 });
    }
  };

  const router = Router();
  router.route('/').get(showFeeds).all(methodNotAllowed(['GET', 'HEAD']));
  router.route('/feeds/:fid').get(showFeed).all(methodNotAllowed(['GET', 'HEAD']));
  router.route('/feeds/:fid/pull').post(pullNow).all(methodNotAllowed(['POST']));
  return router;
}
