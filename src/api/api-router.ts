// The lookup API's route table: key resolution, rate limits, handlers, and its own error rendering.
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { createLookupClientResolver } from '../auth/lookup-client.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { HotSurface } from '../http/fast-path.js';
import type { HeaderSink } from '../http/header-list.js';
import type { Logger } from '../logger.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import type { Metrics } from '../metrics/metrics.js';
import { methodNotAllowed } from '../http/method-guard.js';
import type { RateLimiter } from '../plans/rate-limiters.js';
import { setClient } from '../plans/request-client.js';
import { RequestSlot } from '../request-slot.js';
import type { Store } from '../store/store.js';
import { createApiErrorRenderer, notFoundRoute } from './api-errors.js';
import { infoRequest } from './info-request.js';
import { createLookupHandlers } from './lookup-handlers.js';
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

export interface ApiSurface {
  router: Router;
  /** The routes the fast path answers when their body is cached (http/fast-path.ts). */
  hot: HotSurface;
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
}): ApiSurface {
  const lookups = createLookupHandlers(deps.store, deps.config, deps.clock, deps.metrics?.cache('lookup'));
  const clientOf = createLookupClientResolver(deps.authenticate, deps.config);
  const renderError = createApiErrorRenderer(deps.logger);

  /**
   * The checks of every request, before its route: the client from `key` (401; 429 for too many
   * failures), then the plan's rate limits (429). At once (no promise) when the key's record and the
   * counters are in memory: an error is then thrown, else the promise rejects with it.
   */
  const admit = (req: Request, res: Response, headers: HeaderSink = res): MaybePromise<void> =>
    andThen(clientOf(req), (client) => {
      setClient(res, client);
      return deps.rateLimit.count(client, req.ip, headers);
    });

  // Each lookup's path and how its request is read (lookup-requests.ts); every one is served alike.
  const routes: readonly (readonly [path: string, read: (req: Request) => LookupRequest])[] = [
    ['/threat.php', (req) => threatRequest(req)], // ?tid=N | ?threat=NAME | ?tid=N&get=links[&page=P]
    ['/feed.php', feedRequest], // ?feed=NAME&organization=ORG | ?fid=N | ?fid=N&get=links[&page=P]
    ['/indicator.php', indicatorRequest], // ?indicator=VALUE | ?iid=N
    ['/info.php', infoRequest], // Pulsedive's older single entry point, which existing integrations call (DESIGN section 4)
  ];
  const handler = (read: (req: Request) => LookupRequest) => (req: Request, res: Response) => lookups.serve(res, readOnce(req, read));

  const onlyGet = methodNotAllowed(['GET', 'HEAD']);
  const router = Router();
  const admission: RequestHandler = async (req, res, next) => {
    await admit(req, res);
    next();
  };
  router.use(admission);
  for (const [path, read] of routes) router.route(path).get(handler(read)).all(onlyGet);
  router.use(notFoundRoute);
  router.use(renderError);

  return {
    router,
    hot: {
      mount: '/api',
      renderError,
      // Known when the body is cached: a request whose parameters are a 400 throws here and goes to Express.
      routes: routes.map(([path, read]) => ({
        path,
        known: (req) => lookups.isCached(readOnce(req, read)),
        admit: (req, res, _params, headers) => admit(req, res, headers),
        handle: handler(read),
        sendsBytes: true,
      })),
    },
  };
}
