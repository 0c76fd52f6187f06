// createApp: the HTTP application, built from its collaborators with no I/O of its own.
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Express } from 'express';
import { adminOpenApi } from './admin/admin-operations.js';
import { createAdminRouter } from './admin/admin-router.js';
import { findAdminKey } from './admin/admin-auth.js';
import { createApiSurface } from './api/api-router.js';
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
import { parseQuery } from './http/query-parser.js';
import { createFastPath } from './http/fast-path.js';
import { createRequestLog } from './http/request-log.js';
import { createSecurityHeaders } from './http/security-headers.js';
import type { Metrics } from './metrics/metrics.js';
import { RequestSlot } from './request-slot.js';
import { createRateLimiter, type RateLimitStoreFactory } from './plans/rate-limiters.js';
import { findClient } from './plans/request-client.js';
import type { Store } from './store/store.js';
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

/** Where a request keeps the properties read once (declared once for every app: a slot per app would grow every request's slots). */
const READ_ONCE = { query: new RequestSlot<unknown>('query read once'), ip: new RequestSlot<unknown>('ip read once') };

/** What a read-once property holds when it was read as undefined (an empty slot is one not read yet). */
const READ_UNDEFINED = Symbol('read as undefined');

/**
 * Express 5 works out `req.query` (parsing the query string) and `req.ip` (reading X-Forwarded-For
 * against `trust proxy`) again on every read, and a request reads each several times (the query
 * once per parameter; the address for the key check, the rate limits and the log line). This
 * getter, on the app's request prototype, works the property out once per request: it depends only
 * on the request and the app's settings, which do not change while the request is served.
 */
function readOncePerRequest(app: Express, property: 'query' | 'ip'): void {
  const kept = READ_ONCE[property];
  const express = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(app.request), property)?.get;
  if (!express) throw new Error(`Express no longer defines req.${property} as a getter`);
  const read = property === 'ip' && app.get('trust proxy') === false ? peerAddress : express;
  Object.defineProperty(app.request, property, {
    configurable: true,
    enumerable: true,
    get(this: object) {
      const held = kept.get(this);
      if (held !== undefined) return held === READ_UNDEFINED ? undefined : held;
      // An address Express cannot tell (a closed socket) is undefined, and stays so.
      const value = read.call(this) as unknown;
      kept.set(this, value === undefined ? READ_UNDEFINED : value);
      return value;
    },
  });
}

/**
 * `req.ip` when no proxy is trusted: the peer's address, which is what Express's getter gives then
 * (proxy-addr with a trust function that refuses every address keeps only the socket's address)
 * without parsing X-Forwarded-For into a list first.
 */
function peerAddress(this: { socket?: { remoteAddress?: string } }): string | undefined {
  return this.socket?.remoteAddress;
}

/** The app, and the server's request listener: the fast path in front of the app, or the app alone. */
export interface ServedApp {
  app: Express;
  listener: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * Every surface, always: the lookup API at /api, the TAXII 2.1 gateway at /taxii2 and the exports
 * at /export, sharing one key authenticator and one set of rate limits, and the operator API at
 * /admin/api for admin keys (the same key cache and count of failed authentications, no plan's
 * limits), with the health probes beside them. With `fastPath` (the default), requests whose answer
 * is already known skip Express (http/fast-path.ts) through the same parts: the request log, the
 * security headers, and each surface's checks and handlers.
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
  const securityHeaders = createSecurityHeaders();
  const api = createApiSurface({ store, config, clock, logger, rateLimit, authenticate, metrics });
  const exportLists = createExportSurface({ store, config, clock, logger, rateLimit, authenticate });
  const taxii = createTaxiiSurface({ store, config, clock, logger, rateLimit, authenticate, nextTokenSecret: deps.nextTokenSecret, metrics });

  const app = express();
  app.set('trust proxy', config.trustProxy);
  // Express's default ("simple", node's querystring), read faster when there is nothing to decode.
  app.set('query parser', parseQuery);
  app.set('etag', false);
  app.disable('x-powered-by');
  readOncePerRequest(app, 'query');
  readOncePerRequest(app, 'ip');
  app.use(requestLog.middleware, securityHeaders.middleware);

  app.use(createHealthRoutes(store, deps.pullerStatus));
  if (metrics) addMetricsRoute(app, metrics, logger);
  app.use(createOpenApiRoute(config, [lookupOpenApi(config), taxiiOpenApi(config), exportOpenApi(config), adminOpenApi()]));
  app.use('/api', api.router);
  app.use('/taxii2', taxii.router);
  app.use('/export', exportLists.router);
  app.use('/admin', createAdminRouter({ store, config, clock, logger, authenticate: authenticators.forAdmin, wakePuller: deps.wakePuller }));
  // The operator console's HTML pages (DESIGN 12), under /console only: no other route parses its forms or reads its sessions.
  if (config.console.enabled) app.use('/console', createConsoleRouter({ store, config, clock, logger, authenticate: authenticators.forAdmin, wakePuller: deps.wakePuller }));

  app.use(notFoundRoute);
  app.use(createApiErrorRenderer(logger));
  const listener = config.fastPath ? createFastPath(app, { requestLog, securityHeaders, surfaces: [api.hot, taxii.hot, exportLists.hot] }) : (req: IncomingMessage, res: ServerResponse) => void app(req, res);
  return { app, listener };
}

/** The app alone (createServedApp's), for callers that serve no fast path: in-process tests through supertest. */
export function createApp(config: Config, deps: AppDeps): Express {
  return createServedApp(config, deps).app;
}
