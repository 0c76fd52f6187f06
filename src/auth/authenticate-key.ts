// Turns an API key into a Client (key id and plan), for both surfaces; unknown or revoked keys are 401.
import type { Config } from '../config.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { planNamed, type Client } from '../plans/plan-rules.js';
import type { Store } from '../store/store.js';
import { hashesEqual, hashKey, isWellFormedKey } from './key-secret.js';

export const UNKNOWN_KEY_MESSAGE = 'Unknown or revoked API key.';

export async function authenticateKey(
  store: Store,
  config: Config,
  key: string,
  headers?: Record<string, string>,
): Promise<Client> {
  if (!isWellFormedKey(key)) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
  const hash = hashKey(key);
  const row = await store.findKeyByHash(hash);
  // The lookup is by hash; the constant-time comparison keeps the final check independent of the secret.
  if (!row || !hashesEqual(row.hash, hash) || row.revoked_at !== null) throw new UnauthorizedError(UNKNOWN_KEY_MESSAGE, headers);
  const plan = planNamed(config, row.plan);
  if (!plan) throw new ForbiddenError(`This API key's plan "${row.plan}" is not offered by this server.`);
  return { keyId: row.id, planName: row.plan, plan };
}
