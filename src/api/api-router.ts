// The lookup API's route table: key resolution, rate limits, handlers, and its own error rendering.
import type { Request } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { createLookupClientResolver } from '../auth/lookup-client.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { Route, SurfaceTable } from '../http/route-table.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { createClientAdmission } from '../plans/admit-client.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import { RequestSlot } from '../request-slot.js';
import type { Store } from '../store/contract/store.js';
import { andThen } from '../maybe-promise.js';
import { createAnalysisClientResolver, isAnalyzePath, readAnalysisForm } from './analyze-form.js';
import { createAnalysisHandlers } from './analyze-handlers.js';
import { createApiErrorRenderer, notFoundRoute } from './api-errors.js';
import { infoRequest } from './info-request.js';
import { createExploreHandlers } from './explore-handlers.js';
import { exploreRequest } from './explore-requests.js';
import { createLookupHandlers } from './lookup-handlers.js';
import { searchRequest } from './search-request.js';
import { feedRequest, indicatorRequest, threatRequest, type LookupRequest } from './lookup-requests.js';

/** The lookup a request asks for, read once: the fast path asks whether its body is cached, then serves it. */
const asked = new RequestSlot<LookupRequest>('lookup request');

/** `read(req)`, remembered for the request (a request that cannot be read throws each time: its 400 is Express's to answer). */
function readOnce(req: Request, read: (req: Request) => LookupRequest): LookupRequest {
  let request = asked.get(req);
  if (request === undefined) {
    request = read(req);
    asked.set(req, request);
  }
  return request;
}

export function createApiSurface(deps: {
  store: Store;
  config: Config;
  clock: Clock;
  logger: Logger;
  rateLimit: RateLimiter;
  authenticate: KeyAuthenticator;
  /** Counts the lookup cache's hits and misses (`cache="lookup"`). */
  metrics?: Pick<Metrics, 'cache'> | undefined;
}): SurfaceTable {
  const lookups = createLookupHandlers(deps.store, deps.config, deps.clock, deps.metrics?.cache('lookup'));
  const explore = createExploreHandlers(deps.store, deps.config, deps.clock, deps.metrics?.cache('explore'));
  const admit = createClientAdmission(createLookupClientResolver(deps.authenticate, deps.config), deps.rateLimit);
  const analysis = createAnalysisHandlers(deps.store, deps.clock);
  // analyze.php needs a key, which its POST may send in the form: the form is read first, for this path alone (analyze-form.ts).
  const admitAnalysis = createClientAdmission(createAnalysisClientResolver(deps.authenticate), deps.rateLimit);

  /** A lookup's route: how its request is read (lookup-requests.ts); known to the fast path when its body is cached. */
  const lookup = (path: string, read: (req: Request) => LookupRequest): Route => ({
    path,
    get: (req, res) => lookups.serve(res, readOnce(req, read)),
    // A request whose parameters are a 400 throws here and goes to Express.
    known: (req) => lookups.isCached(readOnce(req, read)),
    sendsBytes: true,
  });

  return {
    mount: '/api',
    // Every request: the client from `key` (401; 429 for too many failures), then the plan's rate limits (429).
    admit: (req, res, path, headers) => (isAnalyzePath(path) ? andThen(readAnalysisForm(req, res), () => admitAnalysis(req, res, headers)) : admit(req, res, headers)),
    routes: [
      lookup('/threat.php', (req) => threatRequest(req)), // ?tid=N | ?threat=NAME | ?tid=N&get=links[&page=P]
      lookup('/feed.php', feedRequest), // ?feed=NAME&organization=ORG | ?fid=N | ?fid=N&get=links[&page=P]
      lookup('/indicator.php', indicatorRequest), // ?indicator=VALUE | ?iid=N
      lookup('/info.php', infoRequest), // Pulsedive's older single entry point, which existing integrations call (docs/interface.md section 4.4)
      // Questions across the store (docs/explore.md): Express only, as each query is read and run afresh.
      { path: '/explore.php', get: (req, res) => explore.serve(res, exploreRequest(req, deps.clock.now())) }, // ?q=QUERY[&type=threats][&limit=N][&page=P][&export=csv]
      { path: '/search.php', get: (req, res) => explore.serve(res, searchRequest(req, deps.clock.now())) }, // the pulsedive client's search, search.threat, search.feed
      // Submissions for analysis (docs/observations.md): the pulsedive client's analyze and analyze.results; a key required, the form read above.
      { path: '/analyze.php', post: analysis.submit, get: analysis.result }, // POST ioc=BASE64[&enrich&probe&key] | GET ?qid=N
    ],
    notFound: notFoundRoute,
    renderError: createApiErrorRenderer(deps.logger),
  };
}
