// Rate-limit counters in Redis (rate-limit-redis), shared by every instance, failing open or closed as configured.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';
import { ConfigError, ServiceUnavailableError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RateLimitStoreFactory, WindowHits, WindowLimit } from './rate-limiters.js';
import { createRedisSlidingLogs, type RedisGuard } from './redis-sliding-log.js';

/** `open`: a request passes unlimited when Redis fails (logged); `closed`: it gets a 503. */
export type RedisFailureMode = 'open' | 'closed';

/** A rate-limit check must not hold a request for long when Redis hangs without refusing. */
const COMMAND_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 2000;
/** Reconnect backoff cap: short, so limits are back within seconds of Redis returning. */
const MAX_RECONNECT_DELAY_MS = 2000;
/** How long start-up waits for a first connection before deciding by the failure mode. */
const DEFAULT_START_WAIT_MS = 3000;
/** During an outage every request fails the same way: one warning per this period is enough. */
const WARN_EVERY_MS = 30_000;

export const STORE_FAILURE_MESSAGE = 'Request limits cannot be checked right now; try again shortly.';

export interface RedisRateLimitOptions {
  url: string;
  onError: RedisFailureMode;
  logger: Logger;
  /** Key prefix; each window adds its name (`tg:rl:second:`). Tests use one per run. */
  prefix?: string;
  startWaitMs?: number;
  /** Which setting named the URL, for the start-up error. */
  setting?: string;
}

export interface RedisRateLimits {
  /** For createApp's `rateLimitStores`. */
  readonly stores: RateLimitStoreFactory;
  close(): Promise<void>;
}

/** Credentials never appear in messages: redis://user:secret@host:6379/0 → redis://host:6379. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return 'the given Redis URL';
  }
}

function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException | undefined;
  if (e?.code && /^E[A-Z]+$/.test(e.code)) return e.code;
  return (e?.message ?? String(error)).split('\n')[0]!.slice(0, 200);
}

/** Warnings at most once per period while failing; one line when it works again. */
function createOutageLog(logger: Logger, message: string) {
  let failing = false;
  let warnedAt = -Infinity;
  return {
    failed(error: unknown) {
      const now = Date.now();
      if (!failing || now - warnedAt >= WARN_EVERY_MS) {
        warnedAt = now;
        logger.warn(message, { reason: reasonOf(error) });
      }
      failing = true;
    },
    /** Failing, already reported elsewhere (the start-up warning): only the recovery is logged. */
    failingQuietly() {
      failing = true;
      warnedAt = Date.now();
    },
    succeeded(recovered: string) {
      if (!failing) return;
      failing = false;
      warnedAt = -Infinity;
      logger.info(recovered);
    },
  };
}

type Outage = ReturnType<typeof createOutageLog>;

/**
 * Wraps a RedisStore so that a Redis failure follows the failure mode instead of becoming a 500.
 * The scripts are loaded on first use, not in init: createApp does no I/O, and a load that failed
 * (Redis down at start) is retried on the next request rather than remembered as a rejection.
 */
class GuardedRedisStore implements Store {
  readonly localKeys = false;
  readonly prefix: string;
  private options: Options | undefined;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly inner: RedisStore,
    private readonly mode: RedisFailureMode,
    private readonly outage: Outage,
  ) {
    this.prefix = inner.prefix;
  }

  init(options: Options): void {
    this.options = options;
  }

  private prepare(): Promise<void> {
    if (!this.options) return Promise.reject(new Error('rate-limit store used before init'));
    this.ready ??= this.inner.init(this.options).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async guarded<T>(run: () => Promise<T>, passing: T): Promise<T> {
    try {
      await this.prepare();
      const result = await run();
      this.outage.succeeded('rate-limit counters in Redis are reachable again');
      return result;
    } catch (error) {
      this.outage.failed(error);
      if (this.mode === 'closed') throw new ServiceUnavailableError(STORE_FAILURE_MESSAGE, { cause: error });
      return passing;
    }
  }

  increment(key: string): Promise<IncrementResponse> {
    // Fail open: count this request as the first of its window, so it passes (express-rate-limit wants hits >= 1).
    return this.guarded(() => this.inner.increment(key), { totalHits: 1, resetTime: undefined });
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.guarded(() => this.inner.get(key), undefined);
  }

  decrement(key: string): Promise<void> {
    return this.guarded(() => this.inner.decrement(key), undefined);
  }

  resetKey(key: string): Promise<void> {
    return this.guarded(() => this.inner.resetKey(key), undefined);
  }
}

/**
 * rate-limit-redis's increment (a window starts at its first hit and ends windowMs later), for
 * each window of KEYS in turn (ARGV: its windowMs, then its limit), stopping after the first whose
 * count passes its limit: a request's windows in one round trip. Replies hits and ms left, per
 * window counted.
 */
const COUNT_IN_ORDER = `
local out = {}
for i = 1, #KEYS do
  local windowMs = tonumber(ARGV[2 * i - 1])
  local limit = tonumber(ARGV[2 * i])
  local left = redis.call("PTTL", KEYS[i])
  local hits
  if left <= 0 then
    redis.call("SET", KEYS[i], 1, "PX", windowMs)
    hits = 1
    left = windowMs
  else
    hits = redis.call("INCR", KEYS[i])
  end
  out[#out + 1] = hits
  out[#out + 1] = left
  if hits > limit then break end
end
return out`.trim();

const isNoScript = (error: unknown) => error instanceof Error && /^NOSCRIPT(?:\s|$)/.test(error.message);

/**
 * countInOrder for counters in Redis, under the same keys as the windows' stores (so their get,
 * decrement and reset see the same counts) and the same failure mode: open, every window counts
 * the request as its first (it passes); closed, a 503.
 */
