// Per-plan rate limits over three windows (second, day, month), keyed by API key or client IP.
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { ipKeyGenerator, type Options, type Store as RateLimitStore } from 'express-rate-limit';
import type { Plan } from '../config.js';
import { RateLimitError } from '../errors.js';
import { FixedWindowStore } from './fixed-window-store.js';
import type { Client } from './plan-rules.js';
import { getClient } from './request-client.js';
import type { SlidingLogStore, SlidingWindow } from './sliding-log.js';
import { rememberBounded } from '../bounded-map.js';

const DAY_MS = 86_400_000;

export const RATE_WINDOWS = [
  { name: 'second', label: 'per second', ms: 1000, limitOf: (p: Plan) => p.perSecond, header: 'X-Requests-Remaining-Second' },
  { name: 'day', label: 'per day', ms: DAY_MS, limitOf: (p: Plan) => p.perDay, header: 'X-Requests-Remaining-Day' },
  { name: 'month', label: 'per month (30 days)', ms: 30 * DAY_MS, limitOf: (p: Plan) => p.perMonth, header: 'X-Requests-Remaining-Month' },
] as const;

export type RateWindow = (typeof RATE_WINDOWS)[number];

/** A set of counters over fixed windows: a plan's window. */
export interface CounterWindow {
  /** Names the counters apart in a shared store (a Redis key prefix, the cluster primary's store). */
  readonly name: string;
  readonly ms: number;
}

/** A window to count in, with the limit past which counting stops (countInOrder). */
export interface WindowLimit {
  readonly name: string;
  readonly ms: number;
  readonly limit: number;
}

/** One window's count from countInOrder: the hits, and when the window ends (ms since the epoch). */
export interface WindowHits {
  totalHits: number;
  resetMs: number | undefined;
}

/**
 * Gives each window its counter store (in-process when undefined; the cluster primary's, or Redis,
 * when shared). A factory whose counters are elsewhere may also count a key in several windows in
 * one exchange (`countInOrder`): in order, and stopping after the first window whose count passes
 * its limit (that count included), as counting them one at a time would.
 */
export type RateLimitStoreFactory = ((window: CounterWindow) => RateLimitStore | undefined) & {
  countInOrder?: (key: string, windows: readonly WindowLimit[]) => Promise<WindowHits[]>;
  /** The logs of a sliding window (the failed authentications', auth-failure-limiter.ts), where the counters are. */
  slidingLog?: (window: SlidingWindow) => SlidingLogStore;
};

/** Counter keys of key ids seen lately: the same string for a client's every request, whose hash the counters' maps keep. */
const keyCounterKeys = new Map<string, string>();

/** Counters are per key id, or per client address (IPv6 grouped by /56) without a key. */
function counterKey(client: Client, address: string | undefined): string {
  if (!client.keyId) return `ip:${ipKeyGenerator(address ?? '0.0.0.0')}`;
  let key = keyCounterKeys.get(client.keyId);
  if (key === undefined) {
    key = `key:${client.keyId}`;
    rememberBounded(keyCounterKeys, 10_000, client.keyId, key);
  }
  return key;
}

function describe(client: Client, window: RateWindow): string {
  const limit = window.limitOf(client.plan);
  const who = client.keyId ? `the ${client.planName} plan` : 'requests without an API key';
  return `API rate limit exceeded: ${limit} request${limit === 1 ? '' : 's'} ${window.label} for ${who}.`;
}

/**
 * The draft-8 partition key, as express-rate-limit writes it: the first 12 hex digits of the
 * counter key's SHA-256, in base64. Remembered, so that a busy client costs no hash per request.
 */
function partitionKeys(): (key: string) => string {
  const known = new Map<string, string>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) {
      value = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
      rememberBounded(known, 10_000, key, value);
    }
    return value;
  };
}

/** Whether `counts` counted windows of these limits, in this order. */
function sameLimits(limits: readonly number[], counts: readonly WindowCount[]): boolean {
  if (limits.length !== counts.length) return false;
  for (let i = 0; i < limits.length; i++) if (limits[i] !== counts[i]!.limit) return false;
  return true;
}

/** One window's count for a request, as express-rate-limit's RateLimitInfo has it. */
interface WindowCount {
  window: RateWindow;
  limit: number;
  remaining: number;
  /** When the window ends, ms since the epoch (unknown to some stores). */
  resetMs: number | undefined;
  key: string;
}

/** Where the limit headers go: a response (node's setHeader takes a list for a header of several lines). */
export interface LimitHeaderTarget {
  setHeader(name: string, value: string | string[]): unknown;
  readonly headersSent: boolean;
}

export interface RateLimiter {
  /**
   * Counts one request of `client` (keyed by `address` without a key) in each window in turn and
   * writes the headers of the windows counted on `res`. A window whose count passes its limit ends
   * it there with a RateLimitError (429, Retry-After): the later windows are not counted. At once
   * when every window's counters are in this process (a 429 thrown), else a promise (a 429 rejected).
   */
  count(client: Client, address: string | undefined, res: LimitHeaderTarget): void | Promise<void>;
  /** The same for a request past authentication (its client on the response, its address `req.ip`), as middleware. */
  middleware: RequestHandler;
}

/**
 * The three windows of a plan, each counted in its own store (express-rate-limit's Store interface:
 * in memory, at the cluster primary or in Redis), as express-rate-limit's middleware counted them
 * before: the count is the store's, a request over the limit is one whose count exceeds it, and a
 * store's failure is the caller's error (the store wrapper decides to fail open or closed). The
 * headers are written in one pass, in express-rate-limit's draft-8 format (`RateLimit` and
 * `RateLimit-Policy`, one line per window) and with an `X-Requests-Remaining-*` header per window;
 * on a 429, for the windows counted so far. One function for the app's middleware and the fast path
 * (http/fast-path.ts) alike, so that neither can count differently.
 */
