// What differs between SQLite and PostgreSQL beyond the SQL both speak, each written once: temporary
// tables that end with the transaction, the locks that serialize writes and migrations, indexes set
// aside during a bulk load, and SQLite's page caches during a write.
import { PostgresAdapter, PostgresDialect, sql, type DialectAdapter, type Kysely, type MigrationLockOptions, type RawBuilder } from 'kysely';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** The file of an SQLite store's database, for a connection of its own beside the store's; '' for `:memory:`. */
export async function sqliteFileOf(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ name: string; file: string }>`pragma database_list`.execute(db);
  return rows.find((r) => r.name === 'main')?.file ?? '';
}

/**
 * The tail of a temporary table of one write. PostgreSQL drops it at commit; SQLite keeps temporary
 * tables for the connection's life, so its writers drop them (and drop leftovers of a failed write
 * before creating them).
 */
export function onCommitDrop(dialect: Dialect): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`on commit drop` : sql``;
}

/** Arbitrary, fixed: the seed of the advisory lock key that serializes writes on PostgreSQL. */
const WRITE_LOCK_SEED = 7_324_861_001;

/**
 * One write at a time: the date_added counter and the aggregates assume it. PostgreSQL takes a
 * transaction-scoped advisory lock. Advisory locks belong to the whole database, while the counter
 * and the aggregates belong to one store, which is one schema: the key is a hash of the schema the
 * store's tables resolve to (current_schema(), the search_path of the store's URL), seeded with a
 * fixed number. Every instance on one schema takes the same key and waits for the others; stores in
 * different schemas of one database (test stores, say) never wait for each other. Two schemas whose
 * hashes collide only wait needlessly. SQLite has one writer already, but a transaction that reads
 * first and then meets another connection's commit (a lease taken or renewed by another process)
 * cannot write any more (SQLITE_BUSY_SNAPSHOT): a statement that writes nothing takes the write lock
 * before the first read, waiting busy_timeout for it.
 */
export async function takeWriteLock(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(current_schema(), ${WRITE_LOCK_SEED}))`.execute(trx);
  else await sql`delete from leases where 0`.execute(trx);
}

/** PostgreSQL memory for each sort and hash of a write, in MiB (raiseWriteMemory). */
export const WRITE_WORK_MEM_MIB = 64;

/**
 * PostgreSQL: the rest of the write's transaction sorts and hashes in up to WRITE_WORK_MEM_MIB each
 * (SET LOCAL: the setting ends with the transaction, and a pooler's other clients never see it),
 * unless the server gives more already. Writes run one at a time (takeWriteLock), so this is one
 * connection's memory, while the server's own default (4 MB) stays for every serving query. A
 * pull's insert of hundreds of thousands of new values spends most of its time in the trigram
 * index, whose pending list is merged in work_mem-sized rounds; its statements also group and sort
 * the staged values (bench/README.md, "PostgreSQL: a write's memory, its change set's statistics,
 * and a 2M-value list"). SQLite: nothing to do.
 */
export async function raiseWriteMemory(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select set_config('work_mem', ${`${WRITE_WORK_MEM_MIB}MB`}, true)
    where pg_size_bytes(current_setting('work_mem')) < ${WRITE_WORK_MEM_MIB * 1024 * 1024}`.execute(trx);
}

/**
 * PostgreSQL: runs one statement of a write with nested-loop joins ruled out (SET LOCAL, put back as
 * it was once the statement is done), for a join whose both sides can be far bigger than the
 * statistics say, where a nested loop would rerun its inner side for every outer row. SQLite: runs it
 * as it is. A failed statement aborts the transaction, setting and all.
 */
export async function withoutNestedLoops<T>(trx: Kysely<Database>, dialect: Dialect, run: () => Promise<T>): Promise<T> {
  if (dialect !== 'postgres') return run();
  const { rows } = await sql<{ was: string }>`select current_setting('enable_nestloop') as was`.execute(trx);
  await sql`select set_config('enable_nestloop', 'off', true)`.execute(trx);
  const result = await run();
  await sql`select set_config('enable_nestloop', ${rows[0]!.was}, true)`.execute(trx);
  return result;
}

/** Arbitrary, fixed: the seed of the advisory lock key that serializes migrations on PostgreSQL. */
const MIGRATION_LOCK_SEED = 7_324_861_002;

/**
 * Kysely's PostgreSQL adapter takes one fixed advisory lock around every migration in the database,
 * whichever schema it migrates. This one keys the lock by the schema the migration bookkeeping lives
 * in (createMigrator's migrationTableSchema, the store's schema), as takeWriteLock keys the write
 * lock: instances opening one schema still migrate it one at a time, while stores in different
 * schemas migrate side by side. Like Kysely's, the lock is held by the session, across the
 * migration's transaction; the wait counts against the pool's query timeout (open-store.ts).
 */
class SchemaMigrationLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_lock(hashtextextended(${migrationSchema(options)}, ${MIGRATION_LOCK_SEED}))`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_unlock(hashtextextended(${migrationSchema(options)}, ${MIGRATION_LOCK_SEED}))`.execute(db);
  }
}

