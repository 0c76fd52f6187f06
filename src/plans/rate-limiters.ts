// Per-plan rate limits over three windows (second, day, month), keyed by API key or client IP.
import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type RateLimitInfo, type Store as RateLimitStore } from 'express-rate-limit';
import type { Plan } from '../config.js';
import { RateLimitError } from '../errors.js';
import { FixedWindowStore } from './fixed-window-store.js';
import type { Client } from './plan-rules.js';

const DAY_MS = 86_400_000;

export const RATE_WINDOWS = [
  { name: 'second', label: 'per second', ms: 1000, limitOf: (p: Plan) => p.perSecond, header: 'X-Requests-Remaining-Second' },
  { name: 'day', label: 'per day', ms: DAY_MS, limitOf: (p: Plan) => p.perDay, header: 'X-Requests-Remaining-Day' },
  { name: 'month', label: 'per month (30 days)', ms: 30 * DAY_MS, limitOf: (p: Plan) => p.perMonth, header: 'X-Requests-Remaining-Month' },
] as const;

export type RateWindow = (typeof RATE_WINDOWS)[number];

/** Gives each window its counter store (in-process when undefined; Redis when shared). */
export type RateLimitStoreFactory = (window: RateWindow) => RateLimitStore | undefined;

function clientOf(res: Response): Client {
  const client = res.locals.client as Client | undefined;
  if (!client) throw new Error('rate limiter mounted before the client was resolved');
  return client;
}

/** Counters are per key id, or per client address (IPv6 grouped by /56) without a key. */
function counterKey(req: Request, res: Response): string {
  const client = clientOf(res);
  return client.keyId ? `key:${client.keyId}` : `ip:${ipKeyGenerator(req.ip ?? '0.0.0.0')}`;
}

function describe(client: Client, window: RateWindow): string {
  const limit = window.limitOf(client.plan);
  const who = client.keyId ? `the ${client.planName} plan` : 'requests without an API key';
  return `API rate limit exceeded: ${limit} request${limit === 1 ? '' : 's'} ${window.label} for ${who}.`;
}

/** Middleware for every window; each sets the draft-8 RateLimit headers and its X-Requests-Remaining header. */
export function createRateLimiters(storeFor: RateLimitStoreFactory = () => undefined): RequestHandler[] {
  return RATE_WINDOWS.flatMap((window) => {
    const property = `rateLimit_${window.name}`;
    const store = storeFor(window) ?? new FixedWindowStore();
    const limiter = rateLimit({
      windowMs: window.ms,
      limit: (_req, res) => window.limitOf(clientOf(res).plan),
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier: window.name,
      requestPropertyName: property,
      keyGenerator: counterKey,
      store,
      // Store failures are decided by the store wrapper (fail open or closed), not here.
      passOnStoreError: false,
      handler: (req, res, next) => {
        const info = (req as unknown as Record<string, RateLimitInfo>)[property];
        res.setHeader(window.header, '0');
        const retryAfter = info?.resetTime ? (info.resetTime.getTime() - Date.now()) / 1000 : window.ms / 1000;
        next(new RateLimitError(describe(clientOf(res), window), retryAfter));
      },
    });
    const remaining: RequestHandler = (req, res, next) => {
      const info = (req as unknown as Record<string, RateLimitInfo | undefined>)[property];
      if (info) res.setHeader(window.header, String(info.remaining));
      next();
    };
    return [limiter, remaining];
  });
}
