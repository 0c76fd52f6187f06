// `threatgate keys create|list|revoke`: API keys, of which only hashes are stored.
import { formatStamp, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import { ConfigError, UsageError } from '../errors.js';
import { generateKey, generateKeyId, hashKey } from '../auth/key-secret.js';
import { ANONYMOUS_PLAN } from '../plans/plan-rules.js';
import type { Store } from '../store/contract/store.js';

/** Creates a key for a configured plan and returns the secret (shown once, never stored). */
export async function createKey(store: Store, config: Config, clock: Clock, plan: string, label?: string): Promise<{ id: string; key: string }> {
  if (plan === ANONYMOUS_PLAN || !Object.hasOwn(config.plans, plan)) {
    const offered = Object.keys(config.plans).filter((p) => p !== ANONYMOUS_PLAN);
    throw new UsageError(`--plan: unknown plan "${plan}"; configured plans: ${offered.join(', ')}`);
  }
  const key = generateKey();
  const id = generateKeyId();
  await store.insertKey({ id, hash: hashKey(key), plan, label: label ?? null, created_at: formatStamp(clock.now()) });
  return { id, key };
}

/**
 * Creates an admin key (docs/interface.md section 7.4): no plan, so the lookup API, TAXII and the exports refuse it, and
 * only it opens /admin/api/ and the console. Returns the secret (shown once, never stored).
 */
export async function createAdminKey(store: Store, clock: Clock, label?: string): Promise<{ id: string; key: string }> {
  const key = generateKey();
  const id = generateKeyId();
  await store.insertKey({ id, hash: hashKey(key), plan: '', admin: true, label: label ?? null, created_at: formatStamp(clock.now()) });
  return { id, key };
}

const KEY_ID = /^k_[0-9a-f]{12}$/;

export async function keysCommand(
  args: string[],
  flags: { plan?: string | undefined; label?: string | undefined; admin?: boolean | undefined },
  deps: { store: Store; config: Config; clock: Clock; out: (line: string) => void },
): Promise<void> {
  const [action, target, ...rest] = args;
  switch (action) {
    case 'create': {
      // An admin key has no plan: both at once would ask for a key that is neither.
      if (flags.admin === true && flags.plan !== undefined) throw new UsageError('keys create: give --plan PLAN or --admin, not both (an admin key has no plan)');
      if (flags.admin !== true && !flags.plan) throw new UsageError('keys create: --plan PLAN (or --admin) is required');
      if (target !== undefined) throw new UsageError(`keys create: unexpected argument "${target}"`);
      const { key } = flags.admin === true
        ? await createAdminKey(deps.store, deps.clock, flags.label)
        : await createKey(deps.store, deps.config, deps.clock, flags.plan!, flags.label);
      deps.out(key);
      return;
    }
    case 'list': {
      const keys = await deps.store.listKeys();
      if (keys.length === 0) deps.out('no keys');
      for (const k of keys) {
        const state = k.revoked_at ? `revoked ${k.revoked_at}` : 'active';
        deps.out(`${k.id}\t${k.admin ? '(admin)' : k.plan}\t${state}\tcreated ${k.created_at}\t${k.label ?? ''}`.trimEnd());
      }
      return;
    }
    case 'revoke': {
      if (!target || rest.length > 0) throw new UsageError('keys revoke: give one KEY or key id');
      const revoked = await deps.store.revokeKey(KEY_ID.test(target) ? { id: target } : { hash: hashKey(target) }, formatStamp(deps.clock.now()));
      if (!revoked) throw new ConfigError(`keys revoke: no active key matches ${KEY_ID.test(target) ? target : 'the given key'}`);
      deps.out(`revoked ${revoked}`);
      return;
    }
    default:
      throw new UsageError('keys: expected "create --plan PLAN [--label TEXT]", "create --admin [--label TEXT]", "list" or "revoke KEY_OR_ID"');
  }
}
