// Failed authentications counted per client address (issue 26): past `auth.failuresPerMinute`, a request that presents a key gets a 429 before its key is hashed or looked up.
import { ipKeyGenerator, type Options, type Store as RateLimitStore } from 'express-rate-limit';
import { RateLimitError } from '../errors.js';
import { FixedWindowStore } from './fixed-window-store.js';
import type { CounterWindow, RateLimitStoreFactory } from './rate-limiters.js';
import { rememberBounded } from '../bounded-map.js';

/** One window of a minute, aligned to the epoch as the plans' windows are; its own counters in a shared store. */
export const AUTH_FAILURE_WINDOW: CounterWindow = { name: 'auth-failures', ms: 60_000 };

/** Refused addresses remembered in this process (an attacker's flood then costs no store round trip); more are forgotten. */
const MAX_REMEMBERED = 10_000;

export interface AuthFailureLimiter {
  /**
   * Rejects with a RateLimitError (429, `Retry-After`) when `address` has used up its failed
   * authentications of this minute. Undefined, at once, when the address has not failed here this
   * window (nothing to look up); else a promise, fulfilled when the address may go on.
   */
  assertAllowed(address: string | undefined): Promise<void> | undefined;
  /** Counts one failed authentication (a malformed, unknown or revoked key) for `address`. */
  recordFailure(address: string | undefined): Promise<void>;
}

export interface AuthFailureLimiterOptions {
  /** `auth.failuresPerMinute`. */
  perMinute: number;
  /** The counters: the rate limits' factory, so that a cluster or Redis shares them (memory when absent). */
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
  const store: RateLimitStore = options.counters?.(AUTH_FAILURE_WINDOW) ?? new FixedWindowStore(now);
  // The stores read only windowMs from express-rate-limit's options (the Redis store the expiry of its keys).
  store.init?.({ windowMs: AUTH_FAILURE_WINDOW.ms } as Options);
  /** Refused addresses until the end of their window: the count cannot fall before then. */
  const refusedUntil = new Map<string, number>();
  /**
   * Addresses that failed here this window, until its end. Only they are looked up in the shared
   * store: a client that never failed costs no counter read per request (a round trip under
   * `--workers` or Redis). An address failing on other processes only is refused here from its first
   * failure here on: at most one more failure per process and window.
   */
  const failedUntil = new Map<string, number>();
  const windowEnd = () => now() - (now() % AUTH_FAILURE_WINDOW.ms) + AUTH_FAILURE_WINDOW.ms;
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
      // No address has failed here this window (the usual case): nothing to look up.
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
        const info = await store.get?.(key);
        // rate-limit-redis reads a key that does not exist as NaN hits: only a count at the limit refuses.
        if (info === undefined || !(info.totalHits >= perMinute)) return;
        const until = info.resetTime?.getTime() ?? windowEnd();
        remember(refusedUntil, key, until);
        throw refuse(until);
      })();
    },
    async recordFailure(address) {
      options.onFailure?.();
      const key = counterKey(address);
      remember(failedUntil, key, windowEnd());
      await store.increment(key);
    },
  };
}
