// Two servers over one store, one with the fast path and one without, each with its own limiter
// state, log and metrics, served as `serve` serves them; and a client that reads answers byte for byte.
import { randomBytes } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';
import { createServedApp } from '../../src/app.js';
import { createDrainableServer } from '../../src/cli/serve-command.js';
import type { Config } from '../../src/config.js';
import { expressMessageClasses } from '../../src/http/express-server.js';
import type { SurfaceTable } from '../../src/http/route-table.js';
import { createLogger } from '../../src/logger.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import { FixedWindowStore } from '../../src/plans/fixed-window-store.js';
import type { CounterWindow, RateLimitStoreFactory } from '../../src/plans/rate-limiters.js';
import { MemorySlidingLog } from '../../src/plans/sliding-log.js';
import { connectRedisRateLimits, type RedisRateLimits } from '../../src/plans/redis-rate-limit-store.js';
import type { Store } from '../../src/store/contract/store.js';
import { fixedClock, TEST_NEXT_SECRET } from '../helpers/test-app.js';

/** An answer as it came off the socket. */
export interface Answer {
  status: number;
  /** Header lines in the order they came, name and value. */
  headers: [string, string][];
  body: Buffer;
}

export interface Sent {
  method: 'GET' | 'HEAD' | 'POST' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Limiter counts: for each window and counter key, its hits now. */
export type Counts = Record<string, number>;

export interface Server {
  port: number;
  /** The surfaces' route tables the app and its fast path were built from. */
  surfaces: readonly SurfaceTable[];
  /** Requests Express has seen (the app's handle was called). */
  expressCalls(): number;
  logLines: string[];
  metrics: Metrics;
  send(sent: Sent): Promise<Answer>;
  counts(keys: readonly string[]): Promise<Counts>;
  close(): Promise<void>;
}

/**
 * Memory counters on a clock stopped at the epoch: a window never turns over between the two
 * servers' answers to one request (so a per-second burst reaches 429 at the same request on both),
 * every window's reset lies in the past (`t=0`, `Retry-After: 1`), and the counts stay readable.
 */
function frozenMemoryCounters(): { stores: RateLimitStoreFactory; counts(keys: readonly string[]): Promise<Counts> } {
  const made: { window: CounterWindow; store: FixedWindowStore }[] = [];
  const logs: { window: CounterWindow; log: MemorySlidingLog }[] = [];
  const stores: RateLimitStoreFactory = (window) => {
    const store = new FixedWindowStore(() => 0);
    made.push({ window, store });
    return store;
  };
  // The failed authentications' log, on the same stopped clock: nothing leaves it.
  stores.slidingLog = (window) => {
    const log = new MemorySlidingLog(window, () => 0);
    logs.push({ window, log });
    return log;
  };
  return {
    stores,
    async counts(keys) {
      const counts: Counts = {};
      for (const { window, store } of made) {
        for (const key of keys) counts[`${window.name} ${key}`] = (await store.get(key))?.totalHits ?? 0;
      }
      for (const { window, log } of logs) for (const key of keys) counts[`${window.name} ${key}`] = log.countNow(key).count;
      return counts;
    },
  };
}

/** Redis counters under a prefix of their own; counts read back from Redis (the per-second window's expire within a second, and are left out). */
async function redisCounters(url: string, prefix: string): Promise<{ redis: RedisRateLimits; counts(keys: readonly string[]): Promise<Counts> }> {
  const redis = await connectRedisRateLimits({ url, onError: 'closed', logger: createLogger('silent'), prefix });
  return {
    redis,
    async counts() {
      const client = createClient({ url });
      await client.connect();
      const counts: Counts = {};
      try {
        for await (const found of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) {
          for (const key of found) {
            if (key.startsWith(`${prefix}second:`)) continue;
            // A sliding log (the failed authentications') is a list of times: its count is its length.
            counts[key.slice(prefix.length)] = (await client.type(key)) === 'list' ? await client.lLen(key) : Number(await client.get(key));
          }
        }
      } finally {
        await client.close();
      }
      return counts;
    },
  };
}

export async function removeRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length > 0) await client.del(keys);
  await client.close();
}

/** One server over `store`: `config` with fastPath as given, its counters fresh (in memory, or in Redis under a prefix of its own). */
export async function startServer(store: Store, config: Config, fastPath: boolean, redis?: { url: string; prefix: string }): Promise<Server> {
  const logLines: string[] = [];
  const logger = createLogger('info', (line) => logLines.push(line));
  const metrics = createMetrics({ defaultMetrics: false, plans: Object.keys(config.plans) });
  const counters = redis ? await redisCounters(redis.url, redis.prefix) : frozenMemoryCounters();
  const stores = 'redis' in counters ? counters.redis.stores : counters.stores;
  const served = createServedApp({ ...config, fastPath }, { store, clock: fixedClock, logger, metrics, rateLimitStores: stores, nextTokenSecret: TEST_NEXT_SECRET });
  // Every request Express answers passes through the app's handle (express/lib/application.js).
  let calls = 0;
  const app = served.app as unknown as { handle: (...args: unknown[]) => unknown };
  const handle = app.handle.bind(app);
  app.handle = (...args) => {
    calls++;
    return handle(...args);
  };
  const { server } = createDrainableServer(served.listener, { classes: expressMessageClasses(served.app) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return {
    port,
    surfaces: served.surfaces,
    expressCalls: () => calls,
    logLines,
    metrics,
    send: (sent) => send(port, agent, sent),
    counts: (keys) => counters.counts(keys),
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if ('redis' in counters) await counters.redis.close();
    },
  };
}

function send(port: number, agent: Agent, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...sent.headers };
    if (sent.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(sent.body));
    const req = httpRequest({ host: '127.0.0.1', port, method: sent.method, path: sent.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = res.rawHeaders;
        const pairs: [string, string][] = [];
        for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
        resolve({ status: res.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(sent.body);
  });
}

/** A Redis key prefix of its own per test run and server. */
export const redisPrefix = (name: string) => `tg:fastpath:${randomBytes(5).toString('hex')}:${name}:`;
