// Migration 0023 (storage-migration.ts): PostgreSQL's indicators table leaves half of each page free,
// for the row versions each pull writes, and its trigram index merges new entries 16 MB at a time; a
// store from before gets both; SQLite, which rewrites rows in place, only records the migration.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import { INDICATORS_FILLFACTOR, TRIGRAM_PENDING_LIST_KIB } from '../../src/store/db/storage-migration.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf, migrateRewound, rewindIndicatorsStorage } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';
import type { Store } from '../../src/store/contract/store.js';

/**
 * The storage options of the indicators table and of the values' trigram index on PostgreSQL, sorted;
 * none on SQLite. The index is on indicators until migration 0026 moves it (wildcard-migration.ts).
 */
async function storageOptions(store: Store): Promise<string[]> {
  if (dialectOf(store) !== 'postgres') return [];
  const { rows } = await sql<{ options: string[] | null }>`select reloptions as options from pg_class
    where oid in ('indicators'::regclass, coalesce(to_regclass('indicator_wildcard_values_trigrams'), to_regclass('indicators_value_trigrams')))`.execute(dbOf(store));
  return rows.flatMap((r) => r.options ?? []).sort();
}

for (const backend of storeBackends()) {
  describe(`migration 0023 on ${backend.name} (the indicators' storage)`, () => {
    after(() => backend.cleanup());
    const expected = backend.name === 'PostgreSQL' ? [`fillfactor=${INDICATORS_FILLFACTOR}`, `gin_pending_list_limit=${TRIGRAM_PENDING_LIST_KIB}`] : [];

    it('a new store has it', async () => {
      const { store } = await backend.create();
      try {
        assert.deepEqual(await storageOptions(store), expected);
      } finally {
        await store.close();
      }
    });

    it('a store from before gets it, its data as it was', async () => {
      const { store, location } = await backend.create();
      try {
        await importDataset(store, buildFixture(), fixedClock);
        const before = await store.findIndicator(1);
        await rewindIndicatorsStorage(store);
        assert.deepEqual(await storageOptions(store), []);
        await migrateRewound(store, location);
        assert.deepEqual(await storageOptions(store), expected);
        assert.deepEqual(await store.findIndicator(1), before);
      } finally {
        await store.close();
      }
    });
  });
}
