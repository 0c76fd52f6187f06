// `threatgate serve`: one process, or a cluster of workers; prints the ready line and drains on SIGTERM/SIGINT.
import cluster from 'node:cluster';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Express } from 'express';
import { systemClock } from '../clock.js';
import type { Config, RuntimeSettings } from '../config.js';
import { ConfigError } from '../errors.js';
import { RequestSlot } from '../request-slot.js';
import { expressMessageClasses, type MessageClasses } from '../http/express-server.js';
import type { Logger } from '../logger.js';
import { joinClusterMetrics } from '../metrics/cluster-metrics.js';
import { createMetrics, withScrape, type Metrics } from '../metrics/metrics.js';
import { createPrimaryCounterStores } from '../plans/cluster-rate-limit-store.js';
import type { RateLimitStoreFactory } from '../plans/rate-limiters.js';
import type { RedisRateLimits } from '../plans/redis-rate-limit-store.js';
import type { Store } from '../store/contract/store.js';
import { followPullerStatus, PULL_REQUESTED, runClusterPrimary, reportWorkerFailure, sendPullerStatus } from './cluster-serve.js';
import { capConnections, connectionsPerAddress, serverTimeouts, type ServerLimits } from './server-limits.js';
import { loadDemo, printDemoKeys } from './demo-command.js';
import { createAllowlist } from '../sources/allowlist.js';
import { startBackgroundPulls, type BackgroundPulls } from '../sources/background-pulls.js';
import type { PullerStatus } from '../sources/pull-thread.js';
import { removeStalePullDirs } from '../sources/pull-temp.js';

/** In-flight requests get this long to finish after SIGTERM; then their connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** What a serving process knows of the puller: how to wake it ("Pull now") and how it is (/readyz). */
export interface PullerLink {
  wakePuller: () => void;
  pullerStatus: () => PullerStatus | undefined;
}

export interface ServeOptions {
  store: Store;
  config: Config;
  settings: RuntimeSettings;
  logger: Logger;
  demoIfEmpty: boolean;
  /** Processes to serve with; 1 serves in this process, more fork a node:cluster. */
  workers: number;
  /**
   * The app over this process's store (from the composition root), given its rate-limit counters and
   * metrics, with the request listener that serves it (the fast path in front of it, or the app).
   */
  buildApp: (rateLimitStores: RateLimitStoreFactory | undefined, metrics: Metrics | undefined, puller: PullerLink) => { app: Express; listener: (req: IncomingMessage, res: ServerResponse) => void };
  out: (line: string) => void;
  err: (line: string) => void;
  /** Pull due source feeds in the background (config `pull.enabled`, unless `--no-pull`). */
  pull: boolean;
  /** Where log lines are written: the pull thread's lines join them. */
  writeLog: (line: string) => void;
  /** The environment sources' `${env:NAME}` references read. */
  env: Readonly<Record<string, string | undefined>>;
}

/** The metrics of a process that serves requests (a single process or a worker), when `metrics.enabled`. */
function processMetrics(options: ServeOptions): Metrics | undefined {
  return options.config.metrics.enabled ? createMetrics({ plans: Object.keys(options.config.plans) }) : undefined;
}

/** The background pulls of this process: the single one, or a cluster's primary (never a worker). */
function startPulls(options: ServeOptions, metrics: Metrics | undefined): BackgroundPulls | undefined {
  if (!options.pull) return undefined;
  const { config, settings } = options;
  // A bad allowlist entry stops start-up here, naming it, rather than the pull thread later.
  createAllowlist(config.allowlist);
  // What a pull that crashed left in the temporary folder (up to maxMegabytes a feed) goes now.
  void removeStalePullDirs().then((removed) => {
    if (removed > 0) options.logger.info('removed the temporary folders of pulls that did not finish', { folders: removed });
  });
  options.logger.info('pulling source feeds in the background', { checkSeconds: config.pull.checkSeconds, concurrency: config.pull.concurrency });
  return startBackgroundPulls({
    db: settings.db,
    setting: settings.dbSetting,
    collections: config.collections,
    allowlist: config.allowlist,
    checkMs: config.pull.checkSeconds * 1000,
    concurrency: config.pull.concurrency,
    allowPrivateNetworks: config.sources.allowPrivateNetworks,
    lifecycle: config.lifecycle,
    health: config.health,
    store: options.store,
    clock: systemClock,
    logger: options.logger,
    logLevel: settings.logLevel,
    writeLog: options.writeLog,
    env: options.env,
    ...(metrics ? { report: metrics.background } : {}),
    // A cluster's workers answer /readyz: they hear each change of the primary's puller.
    ...(cluster.isPrimary && options.workers > 1 ? { onStatus: (status: PullerStatus) => sendPullerStatus(status) } : {}),
  });
}

