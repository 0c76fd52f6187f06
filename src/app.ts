// createApp: the HTTP application, built from its collaborators with no I/O of its own.
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { createAdminRouter } from './admin/admin-router.js';
import { findAdminKey } from './admin/admin-auth.js';
import { createApiRouter } from './api/api-router.js';
import { createKeyAuthenticators } from './auth/authenticate-key.js';
import { createApiErrorRenderer, notFoundRoute } from './api/api-errors.js';
import { createConsoleRouter } from './console/console-router.js';
import { createExportRouter } from './export/export-router.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { createHealthRoutes } from './http/health-routes.js';
import { createOpenApiRoute } from './http/openapi-route.js';
import { silentLogger, type Logger } from './logger.js';
import { addMetricsRoute } from './http/metrics-route.js';
import { createRequestLog } from './http/request-log.js';
import type { Metrics } from './metrics/metrics.js';
import { createRateLimiter, type RateLimitStoreFactory } from './plans/rate-limiters.js';
import { findClient } from './plans/request-client.js';
import type { Store } from './store/store.js';
import { createTaxiiRouter } from './taxii/taxii-router.js';

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
   * The environment the sources' `${env:NAME}` secrets are read from when the operator API pulls a
   * feed (the composition root's process.env; none when absent, so such a source's pull fails).
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A JSON API: no scripts, frames or embedding; helmet's HTML-oriented defaults are tightened. */
const securityHeaders = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'cross-origin' },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: false,
});

/**
 * Strict-Transport-Security (helmet's default policy) on responses to HTTPS requests only: over
 * plain HTTP browsers ignore it (RFC 6797 sections 7.2, 8.1), and sending it there suggests a
 * protection that is not in place. `req.secure` is true for a TLS connection, or, behind a proxy
 * that terminates TLS, when `X-Forwarded-Proto: https` comes from a peer that `trustProxy` trusts;
 * with `trustProxy` false (the default) that header is ignored, since any client could send it.
 */
function hstsOverHttps(): RequestHandler {
  const hsts = helmet.strictTransportSecurity();
  return (req, res, next) => (req.secure ? hsts(req, res, next) : next());
}

/**
 * Express 5 parses the query string again on every read of `req.query`, and a request reads it once
 * per parameter. This getter, on the app's request prototype, parses it once per request.
 */
function parseQueryOnce(app: Express): void {
  const parsedQuery = Symbol('parsed query');
  const parse = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(app.request), 'query')?.get;
  if (!parse) throw new Error('Express no longer defines req.query as a getter');
  Object.defineProperty(app.request, 'query', {
    configurable: true,
    enumerable: true,
    get(this: Record<symbol, unknown>) {
      let query = this[parsedQuery];
      if (query === undefined) {
        query = parse.call(this) as unknown;
        this[parsedQuery] = query;
      }
      return query;
    },
  });
}

/**
 * Every surface, always: the lookup API at /api, the TAXII 2.1 gateway at /taxii2 and the exports
 * at /export, sharing one key authenticator and one set of rate limits, and the operator API at
 * /admin/api for admin keys (the same key cache and count of failed authentications, no plan's
 * limits), with the health probes beside them.
 */
export function createApp(config: Config, deps: AppDeps): Express {
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

  const app = express();
  app.set('trust proxy', config.trustProxy);
  app.set('etag', false);
  app.disable('x-powered-by');
  parseQueryOnce(app);
  app.use(createRequestLog(logger, (res) => findClient(res)?.keyId ?? findAdminKey(res)?.keyId ?? null, metrics), securityHeaders, hstsOverHttps());

  app.use(createHealthRoutes(store));
  if (metrics) addMetricsRoute(app, metrics, logger);
  app.use(createOpenApiRoute(config));
  app.use('/api', createApiRouter({ store, config, clock, logger, rateLimit, authenticate, metrics }));
  app.use('/taxii2', createTaxiiRouter({ store, config, clock, logger, rateLimit, authenticate, nextTokenSecret: deps.nextTokenSecret, metrics }));
  app.use('/export', createExportRouter({ store, config, logger, rateLimit, authenticate }));
  app.use('/admin', createAdminRouter({ store, config, clock, logger, authenticate: authenticators.forAdmin, env: deps.env ?? {} }));
  // The operator console's HTML pages (DESIGN 12), under /console only: no other route parses its forms or reads its sessions.
  if (config.console.enabled) app.use('/console', createConsoleRouter({ store, config, clock, logger, authenticate: authenticators.forAdmin, env: deps.env ?? {} }));

  app.use(notFoundRoute);
  app.use(createApiErrorRenderer(logger));
  return app;
}
