// Batched INSERTs: their SQL text (one tuple per row, placeholders numbered on PostgreSQL), and typed rows written into their columns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { bulkInsertText, insertRows, type RowTable } from '../../src/store/db/bulk-insert.js';

const spec = { table: 't', columns: ['a', 'b'], tail: 'on conflict (a) do nothing' };

describe('bulkInsertText', () => {
  it('writes ? placeholders for SQLite', () => {
    assert.equal(bulkInsertText('sqlite', spec, 2), 'insert into t (a, b) values (?, ?), (?, ?) on conflict (a) do nothing');
  });

  it('numbers the placeholders across rows for PostgreSQL', () => {
    assert.equal(bulkInsertText('postgres', spec, 3), 'insert into t (a, b) values ($1, $2), ($3, $4), ($5, $6) on conflict (a) do nothing');
  });

  it('gives each row count and dialect its own text', () => {
    assert.notEqual(bulkInsertText('sqlite', spec, 1), bulkInsertText('sqlite', spec, 2));
    assert.notEqual(bulkInsertText('sqlite', spec, 2), bulkInsertText('postgres', spec, 2));
  });
});

describe('insertRows', () => {
  type Row = [id: number, name: string];
  const table: RowTable<Row> = { table: 'items', columns: ['id', 'name'], fixed: { summary: '{}' }, tail: 'returning id, name, summary' };

  async function withItems(run: (db: Kysely<any>) => Promise<void>): Promise<void> {
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new Database(':memory:') }) });
    try {
      await sql`create table items (id integer primary key, name text not null, summary text not null)`.execute(db);
      await run(db);
    } finally {
      await db.destroy();
    }
  }

  it('writes each row into its columns, and the fixed columns after them', async () => {
    await withItems(async (db) => {
      const returned = await insertRows(db, 'sqlite', table, [[1, 'one'], [2, 'two']]);
      assert.deepEqual(returned, [{ id: 1, name: 'one', summary: '{}' }, { id: 2, name: 'two', summary: '{}' }]);
    });
  });

  it('writes nothing for no rows', async () => {
    await withItems(async (db) => {
      assert.deepEqual(await insertRows(db, 'sqlite', table, []), []);
      assert.deepEqual((await sql`select count(*) as n from items`.execute(db)).rows, [{ n: 0 }]);
    });
  });

  it('refuses a row whose length is not its columns', async () => {
    await withItems(async (db) => {
      const short = [1] as unknown as Row;
      await assert.rejects(insertRows(db, 'sqlite', table, [short]), /a row of 1 values for 2 columns/);
    });
  });
});

describe('insertRows on PostgreSQL, one array per column', { skip: process.env.TEST_DATABASE_URL === undefined && 'TEST_DATABASE_URL is not set' }, () => {
  type Row = [kind: number, value: string, ordinal: number];
  const table: RowTable<Row> = { table: 'staged', columns: ['kind', 'value', 'ordinal'], tail: 'on conflict (kind, value) do nothing', arrays: ['integer', 'text', 'bigint'] };

  it('writes each row into its columns, whatever its text holds, and keeps the tail', async () => {
    const statements: string[] = [];
    const db = new Kysely<any>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 }) }),
      log: (event) => void statements.push(event.query.sql),
    });
    try {
      await db.transaction().execute(async (trx) => {
        await sql`create temporary table staged (kind integer not null, value text not null, ordinal bigint not null, primary key (kind, value)) on commit drop`.execute(trx);
        // Text an array literal would otherwise read as its own syntax: quotes, backslashes, braces, commas, NULL, blanks.
        const odd = ['a "quoted" value', 'back\\slash', '{braced,listed}', 'NULL', '', '  spaced  ', 'ünïcödé', 'x'.repeat(3000)];
        const rows: Row[] = odd.map((value, i) => [i % 2, value, 2 ** 40 + i]);
        await insertRows(trx, 'postgres', table, rows);
        // A repeat of a key goes by the tail: nothing is written again.
        await insertRows(trx, 'postgres', table, [[0, odd[0]!, 1], [1, 'new', 2]]);
        const stored = (await sql<{ kind: number; value: string; ordinal: string }>`select kind, value, ordinal from staged order by ordinal`.execute(trx)).rows;
        assert.deepEqual(
          stored.map((r) => [r.kind, r.value, Number(r.ordinal)]),
          [[1, 'new', 2], ...rows],
        );
      });
      const inserts = statements.filter((text) => text.startsWith('insert'));
      assert.deepEqual(inserts, Array(2).fill('insert into staged (kind, value, ordinal) select * from unnest($1::integer[], $2::text[], $3::bigint[]) on conflict (kind, value) do nothing'));
    } finally {
      await db.destroy();
    }
  });
});
