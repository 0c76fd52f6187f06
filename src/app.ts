// createApp: the HTTP application, built from its collaborators with no I/O of its own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { adminOpenApi } from './admin/admin-operations.js';
import { createAdminSurface } from './admin/admin-router.js';
import { findAdminKey } from './admin/admin-auth.js';
import { analyzeOpenApi } from './api/analyze-operations.js';
import { createApiSurface } from './api/api-router.js';
import { exploreOpenApi } from './api/explore-operations.js';
import { lookupOpenApi } from './api/lookup-operations.js';
import { createKeyAuthenticators } from './auth/authenticate-key.js';
import { createApiErrorRenderer, notFoundRoute } from './api/api-errors.js';
import { createConsoleRouter } from './console/console-router.js';
import { exportOpenApi } from './export/export-operations.js';
import { createExportSurface } from './export/export-router.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { createHealthRoutes } from './http/health-routes.js';
import type { PullerStatus } from './sources/pull-thread.js';
import { createOpenApiRoute } from './http/openapi-route.js';
import { silentLogger, type Logger } from './logger.js';
import { addMetricsRoute } from './http/metrics-route.js';
import { createQueryParser } from './http/query-parser.js';
import { createAppSteps } from './http/app-steps.js';
import { createFastPath } from './http/fast-path.js';
import { createSurfaceRouter, type SurfaceTable } from './http/route-table.js';
import { createRequestLog } from './http/request-log.js';
import { createSecurityHeaders } from './http/security-headers.js';
import type { Metrics } from './metrics/metrics.js';
import { createRateLimiter, type RateLimitStoreFactory } from './plans/rate-limiters.js';
import { findClient } from './plans/request-client.js';
import type { Store } from './store/contract/store.js';
import { createTaxiiSurface } from './taxii/taxii-router.js';
import { taxiiOpenApi } from './taxii/taxii-operations.js';

/** The app's collaborators; `config` is the first argument of createApp. */
export interface AppDeps {
  store: Store;
  clock?: Clock;
  logger?: Logger;
  /** Counter stores for the rate limiters and the failed authentications (memory when absent; the cluster primary or Redis when shared). */
  rateLimitStores?: RateLimitStoreFactory;
  /** Signs TAXII `next` tokens instead of the secret every instance shares in the store (tests). */
  nextTokenSecret?: string;
  /** Counts requests, 429s, cache hits and store errors, and serves GET /metrics (absent: neither). */
  metrics?: Metrics;
  /**
   * Wakes this instance's puller when an operator asks for a pull now (admin API or console): the
   * request is written to the store and the puller takes it (admin/pull-now.ts). Absent, a puller
   * finds the request at its next check.
   */
  wakePuller?: () => void;
  /** How this instance's puller is, for /readyz; absent or undefined: it runs none. */
  pullerStatus?: () => PullerStatus | undefined;
}

/** The app, the server's request listener (the fast path in front of the app, or the app alone), and the surfaces' tables both are built from. */
export interface ServedApp {
  app: Express;
  listener: (req: IncomingMessage, res: ServerResponse) => void;
  surfaces: readonly SurfaceTable[];
}

/**
 * Every surface, always: the lookup API at /api, the TAXII 2.1 gateway at /taxii2 and the exports
 * at /export, sharing one key authenticator and one set of rate limits, and the operator API at
 * /admin/api for admin keys (the same key cache and count of failed authentications, no plan's
 * limits), with the health probes beside them. Each keyed surface is one table
 * (http/route-table.ts): its Express router is built from it, and with `fastPath` (the default)
 * so is the fast path, which answers requests whose answer is already known without Express's
 * router (http/fast-path.ts), through the same parts: the app's steps (request log and metrics,
 * security headers), and each surface's admission, guards and handlers.
 */
export function createServedApp(config: Config, deps: AppDeps): ServedApp {
  const { store } = deps;
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? silentLogger;
  const { metrics } = deps;
  const rateLimit = createRateLimiter(deps.rateLimitStores, metrics?.rateLimited);
  const authenticators = createKeyAuthenticators(store, config, clock, {
    counters: deps.rateLimitStores,
    ...(metrics ? { onFailure: metrics.authFailed, onRefused: metrics.authRefused } : {}),
  });
  const authenticate = authenticators.forPlans;
  const requestLog = createRequestLog(logger, (res) => findClient(res)?.keyId ?? findAdminKey(res)?.keyId ?? null, metrics);
  const steps = createAppSteps(requestLog, createSecurityHeaders());
  const surfaces = [
    createApiSurface({ store, config, clock, logger, rateLimit, authenticate, metrics }),
    createTaxiiSurface({ store, config, clock, logger, rateLimit, authenticate, nextTokenSecret: deps.nextTokenSecret, metrics }),
    createExportSurface({ store, config, clock, logger, rateLimit, authenticate }),
    createAdminSurface({ store, config, clock, logger, authenticate: authenticators.forAdmin, wakePuller: deps.wakePuller }),
  ];

  const app = express();
  app.set('trust proxy', config.trustProxy);
  // Express's default ("simple", node's querystring), read faster when there is nothing to decode,
  // and once for the reads of one request (http/query-parser.ts).
  app.set('query parser', createQueryParser());
  app.set('etag', false);
  app.disable('x-powered-by');
  app.use(steps.middleware);

  app.use(createHealthRoutes(store, deps.pullerStatus));
  if (metrics) addMetricsRoute(app, metrics, logger);
  app.use(createOpenApiRoute(config, [lookupOpenApi(config), exploreOpenApi(), analyzeOpenApi(), taxiiOpenApi(config), exportOpenApi(config), adminOpenApi()]));
  for (const surface of surfaces) app.use(surface.mount, createSurfaceRouter(surface));
  // The operator console's HTML pages (docs/interface.md section 14), under /console only: no other route parses its forms or reads its sessions.
  if (config.console.enabled) app.use('/console', createConsoleRouter({ store, config, clock, logger, authenticate: authenticators.forAdmin, wakePuller: deps.wakePuller }));

  app.use(notFoundRoute);
  app.use(createApiErrorRenderer(logger));
  const listener = config.fastPath ? createFastPath(app, { steps, surfaces }) : (req: IncomingMessage, res: ServerResponse) => void app(req, res);
  return { app, listener, surfaces };
}

/** The app alone (createServedApp's), for callers that serve no fast path: in-process tests through supertest. */
export function createApp(config: Config, deps: AppDeps): Express {
  return createServedApp(config, deps).app;
}
