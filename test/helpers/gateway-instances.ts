// Gateway instances as a scale-out deployment runs them: one database, each instance with its own connection and app.
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import type { Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { importDataset } from '../../src/import/import-file.js';
import type { RateLimitStoreFactory } from '../../src/plans/rate-limiters.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from './fixture.js';
import { fixedClock } from './test-app.js';
import type { Backend } from './store-backends.js';
import { openTestStore } from './store-db.js';

export interface Instance {
  app: Express;
  store: Store;
  logLines: string[];
  close(): Promise<void>;
}

/** A new database (from the backend) holding the fixture and one key per plan. */
export async function seedDatabase(
  backend: Backend,
  config: Config,
): Promise<{ location: string; keys: Record<string, string>; keyIds: Record<string, string> }> {
  const { store, location } = await backend.create({ collections: config.collections });
  try {
    await importDataset(store, buildFixture(), fixedClock);
    const keys: Record<string, string> = {};
    const keyIds: Record<string, string> = {};
    for (const plan of Object.keys(config.plans)) {
      if (plan === 'anonymous') continue;
      const created = await createKey(store, config, fixedClock, plan, `scale ${plan}`);
      keys[plan] = created.key;
      keyIds[plan] = created.id;
    }
    return { location, keys, keyIds };
  } finally {
    await store.close();
  }
}

/**
 * One instance as `serve` builds it: its own store connection, the TAXII `next` secret kept in the
 * store (not a test secret), and the given rate-limit counters.
 */
export async function openInstance(location: string, config: Config, options: { rateLimitStores?: RateLimitStoreFactory } = {}): Promise<Instance> {
  const store = await openTestStore(location, { collections: config.collections });
  const logLines: string[] = [];
  const logger = createLogger('info', (line) => logLines.push(line));
  const app = createApp(config, { store, clock: fixedClock, logger, rateLimitStores: options.rateLimitStores });
  return { app, store, logLines, close: () => store.close() };
}
