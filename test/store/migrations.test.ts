// Migrations carry a store written by an earlier release forward without losing or changing its rows.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect } from 'kysely';
import { createMigrator, migrateToLatest, migrationsCurrent } from '../../src/store/db/migrations.js';

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

  it('indexes ids uniquely, and pages, iids and tids as before', async () => {
    const { rows } = await sql<{ name: string; unique: number }>`select name, "unique" from pragma_index_list('stix_objects') order by name`.execute(db);
    assert.deepEqual(rows.map((r) => [r.name, r.unique]), [
      ['stix_objects_id', 1],
      ['stix_objects_iid', 0],
      ['stix_objects_page', 0],
      ['stix_objects_tid', 0],
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
