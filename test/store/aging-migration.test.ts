// Migrations 0022 (aging-migration.ts) and 0024 (unlisted-migration.ts) on a store that already holds data: of the indicators pulls
// listed, those no source lists now get, in stamp_unlisted, when a pull last listed them; listed
// ones and ones no pull ever listed get none. The lifecycle then ages out what it did before.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import { noBatches } from '../../src/store/contract/write-batch.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';
import { dbOf, migrateRewound, rewindAgingIndex, rewindUnlistedIndicators } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';


/** Indicator 1: listed now; 2: listed once, long ago; 3: listed once, lately; 4: never by a pull. */
const LONG_AGO = '2025-06-01 00:00:00';
const LATELY = '2026-01-10 00:00:00';

/**
 * For the suite it is called in: a store with the fixture, taken back by `rewind`, given the rows
 * `prepare` writes, then migrated to the latest; closed after the suite.
 */
function migratedStore(backend: Backend, rewind: (store: Store) => Promise<void>, prepare: (db: Kysely<any>) => Promise<void>): { readonly store: Store } {
  let opened: Store | undefined;
  before(async () => {
    const created = await backend.create();
    opened = created.store;
    await importDataset(opened, buildFixture(), fixedClock);
    await rewind(opened);
    await prepare(dbOf(opened));
    await migrateRewound(opened, created.location);
  });
  after(async () => {
    await opened?.close();
    await backend.cleanup();
  });
  return {
    get store(): Store {
      if (opened === undefined) throw new Error('the store is made before the suite runs');
      return opened;
    },
  };
}

for (const backend of storeBackends()) {
  describe(`migration 0022 on ${backend.name} (the aging index)`, () => {
    const migrated = migratedStore(backend, rewindAgingIndex, async (db) => {
      await sql`update indicators set stamp_listed = case iid when 1 then ${LATELY} when 2 then ${LONG_AGO} else ${LATELY} end where iid in (1, 2, 3)`.execute(db);
      await sql`insert into source_listings (fid, iid, risk) values (1, 1, 3)`.execute(db);
    });

    it('marks what no source lists now with its last listing, and nothing else', async () => {
      const { store } = migrated;
      // Migration 0024 (unlisted-migration.ts), which follows, carries the stamps into their own table.
      const rows = await dbOf(store).selectFrom('unlisted_indicators').select(['iid', 'stamp_unlisted']).orderBy('iid').execute();
      assert.deepEqual(
        rows.map((r) => [Number(r.iid), r.stamp_unlisted]),
        [[2, LONG_AGO], [3, LATELY]],
      );
    });

    it('the lifecycle ages out the one unlisted since before the cutoff, and only it', async () => {
      const { store } = migrated;
      const plan = { at: '2026-01-15 00:00:00', threatCutoff: '2000-01-01 00:00:00', indicatorCutoffs: { byType: {}, default: '2025-12-16 00:00:00' } };
      const { lifecycle } = await store.applyWrite({ kind: 'lifecycle', plan }, noBatches(), fixedClock);
      assert.equal(lifecycle.agedIndicators, 1);
      assert.deepEqual([(await store.findIndicator(2))?.risk, (await store.findIndicator(2))?.retired_reason], ['retired', 'aged-out']);
      for (const iid of [1, 3, 4]) assert.notEqual((await store.findIndicator(iid))?.risk, 'retired', `iid ${iid}`);
    });
  });
}

for (const backend of storeBackends()) {
  describe(`migration 0024 on ${backend.name} (the unlisted values in a table of their own)`, () => {
    // 2 and 3 are aging; 5 was unlisted, then retired: it ages no more.
    const migrated = migratedStore(backend, rewindUnlistedIndicators, async (db) => {
      await sql`update indicators set stamp_listed = ${LONG_AGO}, stamp_unlisted = case iid when 3 then ${LATELY} else ${LONG_AGO} end where iid in (2, 3, 5)`.execute(db);
      await sql`update indicators set risk = 'retired' where iid = 5`.execute(db);
    });

    it('carries each stamp of a value not retired over, and drops the column and its index', async () => {
      const { store } = migrated;
      const db = dbOf(store);
      const rows = await db.selectFrom('unlisted_indicators').select(['iid', 'stamp_unlisted']).orderBy('iid').execute();
      assert.deepEqual(rows.map((r) => [Number(r.iid), r.stamp_unlisted]), [[2, LONG_AGO], [3, LATELY]]);
      await assert.rejects(sql`select stamp_unlisted from indicators`.execute(db));
    });

    it('the lifecycle ages out the one unlisted since before the cutoff; it leaves the table', async () => {
      const { store } = migrated;
      const plan = { at: '2026-01-15 00:00:00', threatCutoff: '2000-01-01 00:00:00', indicatorCutoffs: { byType: {}, default: '2025-12-16 00:00:00' } };
      const { lifecycle } = await store.applyWrite({ kind: 'lifecycle', plan }, noBatches(), fixedClock);
      assert.equal(lifecycle.agedIndicators, 1);
      assert.equal((await store.findIndicator(2))?.retired_reason, 'aged-out');
      const rows = await dbOf(store).selectFrom('unlisted_indicators').select('iid').orderBy('iid').execute();
      assert.deepEqual(rows.map((r) => Number(r.iid)), [3]);
    });
  });
}
