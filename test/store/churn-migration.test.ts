// Migration 0017 (docs/sources.md, "Churn and maxChurn"): a store from before it gains runs' `churn`, and the runs it
// recorded keep null, as they never measured one. The migration itself is run on a current store whose runs table is
// taken back to its 0016 shape; every store the tests open runs it through the migrator. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { runChurn } from '../../src/store/db/churn-migration.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';

for (const backend of storeBackends()) {
  describe(`migration 0017 on ${backend.name} (runs' churn)`, () => {
    it('carries a run recorded before it forward with no churn', async () => {
      const { store } = await backend.create();
      try {
        const db = dbOf(store);
        await db.schema.alterTable('feed_runs').dropColumn('churn').execute();
        await sql`insert into feed_runs (fid, started_ms, finished_ms, run_trigger, outcome, http_status, bytes, value_count, new_indicators, new_links, unlisted,
          rejected_unparseable, rejected_allowlisted, threats) values (7, 1000, 2000, 'schedule', 'ok', 200, 10, 10, 0, 0, 3, 0, 0, 0)`.execute(db);
        await runChurn(dialectOf(store)).up(db);
        assert.deepEqual((await store.listFeedRuns(7, 10)).map((r) => [r.outcome, r.unlisted, r.churn]), [['ok', 3, null]]);
        // The column keeps a fraction as it is written, on either dialect.
        await db.updateTable('feed_runs').set({ churn: 0.3333 }).where('fid', '=', 7).execute();
        assert.equal((await store.listFeedRuns(7, 1))[0]?.churn, 0.3333);
      } finally {
        await store.close();
        await backend.cleanup();
      }
    });
  });
}