const migrationSchema = (options: MigrationLockOptions): string => options.lockTableSchema ?? 'public';

/** Kysely's PostgreSQL dialect with the migration lock taken per schema (SchemaMigrationLockAdapter). */
export class SchemaLockingPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new SchemaMigrationLockAdapter();
  }
}

/**
 * SQLite: runs `fill` without the named indexes (or every index of `table`), then builds each again
 * in one sort, where rows written with the index in place would update it at random pages. The
 * rebuilt index is the one stored (its own CREATE statement). PostgreSQL runs `fill` as it is.
 */
export async function withoutIndexes<T>(
  trx: Kysely<Database>,
  dialect: Dialect,
  which: { index: string } | { table: string },
  fill: () => Promise<T>,
): Promise<T> {
  if (dialect !== 'sqlite') return fill();
  const condition = 'index' in which ? sql`name = ${which.index}` : sql`tbl_name = ${which.table}`;
  const { rows: indexes } = await sql<{ name: string; sql: string }>`
    select name, sql from sqlite_master where type = 'index' and ${condition} and sql is not null order by name`.execute(trx);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(trx);
  const result = await fill();
  for (const index of indexes) await sql.raw(index.sql).execute(trx);
  return result;
}

/** SQLite's page cache sizes, in KiB, during a write; undefined leaves a cache as it is. */
export interface WriteCaches {
  main?: number;
  temp?: number;
}

/**
 * SQLite: runs `write` with the page caches given, then gives back the sizes it found (a pull may
 * set the temporary cache during the write: setTempCache). PostgreSQL runs `write` as it is.
 */
export async function withWriteCaches<T>(db: Kysely<Database>, dialect: Dialect, caches: WriteCaches, write: () => Promise<T>): Promise<T> {
  if (dialect !== 'sqlite') return write();
  const size = async (schema: 'main' | 'temp') => Number((await sql<{ cache_size: number }>`pragma ${sql.raw(schema)}.cache_size`.execute(db)).rows[0]?.cache_size ?? -2000);
  const main = await size('main');
  const temp = await size('temp');
  if (caches.main !== undefined) await setCache(db, 'main', caches.main);
  if (caches.temp !== undefined) await setCache(db, 'temp', caches.temp);
  try {
    return await write();
  } finally {
    await sql.raw(`pragma main.cache_size = ${main}`).execute(db);
    await sql.raw(`pragma temp.cache_size = ${temp}`).execute(db);
  }
}

/** SQLite: the temporary database's page cache for the rest of the write (withWriteCaches gives it back). */
export async function setTempCache(trx: Kysely<Database>, dialect: Dialect, kib: number): Promise<void> {
  if (dialect === 'sqlite') await setCache(trx, 'temp', kib);
}

async function setCache(db: Kysely<Database>, schema: 'main' | 'temp', kib: number): Promise<void> {
  await sql.raw(`pragma ${schema}.cache_size = -${Math.trunc(kib)}`).execute(db);
}

/** From this many rows a write added, PostgreSQL's planner is told the tables' new sizes (analyzeGrown). */
export const ANALYZE_FROM_ROWS = 20_000;

/**
 * PostgreSQL plans each statement from the table statistics autovacuum last gathered, and neither
 * sees a write's own rows before it commits nor ever analyzes a temporary table. A write that adds
 * a million links and then pages through them by key was planned as if the tables were as small as
 * before: a hash join that read the whole of stix_objects for each page (bench/README.md, "Serving
 * while the puller pulls"). ANALYZE in the write's transaction samples its own new rows too,
 * takes no lock that readers or writers wait for, and costs a fraction of a second per table. Its
 * row counts are written in place, so they outlive a write that rolls back, until autovacuum's next
 * analyze of the table corrects them.
 * SQLite plans from its indexes alone here: nothing to do.
 */
export async function analyzeGrown(trx: Kysely<Database>, dialect: Dialect, rows: number, tables: readonly string[]): Promise<void> {
  if (rows >= ANALYZE_FROM_ROWS) await analyze(trx, dialect, tables);
}

/**
 * A write's temporary tables, analyzed once filled, whatever their size. PostgreSQL never analyzes
 * one itself, and plans one it has no statistics for as at least ten pages of rows. Against
 * a store of a hundred thousand indicators that made a hash join reading a whole table cheaper than
 * probing its key for each of the few rows a small pull staged (test/store/hot-query-plans.test.ts).
 * ANALYZE samples, so a table of a few rows costs a few milliseconds at most and one of millions under
 * a second. SQLite plans from its indexes: nothing to do.
 */
export async function analyzeTemporary(trx: Kysely<Database>, dialect: Dialect, tables: readonly string[]): Promise<void> {
  await analyze(trx, dialect, tables);
}

async function analyze(trx: Kysely<Database>, dialect: Dialect, tables: readonly string[]): Promise<void> {
  if (dialect !== 'postgres' || tables.length === 0) return;
  await sql`analyze ${sql.join(tables.map((table) => sql.table(table)))}`.execute(trx);
}