function createInOrderCounter(
  send: (args: string[]) => Promise<unknown>,
  windowPrefix: (name: string) => string,
  mode: RedisFailureMode,
  outage: Outage,
): NonNullable<RateLimitStoreFactory['countInOrder']> {
  let sha: Promise<string> | undefined;
  const load = () =>
    (sha ??= send(['SCRIPT', 'LOAD', COUNT_IN_ORDER]).then(
      (reply) => {
        if (typeof reply !== 'string') throw new TypeError('unexpected reply from Redis to SCRIPT LOAD');
        return reply;
      },
      (error: unknown) => {
        sha = undefined;
        throw error;
      },
    ));
  const count = async (key: string, windows: readonly WindowLimit[]): Promise<WindowHits[]> => {
    const keys = windows.map(({ name }) => `${windowPrefix(name)}${key}`);
    const args = windows.flatMap(({ ms, limit }) => [String(ms), String(limit)]);
    const run = async () => send(['EVALSHA', await load(), String(keys.length), ...keys, ...args]);
    let reply: unknown;
    try {
      reply = await run();
    } catch (error) {
      // Redis restarted (or flushed its scripts): load it again, once.
      if (!isNoScript(error)) throw error;
      sha = undefined;
      reply = await run();
    }
    if (!Array.isArray(reply) || reply.length === 0 || reply.length % 2 !== 0) throw new TypeError('unexpected reply from Redis to the rate-limit script');
    const now = Date.now();
    const counted: WindowHits[] = [];
    for (let i = 0; i < reply.length; i += 2) counted.push({ totalHits: Number(reply[i]), resetMs: now + Number(reply[i + 1]) });
    return counted;
  };
  return async (key, windows) => {
    try {
      const counted = await count(key, windows);
      outage.succeeded('rate-limit counters in Redis are reachable again');
      return counted;
    } catch (error) {
      outage.failed(error);
      if (mode === 'closed') throw new ServiceUnavailableError(STORE_FAILURE_MESSAGE, { cause: error });
      return windows.map(() => ({ totalHits: 1, resetMs: undefined }));
    }
  };
}

/** A Redis call's failure as the mode says (the outage logged): `passing` when open, a 503 when closed. */
function guardWith(mode: RedisFailureMode, outage: Outage): RedisGuard {
  return async (run, passing) => {
    try {
      const result = await run();
      outage.succeeded('rate-limit counters in Redis are reachable again');
      return result;
    } catch (error) {
      outage.failed(error);
      if (mode === 'closed') throw new ServiceUnavailableError(STORE_FAILURE_MESSAGE, { cause: error });
      return passing;
    }
  };
}

function newClient(url: string) {
  return createClient({
    url,
    // Commands fail at once while disconnected instead of queueing behind a dead connection.
    disableOfflineQueue: true,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Keep retrying forever (Redis may come back), with jitter so instances do not reconnect in step.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100),
    },
  });
}

/**
 * Connects to Redis and gives one counter store per window. If Redis is not reachable within
 * `startWaitMs`: fail-open starts anyway (limits apply once it connects), fail-closed refuses to
 * start with a ConfigError naming the setting.
 */
export async function connectRedisRateLimits(options: RedisRateLimitOptions): Promise<RedisRateLimits> {
  const { logger, onError } = options;
  const shown = describeRedisUrl(options.url);
  const client = newClient(options.url);
  const connection = createOutageLog(logger, `Redis at ${shown} is not reachable`);
  let lastError: unknown;
  let starting = true;
  // Without a listener, node-redis's 'error' events would crash the process. Start-up failures
  // are reported once, below, rather than once per connection attempt.
  client.on('error', (error: unknown) => {
    lastError = error;
    if (!starting) connection.failed(error);
  });
  client.on('ready', () => connection.succeeded(`connected to Redis at ${shown}`));

  const connected = client.connect().then(
    () => true,
    () => false,
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), options.startWaitMs ?? DEFAULT_START_WAIT_MS);
  });
  const ready = await Promise.race([connected, waited]);
  clearTimeout(timer);
  starting = false;
  if (!ready) {
    const reason = lastError === undefined ? 'no answer' : reasonOf(lastError);
    if (onError === 'closed') {
      client.destroy();
      throw new ConfigError(`${options.setting ?? 'REDIS_URL'}: cannot reach Redis at ${shown} (${reason}), and redis.onError is "closed"`);
    }
    logger.warn('starting without Redis: requests pass without rate limits until it is reachable (redis.onError is "open")', { redis: shown, reason });
    connection.failingQuietly();
  } else {
    logger.info('rate-limit counters in Redis', { redis: shown });
  }

  const prefix = options.prefix ?? 'tg:rl:';
  const storeFailures = createOutageLog(
    logger,
    onError === 'open' ? 'rate-limit counters unavailable: requests pass without limits' : 'rate-limit counters unavailable: requests are refused with 503',
  );
  const windowPrefix = (name: string) => `${prefix}${name}:`;
  const stores: RateLimitStoreFactory = (window) =>
    new GuardedRedisStore(new RedisStore({ prefix: windowPrefix(window.name), sendCommand: (...args: string[]) => client.sendCommand(args) }), onError, storeFailures);
  stores.countInOrder = createInOrderCounter((args) => client.sendCommand(args), windowPrefix, onError, storeFailures);
  stores.slidingLog = createRedisSlidingLogs((args) => client.sendCommand(args), windowPrefix, guardWith(onError, storeFailures));
  return {
    stores,
    async close() {
      if (client.isReady) await client.close().catch(() => client.destroy());
      else if (client.isOpen) client.destroy();
    },
  };
}
