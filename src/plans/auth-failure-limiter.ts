// Failed authentications counted per client address (docs/interface.md section 7.3): past `auth.failuresPerMinute` in the last minute, a request that presents a key gets a 429 before its key is hashed or looked up.
import { ipKeyGenerator } from 'express-rate-limit';
import { RateLimitError } from '../errors.js';
import type { RateLimitStoreFactory } from './rate-limiters.js';
import { MemorySlidingLog, type SlidingLogStore, type SlidingWindow } from './sliding-log.js';
import { rememberBounded } from '../bounded-map.js';

/**
 * A sliding minute, not one aligned to the clock: with a fixed window an address could fail
 * `perMinute` times at the end of one minute and as many again at the start of the next, twice
 * the limit within a few seconds (docs/interface.md 7.3). The shared logs have a name of their own
 * (Redis keys `tg:rl:auth-failure-log:ip:...`).
 */
export const AUTH_FAILURE_WINDOW_MS = 60_000;
const authFailureWindow = (perMinute: number): SlidingWindow => ({ name: 'auth-failure-log', ms: AUTH_FAILURE_WINDOW_MS, keep: perMinute });

/** Refused addresses remembered in this process (an attacker's flood then costs no store round trip); more are forgotten. */
const MAX_REMEMBERED = 10_000;

export interface AuthFailureLimiter {
  /**
   * Rejects with a RateLimitError (429, `Retry-After`) when `address` has used up its failed
   * authentications of the last minute. Undefined, at once, when the address has not failed here in
   * the last minute (nothing to look up); else a promise, fulfilled when the address may go on.
   */
  assertAllowed(address: string | undefined): Promise<void> | undefined;
  /** Counts one failed authentication (a malformed, unknown or revoked key) for `address`. */
  recordFailure(address: string | undefined): Promise<void>;
}

export interface AuthFailureLimiterOptions {
  /** `auth.failuresPerMinute`. */
  perMinute: number;
  /** The counters: the rate limits' factory, whose `slidingLog` a cluster or Redis shares (memory when absent). */
  counters?: RateLimitStoreFactory;
  /** Hears each failure counted, and each request refused (the metrics). */
  onFailure?: () => void;
  onRefused?: () => void;
  now?: () => number;
}

/** Counted per address as the anonymous rate limits are: IPv6 grouped by /56, so that one host cannot rotate through its prefix. */
const counterKey = (address: string | undefined) => `ip:${ipKeyGenerator(address ?? '0.0.0.0')}`;

export function createAuthFailureLimiter(options: AuthFailureLimiterOptions): AuthFailureLimiter {
  const { perMinute } = options;
  const now = options.now ?? Date.now;
  const window = authFailureWindow(perMinute);
  // The latest perMinute failures of an address are all a limit of perMinute needs.
  const log: SlidingLogStore = options.counters?.slidingLog?.(window) ?? new MemorySlidingLog(window, now);
  /** Refused addresses until their oldest failure counted leaves the window: the count cannot fall before then. */
  const refusedUntil = new Map<string, number>();
  /**
   * Addresses that failed here in the last minute, until a minute after their latest failure here.
   * Only they are looked up in the shared logs: a client that never failed costs no read per request
   * (a round trip under `--workers` or Redis). An address failing on other processes only is refused
   * here from its first failure here on: at most one more failure per process and minute.
   */
  const failedUntil = new Map<string, number>();
  const remember = (map: Map<string, number>, key: string, until: number) => rememberBounded(map, MAX_REMEMBERED, key, until);

  const refuse = (until: number) => {
    options.onRefused?.();
    return new RateLimitError(
      `Too many failed authentications from this address: ${perMinute} a minute. Check the API key; the address may present one again after Retry-After seconds.`,
      (until - now()) / 1000,
    );
  };

  return {
    assertAllowed(address) {
      // No address has failed here in the last minute (the usual case): nothing to look up.
      if (refusedUntil.size === 0 && failedUntil.size === 0) return undefined;
      const key = counterKey(address);
      const remembered = refusedUntil.get(key);
      if (remembered !== undefined) {
        if (remembered > now()) return Promise.reject(refuse(remembered));
        refusedUntil.delete(key);
      }
      const failed = failedUntil.get(key);
      if (failed === undefined) return undefined;
      if (failed <= now()) {
        failedUntil.delete(key);
        return undefined;
      }
      return (async () => {
        const { count, oldestLeavesInMs } = await log.count(key);
        if (count < perMinute) return;
        // The latest perMinute failures are kept: once the oldest of them is a minute old, one more may come.
        const until = now() + oldestLeavesInMs;
        remember(refusedUntil, key, until);
        throw refuse(until);
      })();
    },
    async recordFailure(address) {
      options.onFailure?.();
      const key = counterKey(address);
      remember(failedUntil, key, now() + window.ms);
      await log.add(key);
    },
  };
}
