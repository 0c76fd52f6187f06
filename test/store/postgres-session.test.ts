// The settings every PostgreSQL connection of a store starts with (open-store.ts): its schema first on
// the search path, and no JIT compilation, which cost a write's small statements more than they ran;
// and the memory a write's own transaction sorts in (raiseWriteMemory, db/dialect.ts).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { raiseWriteMemory, WRITE_WORK_MEM_MIB } from '../../src/store/db/dialect.js';

const postgres = storeBackends().find((b) => b.name === 'PostgreSQL');

describe('PostgreSQL session settings', { skip: postgres === undefined ? 'TEST_DATABASE_URL is not set' : false }, () => {
  after(() => postgres?.cleanup());

  it('each pooled connection has JIT off and the store schema on its search path', async () => {
    const { store, location } = await postgres!.create();
    try {
      const schema = new URL(location).searchParams.get('schema');
      // Several at once, so that more than one pooled connection answers.
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => sql<{ jit: string; search_path: string }>`select current_setting('jit') as jit, current_setting('search_path') as search_path, pg_sleep(0.05)`.execute(dbOf(store))),
      );
      for (const { rows } of answers) assert.deepEqual([rows[0]!.jit, rows[0]!.search_path], ['off', schema]);
    } finally {
      await store.close();
    }
  });

  it('a write sorts in more memory for its own transaction only, and never in less than the server gives', async () => {
    const { store } = await postgres!.create();
    const db = dbOf(store);
    const workMem = async (q: typeof db) => (await sql<{ w: string }>`select current_setting('work_mem') as w`.execute(q)).rows[0]!.w;
    try {
      await db.connection().execute(async (connection) => {
        await sql`set work_mem = '4MB'`.execute(connection);
        await connection.transaction().execute(async (trx) => {
          await raiseWriteMemory(trx, 'postgres');
          assert.equal(await workMem(trx), `${WRITE_WORK_MEM_MIB}MB`);
        });
        assert.equal(await workMem(connection), '4MB', 'the connection\'s own setting after the write');
        await sql`set work_mem = '256MB'`.execute(connection);
        await connection.transaction().execute(async (trx) => {
          await raiseWriteMemory(trx, 'postgres');
          assert.equal(await workMem(trx), '256MB', 'a larger setting is kept');
        });
        await sql`reset work_mem`.execute(connection);
      });
    } finally {
      await store.close();
    }
  });
});
