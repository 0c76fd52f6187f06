// The plans of the observation reads (docs/observations.md): on a store with many sightings and
// submissions, spread over many indicators and threats, with statistics gathered, a page of one
// indicator's or one threat's latest is one index range read backwards: no read of the whole table,
// no sort. SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Compilable } from 'kysely';
import type { Store } from '../../src/store/contract/store.js';
import { sightingsPage, submissionsPage } from '../../src/store/queries/observation-queries.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { planReader } from '../helpers/query-plans.js';

const ROWS = 40_000;
const BATCH = 500;

/**
 * Sightings of 2,000 indicators and, one in ten, of 400 threats; submissions of those indicators or of
 * no indicator. The rows name no stored record (none needs to exist for a plan): what matters is that
 * each one's sightings are a small part of the table, as in a store of real size.
 */
async function fill(store: Store): Promise<void> {
  const db = dbOf(store);
  for (let start = 0; start < ROWS; start += BATCH) {
    const n = Array.from({ length: BATCH }, (_, i) => start + i);
    await db
      .insertInto('sightings')
      .values(n.map((k) => ({
        iid: k % 10 === 0 ? null : (k % 2000) + 1, tid: k % 10 === 0 ? (k % 400) + 1 : null, reported_by: 'k', reported_by_label: null,
        reported_at: '2026-01-01 00:00:00', seen_at: '2026-01-01 00:00:00', count: 1, note: null,
      })))
      .execute();
    await db
      .insertInto('submissions')
      .values(n.map((k) => ({ key_id: `key-${k % 50}`, value: `v${k}`, type: null, iid: k % 4 === 0 ? (k % 2000) + 1 : null, submitted_at: '2026-01-01 00:00:00' })))
      .execute();
  }
}

for (const backend of storeBackends()) {
  describe(`observation read plans on ${backend.name}`, () => {
    let store: Store;
    let plan: (query: Compilable) => Promise<string>;
    before(async () => {
      ({ store } = await backend.create());
      await fill(store);
      await sql`analyze`.execute(dbOf(store));
      const lines = planReader(store);
      plan = async (query) => (await lines(query)).join('\n');
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    /**
     * The plan reads `index` and never the whole table. SQLite walks the index backwards, in the
     * page's order; PostgreSQL may rather fetch the one target's rows through the index (a bitmap
     * scan) and sort those few, which is as bounded.
     */
    const assertRange = (lines: string, table: string, index: string) => {
      assert.match(lines, new RegExp(`\\b${index}\\b`), lines);
      assert.doesNotMatch(lines, new RegExp(`^\\s*SCAN ${table}\\b|Seq Scan on ${table}\\b`, 'm'), lines);
      assert.doesNotMatch(lines, /TEMP B-TREE/, lines);
    };

    it("an indicator's latest sightings read sightings_iid", async () => {
      assertRange(await plan(sightingsPage(dbOf(store), { iid: 7 }, 20)), 'sightings', 'sightings_iid');
    });
    it("the next page of them too", async () => {
      assertRange(await plan(sightingsPage(dbOf(store), { iid: 7 }, 20, 30_000)), 'sightings', 'sightings_iid');
    });
    it("a threat's latest sightings read sightings_tid", async () => {
      assertRange(await plan(sightingsPage(dbOf(store), { tid: 20 }, 20, 30_000)), 'sightings', 'sightings_tid');
    });
    it("an indicator's latest submissions read submissions_iid", async () => {
      assertRange(await plan(submissionsPage(dbOf(store), 7, 5)), 'submissions', 'submissions_iid');
    });
  });
}
