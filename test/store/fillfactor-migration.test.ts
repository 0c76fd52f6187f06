// Migration 0023 (fillfactor-migration.ts): PostgreSQL's indicators table leaves half of each page
// free, for the row versions each pull writes; a store from before gets the setting; SQLite, which
// rewrites rows in place, only records the migration.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import { INDICATORS_FILLFACTOR } from '../../src/store/db/fillfactor-migration.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf, migrateRewound, rewindIndicatorsFillfactor } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';
import type { Store } from '../../src/store/contract/store.js';

/** The indicators table's storage options on PostgreSQL (`fillfactor=50`, ...); none on SQLite. */
async function indicatorOptions(store: Store): Promise<string[]> {
  if (dialectOf(store) !== 'postgres') return [];
  const { rows } = await sql<{ options: string[] | null }>`select reloptions as options from pg_class where oid = 'indicators'::regclass`.execute(dbOf(store));
  return rows[0]?.options ?? [];
}

for (const backend of storeBackends()) {
  describe(`migration 0023 on ${backend.name} (the indicators' fill factor)`, () => {
    after(() => backend.cleanup());
    const expected = backend.name === 'PostgreSQL' ? [`fillfactor=${INDICATORS_FILLFACTOR}`] : [];

    it('a new store has it', async () => {
      const { store } = await backend.create();
      try {
        assert.deepEqual(await indicatorOptions(store), expected);
      } finally {
        await store.close();
      }
    });

    it('a store from before gets it, its data as it was', async () => {
      const { store, location } = await backend.create();
      try {
        await importDataset(store, buildFixture(), fixedClock);
        const before = await store.findIndicator(1);
        await rewindIndicatorsFillfactor(store);
        assert.deepEqual(await indicatorOptions(store), []);
        await migrateRewound(store, location);
        assert.deepEqual(await indicatorOptions(store), expected);
        assert.deepEqual(await store.findIndicator(1), before);
      } finally {
        await store.close();
      }
    });
  });
}
