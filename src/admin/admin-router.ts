// The operator API's route table (docs/interface.md section 13; /admin/api/): feeds' health and runs, a pull now, a value's provenance, the
// allowlist and sightings, for admin keys only.
import type { Request, RequestHandler, Response } from 'express';
import { createApiErrorRenderer, notFoundRoute } from '../api/api-errors.js';
import type { AdminAuthenticator } from '../auth/authenticate-key.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { middlewareStep, type RouteStep, type SurfaceTable } from '../http/route-table.js';
import { andThen } from '../maybe-promise.js';
import { sendJson } from '../http/send-json.js';
import type { Logger } from '../logger.js';
import { createAllowlist } from '../sources/allowlist.js';
import { feedStatuses } from '../sources/feed-health.js';
import { provenanceOf } from '../sources/value-provenance.js';
import { valueObservations } from '../observations/value-observations.js';
import type { Store } from '../store/contract/store.js';
import { createAllowlistHandlers, jsonBody } from './admin-allowlist.js';
import { createSightingHandlers, sightingBody } from './admin-sightings.js';
import { createAdminKeyAuthenticator, getAdminKey } from './admin-auth.js';
import { fidParam, runsLimitParam, valueParam } from './admin-params.js';
import { requestPullNow } from './pull-now.js';
import { createOperatorAllowlist } from './operator-allowlist.js';

export interface AdminDeps {
  store: Store;
  config: Config;
  clock: Clock;
  logger: Logger;
  /** Shares the key cache and the count of failed authentications with the other surfaces. */
  authenticate: AdminAuthenticator;
  /** Wakes this instance's puller when a "Pull now" is requested (pull-now.ts); absent, the puller finds it at its next check. */
  wakePuller?: (() => void) | undefined;
}

/**
 * Nothing the admin API answers may be kept by a browser or a proxy: it is the operator's view of
 * the sources, and every answer is current only as it is sent (RFC 9111 section 5.2.2.5).
 */
const NO_STORE = 'no-store';

/**
 * A browser that holds the Basic credentials sends them with any request to this origin, a form
 * another site posts among them. Requests that change something are refused when the browser says
 * they come from another site (Fetch Metadata, `Sec-Fetch-Site`); scripts send no such header.
 */
function refuseOtherSiteChanges(req: Request): void {
  const site = req.headers['sec-fetch-site'];
  if (req.method !== 'GET' && req.method !== 'HEAD' && (site === 'cross-site' || site === 'same-site')) {
    throw new ForbiddenError('Requests from another site may not change anything here.');
  }
}

/** A handler of admin-allowlist.ts as a route step: it answers, and never passes the request on. */
const answers =
  (handler: RequestHandler): RouteStep =>
  (req, res) =>
    handler(req, res, () => undefined);

/**
 * Mounted at /admin, its routes spelled /api/..., so that the metrics count each under its full
 * template (`/admin/api/feeds`): the request log labels a route by its router's first path segment.
 * Checked in order: a `key` parameter (400), the admin key (401, 429, 403), the route (404, 405),
 * the parameters or body (400, 413, 415), then what they name (404, 409). No plan's rate limits
 * apply: an admin key has no plan. Nothing here is for the fast path: its answers are never cached.
 */
export function createAdminSurface(deps: AdminDeps): SurfaceTable {
  const { store, config, clock, logger } = deps;
  const allowlist = createAllowlist(config.allowlist);
  const allowlistEntries = createAllowlistHandlers(createOperatorAllowlist({ store, clock, configured: config.allowlist }));
  const pullDeps = { store, clock, logger, wakePuller: deps.wakePuller };
  const send = (res: Response, body: unknown) => sendJson(res, body, false);
  const authenticate = middlewareStep(createAdminKeyAuthenticator(deps.authenticate));
  const parseBody = middlewareStep(jsonBody);
  const sightings = createSightingHandlers(store, clock);
  const parseSighting = middlewareStep(sightingBody);

  return {
    mount: '/admin',
    admit: (req, res) => {
      res.setHeader('Cache-Control', NO_STORE);
      return andThen(authenticate(req, res, {}), () => refuseOtherSiteChanges(req));
    },
    routes: [
      {
        path: '/api/feeds', // each feed's state and last run
        get: async (_req, res) => send(res, { feeds: feedStatuses(await store.feedHealthFacts(), { quietDays: config.health.quietDays }, clock.now()) }),
      },
      {
        path: '/api/feeds/:fid/runs', // ?limit=, newest first
        get: async (req, res) => {
          const fid = fidParam(req);
          const limit = runsLimitParam(req);
          if ((await store.findFeed(fid)) === undefined) throw new NotFoundError('Feed not found.');
          send(res, { runs: await store.listFeedRuns(fid, limit) });
        },
      },
      {
        path: '/api/feeds/:fid/pull', // 202: the request handed to the puller, its run to appear under `runs` (RFC 9110 section 15.3.3)
        post: async (req, res) => {
          const answer = await requestPullNow(fidParam(req), getAdminKey(res).keyId, pullDeps);
          res.location(answer.runs);
          sendJson(res, answer, false, 202);
        },
      },
      {
        path: '/api/why', // ?value=, its provenance and its latest observations
        get: async (req, res) => {
          const provenance = await provenanceOf(valueParam(req), { store, allowlist, collections: config.collections });
          send(res, { ...provenance, ...(await valueObservations(store, provenance.indicator?.iid ?? null)) });
        },
      },
      {
        path: '/api/allowlist', // POST: {entry, reason, dryRun}
        get: answers(allowlistEntries.list),
        post: (req, res, params) => andThen(parseBody(req, res, params), () => answers(allowlistEntries.add)(req, res, params)),
      },
      { path: '/api/allowlist/*entry', delete: answers(allowlistEntries.remove) }, // a run-time entry, URL-encoded
      {
        path: '/api/sightings', // GET ?value=|iid=|tid=[&limit=N][&before=ID]; POST {value | tid, note, at, count} (docs/observations.md)
        get: sightings.list,
        post: (req, res, params) => andThen(parseSighting(req, res, params), () => sightings.record(req, res)),
      },
    ],
    notFound: notFoundRoute,
    renderError: createApiErrorRenderer(logger),
  };
}
