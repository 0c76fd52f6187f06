// Batched INSERTs: their SQL text (one tuple per row, placeholders numbered on PostgreSQL), and typed rows written into their columns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
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
