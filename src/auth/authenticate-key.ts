// Turns an API key into a Client (key id and plan) for the plan surfaces, or an admin key for the admin surface;
// unknown or revoked keys are 401, too many of them from one address 429, a key at the wrong surface 403.
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

/** The admin key a request to the admin surface presents: its id (for the log), never the secret. */
export interface AdminKey {
  keyId: string;
  label: string | null;
}

export type AdminAuthenticator = (presented: PresentedKey, headers?: Record<string, string>) => Promise<AdminKey>;

export const ADMIN_KEY_REFUSED = 'This is an admin key: it opens only /admin/api/ and the console, not the lookup API, TAXII or the exports.';
export const PLAN_KEY_REFUSED = 'This API key has a plan; /admin/api/ opens only with an admin key (threatgate keys create --admin).';

/**
 * Resolves keys for every surface. Key records are kept in memory until a key is revoked anywhere
 * (the store's keys version is re-read at most every `cache.versionCheckMs`), so a known key costs
 * one hash and a map read; unknown keys are never kept.
 *
 * Each failed authentication (a malformed, unknown or revoked key: a 401) counts for the client
 * address. An address that has made `auth.failuresPerMinute` of them this minute gets a 429 for
 * every key it presents until the minute ends, before the key is read, hashed or looked up: guessing
 * keys costs the server nothing more, and a valid key does not help a guesser through.
 *
 * The plan surfaces (lookup API, TAXII, exports) and the admin surface share the one cache and the
 * one count of failures, so a guesser gains no second allowance by turning to the admin surface. A
 * valid key at the wrong surface is a 403, no failure: it was not guessed.
 */
export function createKeyAuthenticators(
  store: Store,
  config: Config,
  clock: Clock,
  options: KeyAuthenticatorOptions = {},
): { forPlans: KeyAuthenticator; forAdmin: AdminAuthenticator } {
  const resolve = createKeyResolver(store, config, clock, options);
  return {
    async forPlans(presented, headers) {
      const row = await resolve(presented, headers);
      if (row.admin) throw new ForbiddenError(ADMIN_KEY_REFUSED);
      const plan = planNamed(config, row.plan);
      if (!plan) throw new ForbiddenError(`This API key's plan "${row.plan}" is not offered by this server.`);
      return { keyId: row.id, planName: row.plan, plan };
    },
    async forAdmin(presented, headers) {
      const row = await resolve(presented, headers);
      if (!row.admin) throw new ForbiddenError(PLAN_KEY_REFUSED);
      return { keyId: row.id, label: row.label };
    },
  };
}

/** The plan surfaces' authenticator alone (its own cache and failure count): for a caller that serves no admin surface. */
export function createKeyAuthenticator(store: Store, config: Config, clock: Clock, options: KeyAuthenticatorOptions = {}): KeyAuthenticator {
  return createKeyAuthenticators(store, config, clock, options).forPlans;
}

type KeyRow = ApiKeyRecord & { hash: string };

/** The active key record a presented key names, or a 401 counted as a failure (a 429 once too many). */
function createKeyResolver(store: Store, config: Config, clock: Clock, options: KeyAuthenticatorOptions): (presented: PresentedKey, headers?: Record<string, string>) => Promise<KeyRow> {
  const rows = new ResponseCache<KeyRow>(() => store.keysVersion(), clock, config.cache);
  const failures = createAuthFailureLimiter({ perMinute: config.auth.failuresPerMinute, ...options });
  // A known key's row at once (no promise to wait for), else read through the cache.
  const findKeyByHash = (hash: string) => rows.peek(hash) ?? rows.get(hash, () => store.findKeyByHash(hash));
  return async (presented, headers) => {
    await failures.assertAllowed(presented.address);
    try {
      const key = typeof presented.key === 'string' ? presented.key : presented.key();
      return await activeKeyRow(key, findKeyByHash, headers);
    } catch (error) {
      if (error instanceof UnauthorizedError) await failures.recordFailure(presented.address);
      throw error;
    }
  };
}

async function activeKeyRow(key: string, findKeyByHash: (hash: string) => KeyRow | Promise<KeyRow | undefined>, headers?: Record<string, string>): Promise<KeyRow> {
  if (!isWellFormedKey(key)) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
  const hash = hashKey(key);
  const found = findKeyByHash(hash);
  const row = found instanceof Promise ? await found : found;
  // The lookup is by hash; the constant-time comparison keeps the final check independent of the secret.
  if (!row || !hashesEqual(row.hash, hash) || row.revoked_at !== null) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
  return row;
}
