// The lookup API's route table: key resolution, rate limits, handlers, and its own error rendering.
import { Router, type RequestHandler } from 'express';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { createLookupClientResolver } from '../auth/lookup-client.js';
import type { KeyAuthenticator } from '../auth/authenticate-key.js';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics/metrics.js';
import { methodNotAllowed } from '../http/method-guard.js';
import type { Store } from '../store/store.js';
import { createApiErrorRenderer, notFoundRoute } from './api-errors.js';
import { createLookupHandlers } from './lookup-handlers.js';

export function createApiRouter(deps: {
  store: Store;
  config: Config;
  clock: Clock;
  logger: Logger;
  rateLimit: RequestHandler;
  authenticate: KeyAuthenticator;
  /** Counts the lookup cache's hits and misses (`cache="lookup"`). */
  metrics?: Pick<Metrics, 'cache'> | undefined;
}): Router {
  const { getThreat, getFeed, getIndicator, getInfo } = createLookupHandlers(deps.store, deps.config, deps.clock, deps.metrics?.cache('lookup'));
  const onlyGet = methodNotAllowed(['GET', 'HEAD']);
  const router = Router();
  router.use(createLookupClientResolver(deps.authenticate, deps.config), deps.rateLimit);

  router.route('/threat.php').get(getThreat).all(onlyGet);
  router.route('/feed.php').get(getFeed).all(onlyGet);
  router.route('/indicator.php').get(getIndicator).all(onlyGet);
  // Pulsedive's older single entry point, which existing integrations call (DESIGN section 4).
  router.route('/info.php').get(getInfo).all(onlyGet);

  router.use(notFoundRoute);
  router.use(createApiErrorRenderer(deps.logger));
  return router;
}
