// An app over a store of either backend, loaded with the fixture plus values that test the formats, for the export tests.
import type { Express } from 'express';
import { sql } from 'kysely';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { deepMerge, loadConfig, type Config } from '../../src/config.js';
import type { Indicator, Link, Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { createConfiguredStore, type Backend } from '../helpers/store-backends.js';
import { fixedClock, GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';
import { dbOf } from '../helpers/store-db.js';

export const TEST_COLLECTION = '981c4916-ebb2-4567-aece-54ae970c4230';
export const ALL_COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
/** A third collection, filtered to feed 1: the export must follow the view's filter. */
export const FEED_COLLECTION = '5f0c2a5e-3b7d-4c1e-9a6f-0d8e7b1c2a31';

export const EXTRA_COLLECTIONS = {
  collections: [
    { id: TEST_COLLECTION, title: 'Test collection', alias: 'test', free: true, filter: { sample: 100 } },
    { id: ALL_COLLECTION, title: 'Indicators', alias: 'indicators', free: false, filter: {} },
    { id: FEED_COLLECTION, title: 'Feed 1', alias: 'feed-1', free: false, filter: { fid: 1 } },
  ],
};

const indicator = (iid: number, value: string, type: string, retired = false): Indicator =>
  ({
    iid,
    indicator: value,
    type,
    risk: 'high',
    stamp_added: '2025-02-01 00:00:00',
    stamp_updated: '2025-04-01 00:00:00',
    stamp_seen: iid % 2 === 0 ? null : '2025-05-01 00:00:00',
    retired,
    attributes: {},
    properties: {},
  }) as Indicator;

/**
 * Values ingest now refuses (control characters: docs/interface.md section 11) as a store written before that
 * rule may hold them: imported clean, then set in place, so the exports still meet them.
 */
const LEGACY_VALUES: readonly [iid: number, imported: string, stored: string][] = [[33, 'http://line.example/a-b', 'http://line.example/a\nb']];

/** Sets the LEGACY_VALUES in the store, past the import's validation. */
async function storeLegacyValues(store: Store): Promise<void> {
  for (const [iid, , value] of LEGACY_VALUES) await dbOf(store).updateTable('indicators').set({ value }).where('iid', '=', iid).execute();
}

/** The fixture (ips and domains, every tenth retired) and values with commas, quotes, schemes and (storeLegacyValues) line breaks. */
export function exportDataset(): Dataset {
  const data = buildFixture();
  const quoted = { ...data.threats[0]!, tid: 4, threat: 'Quote "Q", Comma', othernames: [], related: [], news: [] } as Threat;
  data.threats.push(quoted);
  data.indicators.push(
    indicator(31, 'http://evil.example.com/a,b', 'url'),
    indicator(32, 'https://evil.example.org/path?q="x"', 'url'),
    indicator(33, LEGACY_VALUES[0]![1], 'url'),
    indicator(34, 'ftp://files.example.net/x', 'url'),
    indicator(35, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256'),
    indicator(36, 'https://retired.example/x', 'url', true),
    indicator(37, 'HTTPS://Upper.example/Path', 'url'),
  );
  const links: Link[] = [31, 32, 33].map((iid) => ({ iid, tid: 4, stamp_linked: '2025-06-01 00:00:00' }));
  links.push({ iid: 31, tid: 1, stamp_linked: '2025-06-01 00:00:00' }, { iid: 31, fid: 1, stamp_linked: '2025-06-01 00:00:00' });
  data.links.push(...links);
  return data;
}

export interface ExportContext {
  app: Express;
  store: Store;
  config: Config;
  keys: Record<string, string>;
  /** Where the store lives: an SQLite file or a postgres:// URL (the CLI's --db). */
  location: string;
}

/** The app over a new store of `backend` holding `exportDataset()`, with a key per plan. */
export async function createExportContext(backend: Backend, overrides: unknown = GENEROUS_PLANS): Promise<ExportContext> {
  const config = loadConfig({ overrides: deepMerge(deepMerge({ cache: { versionCheckMs: 0 } }, EXTRA_COLLECTIONS), overrides) });
  const { store, location } = await createConfiguredStore(backend, config);
  await importDataset(store, exportDataset(), fixedClock);
  await storeLegacyValues(store);
  const keys: Record<string, string> = {};
  for (const plan of Object.keys(config.plans)) if (plan !== 'anonymous') keys[plan] = (await createKey(store, config, fixedClock, plan, `test ${plan}`)).key;
  return { app: createApp(config, { store, clock: fixedClock, nextTokenSecret: TEST_NEXT_SECRET }), store, config, keys, location };
}

/**
 * The truth, read another way: the active indicators whose STIX indicator object the TAXII
 * collection holds (its membership rows, or every object for an unfiltered one), by iid.
 */
export async function collectionTruth(store: Store, collection: string, unfiltered: boolean): Promise<{ iid: number; value: string; type: string }[]> {
  const member = unfiltered
    ? sql`exists (select 1 from stix_objects s where s.type = 'indicator' and s.iid = i.iid)`
    : sql`exists (select 1 from collection_objects c join stix_objects s on s.id = c.id where c.collection = ${collection} and s.type = 'indicator' and s.iid = i.iid)`;
  const { rows } = await sql<{ iid: number; value: string; type: string }>`
    select i.iid, i.value, i.type from indicators i where (i.retired is null or i.retired = 0) and i.risk <> 'retired' and ${member} order by i.iid`.execute(dbOf(store));
  return rows.map((r) => ({ iid: Number(r.iid), value: r.value, type: r.type }));
}
