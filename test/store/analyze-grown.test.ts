// A large write tells PostgreSQL's planner the new sizes of the tables it grew, in its own
// transaction (analyzeGrown, src/store/db/dialect.ts): the statements that page through what it
// wrote are otherwise planned for the tables as autovacuum last saw them. Its temporary tables,
// which nothing else analyzes, are analyzed at any size (analyzeTemporary).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { ANALYZE_FROM_ROWS, analyzeGrown } from '../../src/store/db/dialect.js';
import { analyzeChangeTables, createChangeTables, dropChangeTables } from '../../src/store/changes/change-tables.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';

const postgres = storeBackends().find((backend) => backend.name === 'PostgreSQL');

describe('a large write analyzes the tables it grew (PostgreSQL)', { skip: postgres === undefined ? 'TEST_DATABASE_URL is not set' : false }, () => {
  let store: Store;
  before(async () => {
    store = (await postgres!.create()).store;
  });
  after(async () => {
    await store.close();
    await postgres!.cleanup();
  });

  /** The planner's row count of threat_links, as a statement in `trx` sees it. */
  const plannedRows = async (trx: Parameters<typeof analyzeGrown>[0]) =>
    Number((await sql<{ n: number }>`select reltuples::bigint as n from pg_class where oid = 'threat_links'::regclass`.execute(trx)).rows[0]!.n);

  it('below the threshold nothing is analyzed; from it, the write\'s own rows are counted before it commits', async () => {
    const db = dbOf(store);
    await db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into threat_links (tid, iid, stamp_linked, seq) select 1, g, '2026-01-01 00:00:00', g from generate_series(1, ${ANALYZE_FROM_ROWS}) g`.execute(trx);
        await analyzeGrown(trx, dialectOf(store), ANALYZE_FROM_ROWS - 1, ['threat_links']);
        const before = await plannedRows(trx);
        assert.ok(before < ANALYZE_FROM_ROWS / 2, `not analyzed below the threshold (${before})`);
        await analyzeGrown(trx, dialectOf(store), ANALYZE_FROM_ROWS, ['threat_links']);
        assert.equal(await plannedRows(trx), ANALYZE_FROM_ROWS);
        throw new Error('roll back');
      })
      .catch((error: Error) => assert.equal(error.message, 'roll back'));
  });

  it("a write's change set is analyzed whatever its size: PostgreSQL never analyzes a temporary table itself", async () => {
    await dbOf(store)
      .transaction()
      .execute(async (trx) => {
        await createChangeTables(trx, dialectOf(store), false);
        await sql`insert into import_links (kind, owner, iid, stamp_linked, ordinal, position)
          select 0, 1, g, '2026-01-01 00:00:00', g, 'pull' from generate_series(1, 3) g`.execute(trx);
        const planned = async () =>
          Number((await sql<{ n: number }>`select reltuples::bigint as n from pg_class where oid = 'import_links'::regclass`.execute(trx)).rows[0]!.n);
        assert.equal(await planned(), -1, 'no statistics before');
        await analyzeChangeTables(trx, dialectOf(store));
        assert.equal(await planned(), 3);
        await dropChangeTables(trx);
      });
  });
});
