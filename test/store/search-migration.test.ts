// Migration 0019 (explore's indexes: search-migration.ts) on a store that already holds indicators:
// a store as written at 0018 is made by taking the migration's tables, indexes and record away from a
// current one; migrating fills them for the rows already there. On PostgreSQL pg_trgm is then already
// in the database, as it is for every store after the first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeBackends } from '../helpers/store-backends.js';
import { rewindSearchIndexes } from '../helpers/store-db.js';
import { exploreData, exploredIids, rewoundExploreStore } from '../helpers/explore-data.js';


for (const backend of storeBackends()) {
  describe(`migration 0019 on ${backend.name} (explore's indexes)`, () => {
    let store: Store;
    before(async () => {
      store = await rewoundExploreStore(backend, rewindSearchIndexes);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    const iids = (q: string) => exploredIids(store, q);

    it('fills the ranges of the stored addresses and blocks', async () => {
      assert.deepEqual(await iids('ioc=198.51.0.0/16'), [7, 6]);
      assert.deepEqual(await iids('type=cidr'), [10, 7]);
    });
    it('fills the attribute values', async () => {
      assert.deepEqual(await iids('attribute.port=443'), [1]);
      assert.deepEqual(await iids('attribute=nginx'), [1]);
    });
    it('indexes the stored values for wildcards', async () => {
      assert.deepEqual(await iids('ioc=*.evil.example'), [2, 1]);
    });
    it('keeps the trigram index current for indicators written after it', async () => {
      const data = exploreData();
      data.indicators.push({ ...data.indicators[0]!, iid: 40, indicator: 'late.evil.example' });
      await importDataset(store, data, fixedClock);
      assert.deepEqual(await iids('ioc=*.evil.example'), [40, 2, 1]);
    });
  });
}
