// Turns an API key into a Client (key id and plan), for every surface; unknown or revoked keys are 401, and too many of them from one address 429.
import type { Config } from '../config.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { createAuthFailureLimiter } from '../plans/auth-failure-limiter.js';
import { planNamed, type Client } from '../plans/plan-rules.js';
import type { RateLimitStoreFactory } from '../plans/rate-limiters.js';
import type { Store } from '../store/store.js';
import type { ApiKeyRecord } from '../store/contract/records.js';
import type { Clock } from '../clock.js';
import { ResponseCache } from '../http/response-cache.js';
import { hashesEqual, hashKey, isWellFormedKey } from './key-secret.js';

export const UNKNOWN_KEY_MESSAGE = 'Unknown or revoked API key.';

/** The credentials a request presents, and who presents them. */
export interface PresentedKey {
  /** The client address its failures are counted for: `req.ip` (behind a trusted proxy, the forwarded one). */
  address: string | undefined;
  /** The key; a function when reading it can fail (malformed credentials throw a 401, which counts as a failure). */
  key: string | (() => string);
}

export type KeyAuthenticator = (presented: PresentedKey, headers?: Record<string, string>) => Promise<Client>;

export interface KeyAuthenticatorOptions {
  /** The counter stores the rate limits use (memory when absent): failed authentications are counted beside them. */
  counters?: RateLimitStoreFactory;
  /** Hears each failed authentication, and each request refused for too many (the metrics). */
  onFailure?: () => void;
  onRefused?: () => void;
}

/**
 * Resolves keys to clients for both surfaces. Key records are kept in memory until a key is revoked
 * anywhere (the store's keys version is re-read at most every `cache.versionCheckMs`), so a known
 * key costs one hash and a map read; unknown keys are never kept.
 *
 * Each failed authentication (a malformed, unknown or revoked key: a 401) counts for the client
 * address. An address that has made `auth.failuresPerMinute` of them this minute gets a 429 for
 * every key it presents until the minute ends, before the key is read, hashed or looked up: guessing
 * keys costs the server nothing more, and a valid key does not help a guesser through.
 */
export function createKeyAuthenticator(store: Store, config: Config, clock: Clock, options: KeyAuthenticatorOptions = {}): KeyAuthenticator {
  const rows = new ResponseCache<KeyRow>(() => store.keysVersion(), clock, config.cache);
  const failures = createAuthFailureLimiter({ perMinute: config.auth.failuresPerMinute, ...options });
  const findKeyByHash = (hash: string) => rows.get(hash, () => store.findKeyByHash(hash));
  return async (presented, headers) => {
    await failures.assertAllowed(presented.address);
    try {
      const key = typeof presented.key === 'string' ? presented.key : presented.key();
      return await authenticateKey(config, key, findKeyByHash, headers);
    } catch (error) {
      if (error instanceof UnauthorizedError) await failures.recordFailure(presented.address);
      throw error;
    }
  };
}

type KeyRow = ApiKeyRecord & { hash: string };

async function authenticateKey(
  config: Config,
  key: string,
  findKeyByHash: (hash: string) => Promise<KeyRow | undefined>,
  headers?: Record<string, string>,
): Promise<Client> {
  if (!isWellFormedKey(key)) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
  const hash = hashKey(key);
  const row = await findKeyByHash(hash);
  // The lookup is by hash; the constant-time comparison keeps the final check independent of the secret.
  if (!row || !hashesEqual(row.hash, hash) || row.revoked_at !== null) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
  const plan = planNamed(config, row.plan);
  if (!plan) throw new ForbiddenError(`This API key's plan "${row.plan}" is not offered by this server.`);
  return { keyId: row.id, planName: row.plan, plan };
}
