// PostgreSQL's write and migration locks are per schema: one store's instances wait for each other, stores in other schemas do not.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { takeWriteLock } from '../../src/store/db/dialect.js';
import type { Database } from '../../src/store/db/schema.js';
import { storeBackends, storeOptions, type Backend } from '../helpers/store-backends.js';
import { dbOf, openTestStore } from '../helpers/store-db.js';

const postgres = storeBackends().find((b) => b.name === 'PostgreSQL');

/** PostgreSQL's error when a lock wait passes lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Runs `hold` while `db` holds the store's write lock in an open transaction. */
async function whileHoldingWriteLock(db: Kysely<Database>, hold: () => Promise<void>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await takeWriteLock(trx, 'postgres');
    await hold();
  });
}

/** Takes the write lock on `db`, giving up (PostgreSQL error 55P03) if it is not free within lock_timeout. */
async function tryWriteLock(db: Kysely<Database>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`set local lock_timeout = '1s'`.execute(trx);
    await takeWriteLock(trx, 'postgres');
  });
}

/** Takes and releases the migration lock of `schema` on one connection of `db`, giving up after lock_timeout. */
async function tryMigrationLock(db: Kysely<Database>, schema: string): Promise<void> {
  const adapter = db.getExecutor().adapter;
  const options = { lockTable: 'threatgate_migrations_lock', lockRowId: 'migration_lock', lockTableSchema: schema };
  await db.connection().execute(async (conn) => {
    await sql`set lock_timeout = '1s'`.execute(conn);
    try {
      await adapter.acquireMigrationLock(conn, options);
      await adapter.releaseMigrationLock(conn, options);
    } finally {
      await sql`reset lock_timeout`.execute(conn);
    }
  });
}

const schemaOf = (location: string): string => new URL(location).searchParams.get('schema')!;

describe('PostgreSQL locks', { skip: postgres === undefined ? 'TEST_DATABASE_URL is not set' : false }, () => {
  const backend = postgres as Backend;
  after(() => backend.cleanup());

  describe('the write lock', () => {
    it('keeps a second instance on the same schema waiting while one instance writes', async () => {
      const { store, location } = await backend.create();
      const twin = await openTestStore(location, storeOptions());
      try {
        await whileHoldingWriteLock(dbOf(store), async () => {
          await assert.rejects(tryWriteLock(dbOf(twin)), { code: LOCK_NOT_AVAILABLE });
        });
        await tryWriteLock(dbOf(twin));
      } finally {
        await twin.close();
        await store.close();
      }
    });

    it('lets a store in another schema write meanwhile', async () => {
      const one = await backend.create();
      const other = await backend.create();
      try {
        await whileHoldingWriteLock(dbOf(one.store), () => tryWriteLock(dbOf(other.store)));
      } finally {
        await other.store.close();
        await one.store.close();
      }
    });
  });

  describe('the migration lock', () => {
    it('keeps a migration of the same schema waiting and lets one of another schema through', async () => {
      const one = await backend.create();
      const other = await backend.create();
      const db = dbOf(one.store);
      const adapter = db.getExecutor().adapter;
      const options = { lockTable: 'threatgate_migrations_lock', lockRowId: 'migration_lock', lockTableSchema: schemaOf(one.location) };
      try {
        await db.connection().execute(async (conn) => {
          await adapter.acquireMigrationLock(conn, options);
          try {
            await assert.rejects(tryMigrationLock(dbOf(other.store), schemaOf(one.location)), { code: LOCK_NOT_AVAILABLE });
            await tryMigrationLock(dbOf(other.store), schemaOf(other.location));
          } finally {
            await adapter.releaseMigrationLock(conn, options);
          }
        });
        await tryMigrationLock(dbOf(other.store), schemaOf(one.location));
      } finally {
        await other.store.close();
        await one.store.close();
      }
    });
  });
});
