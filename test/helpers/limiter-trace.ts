// What a rate limiter answers a client's burst of requests: for comparing limiters over different counter stores.
import assert from 'node:assert/strict';
import type { Plan } from '../../src/config.js';
import { RateLimitError } from '../../src/errors.js';
import type { Client } from '../../src/plans/plan-rules.js';
import type { RateLimiter } from '../../src/plans/rate-limiters.js';

/** A key on a plan of 3 a second and 2 a day: the 3rd request passes the day's limit, the 4th on the second's. */
export const BURST_CLIENT: Client = { keyId: 'k1', planName: 'pro', plan: { perSecond: 3, perDay: 2, perMonth: 1000 } as Plan };

/**
 * `count` of `requests` requests in a row, begun in the first half of a second (so that all fall in
 * one second's window): each one's headers, and the window named by its 429 when refused. Seconds
 * to a window's end are left out, so that bursts in different seconds compare equal.
 */
export async function limiterTrace(limiter: RateLimiter, client: Client = BURST_CLIENT, requests = 7): Promise<{ headers: Record<string, unknown>; refused?: string }[]> {
  while (Date.now() % 1000 > 500) await new Promise((resolve) => setTimeout(resolve, 20));
  const seen: { headers: Record<string, unknown>; refused?: string }[] = [];
  for (let i = 0; i < requests; i++) {
    const headers: Record<string, unknown> = {};
    const target = { headersSent: false, setHeader: (name: string, value: unknown) => void (headers[name] = value) };
    try {
      await limiter.count(client, '192.0.2.1', target);
      seen.push({ headers });
    } catch (error) {
      assert.ok(error instanceof RateLimitError, String(error));
      seen.push({ headers, refused: error.message.replace(/.* (per \w+).*/, '$1') });
    }
  }
  return JSON.parse(JSON.stringify(seen).replace(/t=\d+/g, 't=T')) as typeof seen;
}

/** BURST_CLIENT's seven requests: the 3rd refused by the day (the second counted first), the 4th to 7th by the second (the day no longer counted). */
export const BURST_REFUSALS = [undefined, undefined, 'per day', 'per second', 'per second', 'per second', 'per second'];
