// Turns an API key into a Client (key id and plan) for the plan surfaces, or an admin key for the admin surface;
// unknown or revoked keys are 401, too many of them from one address 429, a key at the wrong surface 403.
import type { Config } from '../config.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { createAuthFailureLimiter } from '../plans/auth-failure-limiter.js';
import { planNamed, type Client } from '../plans/plan-rules.js';
import type { RateLimitStoreFactory } from '../plans/rate-limiters.js';
import type { Store } from '../store/contract/store.js';
import type { ApiKeyRecord } from '../store/contract/records.js';
import type { Clock } from '../clock.js';
import { ResponseCache } from '../http/response-cache.js';
import { andThen, type MaybePromise } from '../maybe-promise.js';
import { hashesEqual, hashKey, isWellFormedKey } from './key-secret.js';
import { rememberBounded } from '../bounded-map.js';

export const UNKNOWN_KEY_MESSAGE = 'Unknown or revoked API key.';

/** The credentials a request presents, and who presents them. */
export interface PresentedKey {
  /** The client address its failures are counted for: `req.ip` (behind a trusted proxy, the forwarded one). */
  address: string | undefined;
  /** The key; a function when reading it can fail (malformed credentials throw a 401, which counts as a failure). */
  key: string | (() => string);
}

/** The client a key names: at once when its record is in memory, else a promise; a refusal is always a rejected promise. */
export type KeyAuthenticator = (presented: PresentedKey, headers?: Record<string, string>) => MaybePromise<Client>;

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

export type AdminAuthenticator = (presented: PresentedKey, headers?: Record<string, string>) => MaybePromise<AdminKey>;

export const ADMIN_KEY_REFUSED = 'This is an admin key: it opens only /admin/api/ and the console, not the lookup API, TAXII or the exports.';
export const PLAN_KEY_REFUSED = 'This API key has a plan; /admin/api/ opens only with an admin key (threatgate keys create --admin).';

/**
 * Resolves keys for every surface. Key records are kept in memory until a key is revoked anywhere
 * (the store's keys version is re-read at most every `cache.versionCheckMs`), so a known key costs
 * two map reads (its hash, then its record) and no promise; unknown keys are never kept.
 *
 * Each failed authentication (a malformed, unknown or revoked key: a 401) counts for the client
 * address. An address that has made `auth.failuresPerMinute` of them within the last minute gets a
 * 429 for every key it presents until the oldest is a minute old, before the key is read, hashed or
 * looked up: guessing keys costs the server nothing more, and a valid key does not help a guesser through.
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
    forPlans: (presented, headers) =>
      refusing(() =>
        andThen(resolve(presented, headers), (row) => {
          if (row.admin) throw new ForbiddenError(ADMIN_KEY_REFUSED);
          const plan = planNamed(config, row.plan);
          if (!plan) throw new ForbiddenError(`This API key's plan "${row.plan}" is not offered by this server.`);
          return { keyId: row.id, planName: row.plan, plan };
        }),
      ),
    forAdmin: (presented, headers) =>
      refusing(() =>
        andThen(resolve(presented, headers), (row) => {
          if (!row.admin) throw new ForbiddenError(PLAN_KEY_REFUSED);
          return { keyId: row.id, label: row.label };
        }),
      ),
  };
}

/** `run`'s result, with a throw turned into a rejected promise: an authenticator refuses only that way. */
function refusing<T>(run: () => MaybePromise<T>): MaybePromise<T> {
  try {
    return run();
  } catch (error) {
    return Promise.reject(error);
  }
}

type KeyRow = ApiKeyRecord & { hash: string };

/** Keys remembered with their hashes, at most (then forgotten all at once). */
const MAX_KNOWN_HASHES = 1_000;

/**
 * The active key record a presented key names, or a 401 counted as a failure (a 429 once too many).
 * At once (no promise) when no failure of the address needs looking up and the record is in memory;
 * a refusal is a rejected promise, after its failure is counted.
 */
function createKeyResolver(store: Store, config: Config, clock: Clock, options: KeyAuthenticatorOptions): (presented: PresentedKey, headers?: Record<string, string>) => MaybePromise<KeyRow> {
  const rows = new ResponseCache<KeyRow>(() => store.keysVersion(), clock, config.cache);
  const failures = createAuthFailureLimiter({ perMinute: config.auth.failuresPerMinute, ...options });
  /**
   * The SHA-256 of keys that named a key record lately, so that a client's every request does not
   * hash its key again. Only keys that were found are kept (guesses cannot crowd them out); a
   * revoked key's hash still finds its record, which says it is revoked.
   */
  const knownHashes = new Map<string, string>();
  // A record read from the store is compared with the hash in constant time once, before it is kept.
  const readRow = (hash: string) => rows.get(hash, async () => {
    const row = await store.findKeyByHash(hash);
    return row && hashesEqual(row.hash, hash) ? row : undefined;
  });
  const active = (row: KeyRow | undefined, key: string, hash: string, headers: Record<string, string> | undefined): KeyRow => {
    if (!row || row.revoked_at !== null) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
    if (!knownHashes.has(key)) rememberBounded(knownHashes, MAX_KNOWN_HASHES, key, hash);
    return row;
  };
  const find = (presented: PresentedKey, headers: Record<string, string> | undefined): MaybePromise<KeyRow> => {
    const key = typeof presented.key === 'string' ? presented.key : presented.key();
    let hash = knownHashes.get(key);
    if (hash === undefined) {
      if (!isWellFormedKey(key)) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
      hash = hashKey(key);
    }
    const known = rows.peek(hash);
    if (known !== undefined) return active(known, key, hash, headers);
    const hashed = hash;
    return readRow(hash).then((row) => active(row, key, hashed, headers));
  };
  const failed = (address: string | undefined, error: unknown): Promise<never> =>
    error instanceof UnauthorizedError ? failures.recordFailure(address).then(() => Promise.reject(error)) : Promise.reject(error);
  const resolveNow = (presented: PresentedKey, headers: Record<string, string> | undefined): MaybePromise<KeyRow> => {
    let row: MaybePromise<KeyRow>;
    try {
      row = find(presented, headers);
    } catch (error) {
      return failed(presented.address, error);
    }
    return row instanceof Promise ? row.catch((error: unknown) => failed(presented.address, error)) : row;
  };
  return (presented, headers) => {
    const allowed = failures.assertAllowed(presented.address);
    return allowed === undefined ? resolveNow(presented, headers) : allowed.then(() => resolveNow(presented, headers));
  };
}
