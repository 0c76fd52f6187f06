// Migrations carry a store written by an earlier release forward without losing or changing its rows.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { createMigrator, migrateToLatest, migrationsCurrent } from '../../src/store/db/migrations.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf, rewindFeedHealth } from '../helpers/store-db.js';

/** The PostgreSQL schema a test store lives in (`?schema=` of its location), where its migrations are recorded; none for SQLite. */
const schemaIn = (location: string) => (location.startsWith('postgres') ? (new URL(location).searchParams.get('schema') ?? undefined) : undefined);

const OBJECTS = [
  ['identity--6f1a3e2c-0000-4000-8000-000000000001', 'identity', '2026-01-01T00:00:00.000Z', 10, '{"type":"identity"}', null, null, 'h1'],
  ['indicator--6f1a3e2c-0000-4000-8000-000000000002', 'indicator', '2026-01-01T00:00:00.000Z', 11, '', 7, null, 'h2'],
  ['relationship--6f1a3e2c-0000-4000-8000-000000000003', 'relationship', '2026-01-02T00:00:00.000Z', 12, '', 7, 3, 'h3'],
] as const;

describe('migration 0004 on SQLite (STIX ids as a unique index)', () => {
  let dir: string;
  let db: Kysely<any>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-migrations-'));
    db = new Kysely<any>({ dialect: new SqliteDialect({ database: new BetterSqlite3(join(dir, 'store.sqlite')) }) });
    const { error } = await createMigrator(db, 'sqlite').migrateTo('0003-covering-link-indexes');
    assert.equal(error, undefined);
    for (const row of OBJECTS) {
      await sql`insert into stix_objects (id, type, modified, date_added, body, iid, tid, source_hash) values (${sql.join(row)})`.execute(db);
    }
    assert.equal(await migrationsCurrent(db, 'sqlite'), false);
    await migrateToLatest(db, 'sqlite');
  });
  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps every object as it was', async () => {
    const { rows } = await sql<Record<string, unknown>>`select id, type, modified, date_added, body, iid, tid, source_hash from stix_objects order by date_added`.execute(db);
    assert.deepEqual(
      rows.map((r) => Object.values(r)),
      OBJECTS.map((row) => [...row]),
    );
    assert.equal(await migrationsCurrent(db, 'sqlite'), true);
  });

  it('indexes ids uniquely, and pages, iids and tids as before (and, since 0021, the objects no record owns)', async () => {
    const { rows } = await sql<{ name: string; unique: number }>`select name, "unique" from pragma_index_list('stix_objects') order by name`.execute(db);
    assert.deepEqual(rows.map((r) => [r.name, r.unique]), [
      ['stix_objects_id', 1],
      ['stix_objects_iid', 0],
      ['stix_objects_page', 0],
      ['stix_objects_tid', 0],
      ['stix_objects_unowned', 0],
    ]);
    await assert.rejects(
      sql`insert into stix_objects (id, type, modified, date_added, body, iid, tid, source_hash) values (${sql.join(OBJECTS[1])})`.execute(db),
      /UNIQUE constraint failed: stix_objects\.id/,
    );
  });

  it('takes the upserts of later imports on the id', async () => {
    const [id] = OBJECTS[1];
    await sql`insert into stix_objects (id, type, modified, date_added, body, iid, tid, source_hash)
      values (${id}, 'indicator', '2026-02-01T00:00:00.000Z', 20, '', 7, null, 'h4')
      on conflict (id) do update set modified = excluded.modified, date_added = excluded.date_added, source_hash = excluded.source_hash`.execute(db);
    const { rows } = await sql<{ n: number; modified: string }>`select count(*) as n, max(modified) as modified from stix_objects where id = ${id}`.execute(db);
    assert.deepEqual({ ...rows[0] }, { n: 1, modified: '2026-02-01T00:00:00.000Z' });
  });
});

// Migration 0013 (why and when an indicator retired) on both databases: a store as written at 0012 is made by taking the
// migration's columns and its record away from a current one.
for (const backend of storeBackends()) {
  describe(`migration 0013 on ${backend.name} (why and when an indicator retired)`, () => {
    let store: Store;
    let schema: string | undefined;
    before(async () => {
      const created = await backend.create();
      store = created.store;
      schema = schemaIn(created.location);
      const db = dbOf(store);
      await importDataset(
        store,
        {
          threats: [],
          feeds: [],
          indicators: [
            { iid: 1, indicator: 'before.example.com', type: 'domain', risk: 'retired', stamp_added: '2025-01-01 00:00:00' },
            { iid: 2, indicator: '198.51.100.9', type: 'ip', risk: 'high', stamp_added: '2025-01-01 00:00:00' },
          ],
          links: [],
        },
        { now: () => Date.parse('2026-01-15T10:00:00Z') },
      );
      await rewindFeedHealth(store);
      for (const column of ['retired_reason', 'stamp_retired']) await db.schema.alterTable('indicators').dropColumn(column).execute();
      await sql`delete from threatgate_migrations where name = '0013-indicator-retirement'`.execute(db);
      assert.equal(await migrationsCurrent(db, dialectOf(store), schema), false);
      await migrateToLatest(db, dialectOf(store), schema);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    it('keeps every indicator, with no reason or stamp for a retirement nobody recorded', async () => {
      assert.equal(await migrationsCurrent(dbOf(store), dialectOf(store), schema), true);
      const rows = await dbOf(store).selectFrom('indicators').select(['iid', 'value', 'risk', 'retired_reason', 'stamp_retired']).orderBy('iid').execute();
      assert.deepEqual(rows.map((r) => ({ ...r, iid: Number(r.iid) })), [
        { iid: 1, value: 'before.example.com', risk: 'retired', retired_reason: null, stamp_retired: null },
        { iid: 2, value: '198.51.100.9', risk: 'high', retired_reason: null, stamp_retired: null },
      ]);
      const found = await store.findIndicatorByValue('before.example.com', ['domain']);
      assert.deepEqual([found?.iid, found?.retired, found?.retired_reason, found?.stamp_retired], [1, true, null, null]);
    });
  });
}
