// A store whose every indicator differs from the next in one of the keys `max` chooses by (risk, stamp_seen, value), for the device-limit tests.
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { deepMerge, loadConfig, type Config } from '../../src/config.js';
import type { Indicator, Link } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { createConfiguredStore, type Backend } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { fixedClock, GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';

export const ALL = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
/** Filtered to feed 1, which lists iids 1, 5, 6, 9 and 12. */
export const FEED_ONE = '5f0c2a5e-3b7d-4c1e-9a6f-0d8e7b1c2a31';

export const MAX_COLLECTIONS = {
  collections: [
    { id: ALL, title: 'Indicators', alias: 'indicators', free: false, filter: {} },
    { id: FEED_ONE, title: 'Feed 1', alias: 'feed-1', free: false, filter: { fid: 1 } },
  ],
};

/** iid, value, type, risk, stamp_seen, retired. */
const ROWS: readonly [number, string, string, string, string | null, boolean][] = [
  [1, '198.51.100.1', 'ip', 'low', '2025-06-01 00:00:00', false],
  [2, 'c2.example', 'domain', 'critical', '2025-05-01 00:00:00', false],
  [3, '198.51.100.3', 'ip', 'critical', '2025-06-01 00:00:00', false],
  [4, 'b.example', 'domain', 'critical', null, false],
  [5, '198.51.100.5', 'ip', 'high', '2025-06-01 00:00:00', false],
  [6, 'a.example', 'domain', 'high', '2025-06-01 00:00:00', false],
  [7, '198.51.100.7', 'ip', 'unknown', '2025-07-01 00:00:00', false],
  [8, '198.51.100.8', 'ip', 'none', '2025-07-01 00:00:00', false],
  [9, '198.51.100.9', 'ip', 'medium', null, false],
  [10, '198.51.100.10', 'ip', 'medium', '2025-01-01 00:00:00', false],
  [11, '198.51.100.11', 'ip', 'critical', '2025-08-01 00:00:00', true],
  // Before `a.example` by code point (Z is 0x5A, a 0x61), after it in most PostgreSQL collations.
  [12, 'Z.example', 'domain', 'high', '2025-06-01 00:00:00', false],
  // Stored with a line break below (storeLineBreak): in the CSV, not in the plain list.
  [13, 'http://line.example/a-b', 'url', 'critical', '2025-08-01 00:00:00', false],
];

export const LINE_BREAK_VALUE = 'http://line.example/a\nb';

/** The active indicators in the order `max` chooses them: risk, then latest stamp_seen (none last), then value by code point. */
export const CHOICE_ORDER = [13, 3, 2, 4, 5, 12, 6, 10, 9, 1, 8, 7];
/** The same, as the plain list has them: 13 holds a line break. */
export const TEXT_CHOICE_ORDER = CHOICE_ORDER.filter((iid) => iid !== 13);

export function valueOf(iid: number): string {
  return iid === 13 ? LINE_BREAK_VALUE : ROWS.find((row) => row[0] === iid)![1];
}

function maxDataset(): Dataset {
  const { threats, feeds } = buildFixture();
  const indicators = ROWS.map(
    ([iid, indicator, type, risk, seen, retired]) =>
      ({ iid, indicator, type, risk, stamp_added: '2025-01-01 00:00:00', stamp_updated: '2025-01-01 00:00:00', stamp_seen: seen, retired, attributes: {}, properties: {} }) as Indicator,
  );
  const links: Link[] = [1, 5, 6, 9, 12].map((iid) => ({ iid, fid: 1, stamp_linked: '2025-06-01 00:00:00' }));
  links.push({ iid: 3, tid: 2, stamp_linked: '2025-06-01 00:00:00' }, { iid: 3, tid: 1, stamp_linked: '2025-06-01 00:00:00' }, { iid: 4, tid: 1, stamp_linked: '2025-06-01 00:00:00' });
  return { threats, feeds, indicators, links };
}

export interface MaxContext {
  app: Express;
  store: Store;
  config: Config;
  proKey: string;
  /** The CLI's --db. */
  location: string;
}

/** The app over a new store of `backend` holding the data set, with a Pro key. */
export async function createMaxContext(backend: Backend): Promise<MaxContext> {
  const config = loadConfig({ overrides: deepMerge(deepMerge({ cache: { versionCheckMs: 0 } }, MAX_COLLECTIONS), GENEROUS_PLANS) });
  const { store, location } = await createConfiguredStore(backend, config);
  await importDataset(store, maxDataset(), fixedClock);
  // Ingest refuses a line break now; a store written before that rule may hold one.
  await dbOf(store).updateTable('indicators').set({ value: LINE_BREAK_VALUE }).where('iid', '=', 13).execute();
  const proKey = (await createKey(store, config, fixedClock, 'pro', 'test pro')).key;
  return { app: createApp(config, { store, clock: fixedClock, nextTokenSecret: TEST_NEXT_SECRET }), store, config, proKey, location };
}