export function createRateLimiter(
  storeFor: RateLimitStoreFactory = () => undefined,
  /** Hears each 429: the client's plan and the window whose limit it reached (the metrics). */
  onLimited?: (plan: string, window: RateWindow['name']) => void,
): RateLimiter {
  const partitionKey = partitionKeys();
  const windows = RATE_WINDOWS.map((window) => {
    const store: RateLimitStore = storeFor(window) ?? new FixedWindowStore();
    // The stores read only windowMs from express-rate-limit's options (the Redis store the expiry of its keys).
    void store.init?.({ windowMs: window.ms } as Options);
    // Counters in this process are counted at once; shared ones (the cluster primary, Redis) are asked.
    const now = store instanceof FixedWindowStore ? (key: string) => store.incrementNow(key) : undefined;
    return { window, store, now };
  });
  const counted = async (store: RateLimitStore, key: string) => {
    const { totalHits, resetTime } = await store.increment(key);
    return { totalHits, resetMs: resetTime?.getTime() };
  };

  /**
   * The `RateLimit-Policy` lines of a client's counted windows: the same on every response while its
   * limits stay the same, so made once per counter key (and made again should its limits change).
   * The list is shared by the responses that send it, and never changed.
   */
  const policies = new Map<string, { limits: number[]; lines: readonly string[] }>();
  const policiesOf = (counts: readonly WindowCount[]): string[] => {
    const key = counts[0]!.key;
    let kept = policies.get(key);
    if (kept === undefined || !sameLimits(kept.limits, counts)) {
      const lines = counts.map(({ window, limit }) => `"${window.name}"; q=${limit}; w=${Math.ceil(window.ms / 1000)}; pk=:${partitionKey(key)}:`);
      kept = { limits: counts.map(({ limit }) => limit), lines };
      rememberBounded(policies, 10_000, key, kept);
    }
    return kept.lines as string[];
  };

  const setHeaders = (res: LimitHeaderTarget, counts: readonly WindowCount[]) => {
    if (counts.length === 0 || res.headersSent) return;
    const lines: string[] = [];
    const remainders: string[] = [];
    const now = Date.now();
    for (const { window, remaining, resetMs } of counts) {
      const reset = resetMs !== undefined ? Math.max(0, Math.ceil((resetMs - now) / 1000)) : Math.ceil(window.ms / 1000);
      const left = String(remaining);
      remainders.push(left);
      lines.push(`"${window.name}"; r=${left}; t=${reset}`);
    }
    res.setHeader('RateLimit', lines);
    res.setHeader('RateLimit-Policy', policiesOf(counts));
    for (let i = 0; i < counts.length; i++) res.setHeader(counts[i]!.window.header, remainders[i]!);
  };

  /** Adds one window's count; past the limit, the headers of the windows counted so far and a 429. */
  const tally = (counts: WindowCount[], client: Client, key: string, window: RateWindow, totalHits: number, resetMs: number | undefined, res: LimitHeaderTarget) => {
    const limit = window.limitOf(client.plan);
    counts.push({ window, limit, remaining: Math.max(limit - totalHits, 0), resetMs, key });
    if (totalHits > limit) {
      onLimited?.(client.planName, window.name);
      setHeaders(res, counts);
      const retryAfter = resetMs !== undefined ? (resetMs - Date.now()) / 1000 : window.ms / 1000;
      throw new RateLimitError(describe(client, window), retryAfter);
    }
  };
  const inProcess = windows.every(({ now }) => now !== undefined);
  // Every window's counters elsewhere, in a store that counts them all in one exchange: one round trip a request, not three.
  const inOrder = windows.every(({ now }) => now === undefined) ? storeFor.countInOrder : undefined;

  const count = (client: Client, address: string | undefined, res: LimitHeaderTarget): void | Promise<void> => {
    const key = counterKey(client, address);
    const counts: WindowCount[] = [];
    if (!inProcess) return countShared(client, key, counts, res);
    for (const { window, now } of windows) {
      const { totalHits, resetMs } = now!(key);
      tally(counts, client, key, window, totalHits, resetMs, res);
    }
    setHeaders(res, counts);
  };
  const countShared = async (client: Client, key: string, counts: WindowCount[], res: LimitHeaderTarget) => {
    if (inOrder) {
      const found = await inOrder(key, windows.map(({ window }) => ({ name: window.name, ms: window.ms, limit: window.limitOf(client.plan) })));
      if (found.length === 0 || found.length > windows.length) throw new Error('rate-limit counters: an answer that counted no window, or too many');
      // The count that passed its limit (the last one given, when any did) throws its 429 here.
      for (let i = 0; i < found.length; i++) tally(counts, client, key, windows[i]!.window, found[i]!.totalHits, found[i]!.resetMs, res);
      if (found.length < windows.length) throw new Error('rate-limit counters: an answer that stopped before a window past its limit');
      setHeaders(res, counts);
      return;
    }
    for (const { window, store, now } of windows) {
      const { totalHits, resetMs } = now ? now(key) : await counted(store, key);
      tally(counts, client, key, window, totalHits, resetMs, res);
    }
    setHeaders(res, counts);
  };

  return {
    count,
    middleware: async (req, res, next) => {
      await count(getClient(res), req.ip, res);
      next();
    },
  };
}
