// The admission every keyed surface starts with: the client from its key, then the plan's rate limits.
import type { Request, Response } from 'express';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import type { Client } from './plan-rules.js';
import type { LimitHeaderTarget, RateLimiter } from './rate-limiters.js';
import { setClient } from './request-client.js';

/** Admits one request: its client, kept on the response for what follows, once its request is counted. */
export type ClientAdmission = (req: Request, res: Response, headers: LimitHeaderTarget) => MaybePromise<Client>;

/**
 * The client `clientOf` finds for the request (401; 429 for too many failed authentications), kept
 * on the response (request-client.ts), then the request counted in the client's windows (429), their
 * headers set on `headers`. At once (no promise) when the key's record and the counters are in
 * memory: an error is then thrown, else the promise rejects with it. `beforeCount` reads what the
 * surface reads of the request with its key (TAXII's `accept` parameter), so that a request it
 * refuses is not counted.
 */
export function createClientAdmission(clientOf: (req: Request) => MaybePromise<Client>, rateLimit: RateLimiter, beforeCount?: (req: Request, res: Response) => void): ClientAdmission {
  return (req, res, headers) =>
    andThen(clientOf(req), (client) => {
      setClient(res, client);
      beforeCount?.(req, res);
      return andThen(rateLimit.count(client, req.ip, headers), () => client);
    });
}
