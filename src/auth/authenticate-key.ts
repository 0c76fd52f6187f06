// Turns an API key into a Client (key id and plan), for both surfaces; unknown or revoked keys are 401.
import type { Config } from '../config.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { planNamed, type Client } from '../plans/plan-rules.js';
import type { Store } from '../store/store.js';
import type { ApiKeyRecord } from '../store/records.js';
import type { Clock } from '../clock.js';
import { ResponseCache } from '../http/response-cache.js';
import { hashesEqual, hashKey, isWellFormedKey } from './key-secret.js';

export const UNKNOWN_KEY_MESSAGE = 'Unknown or revoked API key.';

export type KeyAuthenticator = (key: string, headers?: Record<string, string>) => Promise<Client>;

/**
 * Resolves keys to clients for both surfaces. Key records are kept in memory until a key is revoked
 * anywhere (the store's keys version is re-read at most every `cache.versionCheckMs`), so a known
 * key costs one hash and a map read; unknown keys are never kept.
 */
export function createKeyAuthenticator(store: Store, config: Config, clock: Clock): KeyAuthenticator {
  const rows = new ResponseCache<KeyRow>(() => store.keysVersion(), clock, config.cache);
  return (key, headers) => authenticateKey(config, key, (hash) => rows.get(hash, () => store.findKeyByHash(hash)), headers);
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