function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConfigError(`${setting}: cannot listen on ${host}:${port} (${error.code ?? error.message})`)),
    );
    server.listen(port, host, () => resolve());
  });
}

export function readyLine(host: string, port: number): string {
  return `listening on http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export interface DrainableServerOptions {
  classes?: MessageClasses;
  /** Connections and timeouts (config `server`); absent: node's defaults. */
  limits?: ServerLimits;
  /** Serving as a node:cluster worker (see capConnections). */
  inClusterWorker?: boolean;
  /** Whether a peer is a proxy `trustProxy` trusts: exempt from the per-address cap (see capConnections). */
  isProxy?: (address: string) => boolean;
}

/** A response's place in its server's list of responses in flight. */
const inFlightAt = new RequestSlot<number>('in flight at');

/**
 * A server that can drain: on drain() it stops accepting, lets in-flight requests finish within
 * `graceMs` (their responses say `Connection: close`, so kept-alive sockets do not linger), then cuts
 * whatever is left. Resolves with whether everything finished in time.
 */
export function createDrainableServer(handler: (req: IncomingMessage, res: ServerResponse) => void, options: DrainableServerOptions = {}) {
  // The responses in flight, each knowing its place in the list (a slot): added and taken out
  // without hashing a new object per request into a Set.
  const active: ServerResponse[] = [];
  let draining = false;
  const { limits } = options;
  // One listener for every response (`close` comes once): no closure per request. The last
  // response takes the place of the one that closed.
  function forget(this: ServerResponse) {
    const at = inFlightAt.get(this);
    if (at === undefined) return;
    inFlightAt.set(this, undefined);
    const last = active.pop()!;
    if (last !== this) {
      active[at] = last;
      inFlightAt.set(last, at);
    }
  }
  const server = createServer({ ...options.classes, ...(limits ? serverTimeouts(limits) : {}) }, (req, res) => {
    inFlightAt.set(res, active.length);
    active.push(res);
    res.on('close', forget);
    if (draining) res.setHeader('Connection', 'close');
    handler(req, res);
  });
  if (limits) {
    const caps = { max: limits.maxConnections, perAddress: connectionsPerAddress(limits), ...(options.isProxy ? { isProxy: options.isProxy } : {}) };
    capConnections(server, caps, options.inClusterWorker ?? false);
  }
  const drain = (graceMs: number) =>
    new Promise<'drained' | 'timed out'>((resolve) => {
      draining = true;
      for (const res of active) if (!res.headersSent) res.setHeader('Connection', 'close');
      // A response whose headers went out before the drain leaves an idle kept-alive socket behind.
      const sweeper = setInterval(() => server.closeIdleConnections(), 100);
      const timer = setTimeout(() => {
        clearInterval(sweeper);
        server.closeAllConnections();
        resolve('timed out');
      }, graceMs);
      server.close(() => {
        clearInterval(sweeper);
        clearTimeout(timer);
        resolve('drained');
      });
      server.closeIdleConnections();
    });
  return { server, drain, inFlight: () => active.length };
}

/** Demo data and collection views are prepared once, before any worker starts. */
async function prepareStore(options: ServeOptions): Promise<void> {
  const { store, config, logger } = options;
  if (options.demoIfEmpty && (await store.isEmpty())) {
    options.err('the store is empty: loading the demo data set (one moment)...');
    const result = await loadDemo(store, config, systemClock);
    options.err(`demo: loaded ${result.counts.indicators} indicators; one API key per plan:`);
    printDemoKeys(result, options.out);
  }
  // Saved views added to or changed in the config get their members before the first request.
  if (await store.syncCollections(config.collections, systemClock)) logger.info('collections rebuilt for the configured views');
  // The secrets that sign TAXII `next` tokens and console sessions are made now, if the store has
  // none yet: serving then only reads them, and a read never waits for a pull's write lock.
  await store.nextTokenSecret();
  await store.consoleSecret();
}

/** Serves in this process (alone, or as one worker); calls `onReady` with the bound port. */
async function serveHere(options: ServeOptions, onReady: (port: number) => void, metrics: Metrics | undefined, pulls?: BackgroundPulls): Promise<void> {
  const { store, config, settings, logger } = options;
  let redis: RedisRateLimits | undefined;
  let rateLimitStores: RateLimitStoreFactory | undefined;
  if (settings.redisUrl) {
    // The Redis client is loaded only when Redis is configured: a process without it keeps its modules' memory.
    const { connectRedisRateLimits } = await import('../plans/redis-rate-limit-store.js');
    redis = await connectRedisRateLimits({ url: settings.redisUrl, onError: config.redis.onError, logger });
    rateLimitStores = redis.stores;
  } else if (cluster.isWorker) {
    rateLimitStores = createPrimaryCounterStores(process);
  }
  // A worker's scrape answers for the whole cluster: the primary sums every worker's registry and its own.
  const served = metrics && cluster.isWorker ? withScrape(metrics, joinClusterMetrics(process, metrics.registry)) : metrics;
  // A "Pull now" wakes the puller: this process's pull thread, or, in a worker, the primary's.
  const wakePuller = cluster.isWorker ? () => process.send?.(PULL_REQUESTED) : () => pulls?.wake();
  const pullerStatus = cluster.isWorker ? followPullerStatus() : () => pulls?.status();
  const { app, listener } = options.buildApp(rateLimitStores, served, { wakePuller, pullerStatus });
  // Requests are born with the app's prototypes, which the fast path needs as much as Express.
  // The peers Express takes X-Forwarded-For from (`trustProxy`, compiled as req.ip reads it) are proxies.
  const trusted = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  const { server, drain, inFlight } = createDrainableServer(listener, {
    classes: expressMessageClasses(app),
    limits: config.server,
    inClusterWorker: cluster.isWorker,
    isProxy: (address) => trusted(address, 0),
  });
  try {
    await listen(server, settings.port, settings.host, '--port');
  } catch (error) {
    await redis?.close();
    throw error;
  }
  const address = server.address();
  onReady(typeof address === 'object' && address ? address.port : settings.port);

  let stopping = false;
  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { reason, inFlight: inFlight(), graceMs: SHUTDOWN_GRACE_MS });
    // A backstop in case closing the store or Redis hangs.
    setTimeout(() => process.exit(0), SHUTDOWN_GRACE_MS + 5000).unref();
    const started = Date.now();
    // A running pull is aborted: it changes nothing, and the next instance pulls the feed again.
    // Within the grace period, like the requests: a pull still writing at its end is cut off.
    const pullsStopped = pulls?.stop(SHUTDOWN_GRACE_MS - 500).catch(() => undefined);
    const outcome = await drain(SHUTDOWN_GRACE_MS);
    await pullsStopped;
    if (outcome === 'timed out') logger.warn('requests still running after the grace period were cut off', { graceMs: SHUTDOWN_GRACE_MS });
    else logger.info('drained', { ms: Date.now() - started });
    await Promise.allSettled([store.close(), redis?.close()]);
    logger.info('stopped', { ms: Date.now() - started });
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  // A worker whose primary is gone has no one to restart it or relay signals: it stops too.
  if (cluster.isWorker) process.once('disconnect', () => void shutdown('cluster primary exited'));
}

export async function serve(options: ServeOptions): Promise<void> {
  const { settings } = options;
  if (cluster.isWorker) {
    // The primary prints the ready line once every worker listens; a worker's failure goes to it.
    try {
      await serveHere(options, () => undefined, processMetrics(options));
    } catch (error) {
      await options.store.close().catch(() => undefined);
      reportWorkerFailure(error);
    }
    return;
  }
  try {
    await prepareStore(options);
    if (options.workers <= 1) {
      const metrics = processMetrics(options);
      await serveHere(options, (port) => options.out(readyLine(settings.host, port)), metrics, startPulls(options, metrics));
      return;
    }
  } catch (error) {
    // main leaves the store to a running server; one that failed to start must not keep it open.
    await options.store.close().catch(() => undefined);
    throw error;
  }
  // Workers open their own connections; the primary keeps none (its pull thread opens its own).
  await options.store.close();
  // The primary serves no requests: its registry holds its own process metrics and its pull thread's.
  const metrics = options.config.metrics.enabled ? createMetrics() : undefined;
  const pulls = startPulls(options, metrics);
  runClusterPrimary({
    ...(metrics ? { metricsRegistry: metrics.registry } : {}),
    onStopping: () => pulls?.stop(SHUTDOWN_GRACE_MS - 500),
    onPullRequested: () => pulls?.wake(),
    ...(pulls ? { pullerStatus: () => pulls.status() } : {}),
    workers: options.workers,
    sharedCounters: !settings.redisUrl,
    stopTimeoutMs: SHUTDOWN_GRACE_MS + 10_000,
    logger: options.logger,
    onReady: (port) => options.out(readyLine(settings.host, port)),
    err: options.err,
  });
}
