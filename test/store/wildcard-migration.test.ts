// Migration 0026 (wildcard-migration.ts): on PostgreSQL the values' trigram index lives on a table of
// lowercased values beside indicators, kept by triggers, so that a changed indicator's new row
// version adds no trigrams. Wildcards must find what every write path stores, a value an import
// changes must be found by its new value only, and a store from before gets the table filled from
// its indicators. SQLite keeps its FTS5 table and only records the migration.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { exploreData, exploredIids, rewoundExploreStore } from '../helpers/explore-data.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, rewindWildcardValues } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';

/** Indicators whose row in the wildcard table is missing or is not their value lowercased, and rows with no indicator. */
async function outOfStep(store: Store): Promise<string[]> {
  const { rows } = await sql<{ iid: number; value: string | null; kept: string | null }>`
    select coalesce(i.iid, w.iid) as iid, i.value, w.value as kept
    from indicators i full join indicator_wildcard_values w on w.iid = i.iid
    where i.iid is null or w.iid is null or w.value <> lower(i.value)`.execute(dbOf(store));
  return rows.map((r) => `${Number(r.iid)}: ${String(r.value)} kept as ${String(r.kept)}`);
}

for (const backend of storeBackends()) {
  describe(`migration 0026 on ${backend.name} (the values' trigram index beside indicators)`, () => {
    let store: Store;
    const postgres = backend.name === 'PostgreSQL';
    before(async () => {
      store = await rewoundExploreStore(backend, rewindWildcardValues);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    const iids = (q: string) => exploredIids(store, q);

    it('finds the values stored before it by wildcard', async () => {
      assert.deepEqual(await iids('ioc=*.evil.example'), [2, 1]);
      assert.deepEqual(await iids('ioc=*100%_off*'), [4]);
      if (postgres) assert.deepEqual(await outOfStep(store), []);
    });

    it('leaves no trigram index on indicators (PostgreSQL)', { skip: !postgres }, async () => {
      const { rows } = await sql<{ name: string }>`select indexname as name from pg_indexes
        where schemaname = current_schema() and tablename = 'indicators' and indexdef ilike '%using gin%'`.execute(dbOf(store));
      assert.deepEqual(rows, []);
    });

    it('keeps step with the values later imports insert and change', async () => {
      const data = exploreData();
      data.indicators.push({ ...data.indicators[0]!, iid: 40, indicator: 'late.evil.example' });
      // An import that gives indicator 2 another value: found by the new one, no longer by the old.
      data.indicators[1] = { ...data.indicators[1]!, indicator: 'www.Renamed.example' };
      await importDataset(store, data, fixedClock);
      assert.deepEqual(await iids('ioc=*.evil.example'), [40, 1]);
      assert.deepEqual(await iids('ioc=*.renamed.example'), [2]);
      if (postgres) assert.deepEqual(await outOfStep(store), []);
    });

    it('writes no row there for an update that changes no value (PostgreSQL)', { skip: !postgres }, async () => {
      await dbOf(store).transaction().execute(async (trx) => {
        // The rows this connection wrote there so far, as its statistics count them.
        const written = async () =>
          Number((await sql<{ n: number }>`select n_tup_upd + n_tup_ins + n_tup_del as n from pg_stat_xact_user_tables
            where relid = 'indicator_wildcard_values'::regclass`.execute(trx)).rows[0]!.n);
        const before = await written();
        // A pull's kind of update, and an import's that sets each value to what it is.
        await sql`update indicators set risk = 'low', stamp_updated = '2026-03-09 00:00:00' where iid <= 10`.execute(trx);
        await sql`update indicators set value = value, content_hash = '' where iid <= 10`.execute(trx);
        assert.equal(await written(), before);
        // The same count sees a value that changes.
        await sql`update indicators set value = value || '.x' where iid = 1`.execute(trx);
        assert.equal(await written(), before + 1);
      });
      assert.deepEqual(await outOfStep(store), []);
    });
  });
}
