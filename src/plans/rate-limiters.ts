// Per-plan rate limits over three windows (second, day, month), keyed by API key or client IP.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitInfo, type Store as RateLimitStore } from 'express-rate-limit';
import type { Plan } from '../config.js';
import { RateLimitError } from '../errors.js';
import { FixedWindowStore } from './fixed-window-store.js';
import type { Client } from './plan-rules.js';
import { getClient } from './request-client.js';

const DAY_MS = 86_400_000;

export const RATE_WINDOWS = [
  { name: 'second', label: 'per second', ms: 1000, limitOf: (p: Plan) => p.perSecond, header: 'X-Requests-Remaining-Second' },
  { name: 'day', label: 'per day', ms: DAY_MS, limitOf: (p: Plan) => p.perDay, header: 'X-Requests-Remaining-Day' },
  { name: 'month', label: 'per month (30 days)', ms: 30 * DAY_MS, limitOf: (p: Plan) => p.perMonth, header: 'X-Requests-Remaining-Month' },
] as const;

export type RateWindow = (typeof RATE_WINDOWS)[number];

/** A set of counters over fixed windows: a plan's window, or the failed authentications' (auth-failure-limiter.ts). */
export interface CounterWindow {
  /** Names the counters apart in a shared store (a Redis key prefix, the cluster primary's store). */
  readonly name: string;
  readonly ms: number;
}

/** Gives each window its counter store (in-process when undefined; the cluster primary's, or Redis, when shared). */
export type RateLimitStoreFactory = (window: CounterWindow) => RateLimitStore | undefined;

/** Counters are per key id, or per client address (IPv6 grouped by /56) without a key. */
function counterKey(req: Request, res: Response): string {
  const client = getClient(res);
  return client.keyId ? `key:${client.keyId}` : `ip:${ipKeyGenerator(req.ip ?? '0.0.0.0')}`;
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
      if (known.size >= 10_000) known.clear();
      value = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
      known.set(key, value);
    }
    return value;
  };
}

/**
 * One middleware for the three windows, in order: each is an express-rate-limit limiter (counting,
 * limits, and the 429 through our handler). The headers are written here in one pass, in
 * express-rate-limit's draft-8 format (`RateLimit` and `RateLimit-Policy`, one line per window) and
 * with an `X-Requests-Remaining-*` header per window; on a 429, for the windows counted so far.
 */
export function createRateLimiter(
  storeFor: RateLimitStoreFactory = () => undefined,
  /** Hears each 429: the client's plan and the window whose limit it reached (the metrics). */
  onLimited?: (plan: string, window: RateWindow['name']) => void,
): RequestHandler {
  const partitionKey = partitionKeys();
  const infoOf = (req: Request, window: RateWindow) => (req as unknown as Record<string, RateLimitInfo | undefined>)[`rateLimit_${window.name}`];

  const setHeaders = (req: Request, res: Response, windows: number) => {
    const lines: string[] = [];
    const policies: string[] = [];
    const remaining: [string, string][] = [];
    for (const window of RATE_WINDOWS.slice(0, windows)) {
      const info = infoOf(req, window);
      if (!info) continue;
      const windowSeconds = Math.ceil(window.ms / 1000);
      const reset = info.resetTime ? Math.max(0, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
      lines.push(`"${window.name}"; r=${info.remaining}; t=${reset}`);
      policies.push(`"${window.name}"; q=${info.limit}; w=${windowSeconds}; pk=:${partitionKey(info.key)}:`);
      remaining.push([window.header, String(info.remaining)]);
    }
    if (lines.length === 0 || res.headersSent) return;
    res.setHeader('RateLimit', lines);
    res.setHeader('RateLimit-Policy', policies);
    for (const [header, value] of remaining) res.setHeader(header, value);
  };

  const limiters = RATE_WINDOWS.map((window, index) =>
    rateLimit({
      windowMs: window.ms,
      limit: (_req, res) => window.limitOf(getClient(res).plan),
      standardHeaders: false,
      legacyHeaders: false,
      requestPropertyName: `rateLimit_${window.name}`,
      keyGenerator: counterKey,
      store: storeFor(window) ?? new FixedWindowStore(),
      // Store failures are decided by the store wrapper (fail open or closed), not here.
      passOnStoreError: false,
      handler: (req, res, next) => {
        const info = infoOf(req, window);
        onLimited?.(getClient(res).planName, window.name);
        setHeaders(req, res, index + 1);
        const retryAfter = info?.resetTime ? (info.resetTime.getTime() - Date.now()) / 1000 : window.ms / 1000;
        next(new RateLimitError(describe(getClient(res), window), retryAfter));
      },
    }),
  );

  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown) => {
      if (error !== undefined) return next(error);
      const limiter = limiters[index++];
      if (limiter) return void limiter(req, res, step);
      setHeaders(req, res, limiters.length);
      next();
    };
    step();
  };
}
