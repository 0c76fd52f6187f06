// Builds the real app over a real SQLite store (a temporary file) loaded with the fixture.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import type { Clock } from '../../src/clock.js';
import { deepMerge, loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, type Dataset } from './fixture.js';
import { openTestStore } from './store-db.js';

/** Signs TAXII `next` tokens in tests; production keeps a random one in the store. */
export const TEST_NEXT_SECRET = 'test-secret-for-next-tokens';

export const fixedClock: Clock = { now: () => Date.parse('2026-01-15T10:00:00Z') };

export interface TestContext {
  app: Express;
  store: Store;
  config: Config;
  data: Dataset;
  keys: Record<string, string>;
  logLines: string[];
  dbFile: string;
  close(): Promise<void>;
}

export async function createTestContext(
  options: { overrides?: unknown; data?: Dataset } = {},
): Promise<TestContext> {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-test-'));
  const dbFile = join(dir, 'test.sqlite');
  // Responses are cached per data version; tests re-read the version on every request.
  const config = loadConfig({ overrides: deepMerge({ cache: { versionCheckMs: 0 } }, options.overrides ?? {}) });
  const store = await openTestStore(dbFile, { collections: config.collections });
  const data = options.data ?? buildFixture();
  await importDataset(store, data, fixedClock);
  const keys: Record<string, string> = {};
  for (const plan of Object.keys(config.plans)) {
    if (plan !== 'anonymous') keys[plan] = (await createKey(store, config, fixedClock, plan, `test ${plan}`)).key;
  }
  const logLines: string[] = [];
  const logger = createLogger('info', (line) => logLines.push(line));
  const app = createApp(config, { store, clock: fixedClock, logger, nextTokenSecret: TEST_NEXT_SECRET });
  return {
    app,
    store,
    config,
    data,
    keys,
    logLines,
    dbFile,
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Plans with limits high enough that rate limiting never interferes with a functional test. */
export const GENEROUS_PLANS = {
  linksPageSize: 5,
  plans: Object.fromEntries(
    ['anonymous', 'free', 'pro', 'team', 'business', 'custom', 'feed'].map((p) => [p, { perSecond: 100000, perDay: 1000000, perMonth: 10000000 }]),
  ),
};
