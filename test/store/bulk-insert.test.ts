// The SQL text of batched INSERTs: one tuple per row, placeholders numbered on PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bulkInsertText } from '../../src/store/db/bulk-insert.js';

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
