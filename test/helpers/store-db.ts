// The database under a test's store. Tests read and change rows directly (a value as stored, a fault
// the store must survive) and force the store's write paths, which the application never does: the
// Store the application sees has no database handle and no switches.
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { migrateToLatest, migrationsCurrent } from '../../src/store/db/migrations.js';
import { openDatabase, SERVING_BUSY_MS, type OpenDatabase, type OpenStoreOptions } from '../../src/store/open-store.js';
import type { Dialect } from '../../src/store/db/dialect.js';
import type { Database } from '../../src/store/db/schema.js';
import { laterStamp, listingStampOf } from '../../src/store/db/listing-stamps.js';
import { trigramOperatorClass } from '../../src/store/db/search-migration.js';
import { TRIGRAM_PENDING_LIST_KIB } from '../../src/store/db/storage-migration.js';
import { createStore, type WritePaths } from '../../src/store/store.js';
import type { Store } from '../../src/store/contract/store.js';

const opened = new WeakMap<Store, OpenDatabase>();

/** openStore, keeping the database for dbOf; `writePaths` forces a write path (test/store/bulk-import.test.ts). */
export async function openTestStore(location: string, options: OpenStoreOptions & { writePaths?: WritePaths | undefined }): Promise<Store> {
  const database = await openDatabase(location, options);
  const store = createStore(
    database.db,
    database.dialect,
    { collections: options.collections, schema: database.schema, sightings: options.sightings, busyTimeoutMs: options.busyTimeoutMs ?? SERVING_BUSY_MS },
    options.writePaths,
  );
  opened.set(store, database);
  return store;
}

function openedOf(store: Store): OpenDatabase {
  const database = opened.get(store);
  if (database === undefined) throw new Error('this store was not opened by openTestStore (test/helpers/store-db.ts)');
  return database;
}

export const dbOf = (store: Store): Kysely<Database> => openedOf(store).db;
export const dialectOf = (store: Store): Dialect => openedOf(store).dialect;

/**
 * Takes migrations 0014 (feed health), 0015 (the run-time allowlist) and 0016 (console
 * sessions), and 0017 (runs' churn) and 0018 (pull requests) with them, away from a current store, as a store written before them has none of them: their tables, the admin column, their records. Tests that rewind to an earlier
 * migration call it first, as the migrator runs only pending migrations that come after every applied one.
 */
export async function rewindFeedHealth(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindSearchIndexes(store);
  for (const table of ['feed_runs', 'past_listings', 'threat_link_sources', 'pull_rejections', 'allowlist_entries', 'console_sessions']) await db.schema.dropTable(table).execute();
  await db.schema.alterTable('api_keys').dropColumn('admin').execute();
  // 0018's columns of feed_sources go too: migrating forward adds them again.
  await db.schema.alterTable('feed_sources').dropColumn('pull_requested_at').execute();
  await db.schema.alterTable('feed_sources').dropColumn('pull_requested_by').execute();
  // 0015 (the run-time allowlist), 0016 (console sessions), 0017 (runs' churn) and 0018 (pull requests) come after, and go with it.
  await sql`delete from threatgate_migrations where name in ('0014-feed-health', '0015-runtime-allowlist', '0016-console-sessions', '0017-run-churn', '0018-pull-requests')`.execute(db);
}

/**
 * Takes migration 0019 (explore's indexes: search-migration.ts), and 0020 after it, away from a current
 * store: its tables, indexes, and on SQLite the trigram table and its triggers (an index on a column
 * keeps SQLite from dropping the column, as the rewinds of earlier migrations do).
 */
export async function rewindSearchIndexes(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindObservations(store);
  for (const table of ['indicator_networks', 'indicator_attribute_values']) await db.schema.dropTable(table).execute();
  for (const index of ['indicators_type', 'indicators_risk', 'indicators_added', 'indicators_updated', 'indicators_retired', 'indicators_retired_flag']) {
    await db.schema.dropIndex(index).execute();
  }
  if (dialectOf(store) === 'postgres') await db.schema.dropIndex('indicators_value_trigrams').execute();
  else {
    for (const trigger of ['insert', 'update', 'delete']) await sql`drop trigger ${sql.id(`indicator_values_fts_${trigger}`)}`.execute(db);
    await sql`drop table indicator_values_fts`.execute(db);
  }
  await sql`delete from threatgate_migrations where name = '0019-search-indexes'`.execute(db);
}

/** Takes migration 0021 (the index of the objects no indicator or threat owns: migrations.ts) away from a current store. */
export async function rewindUnownedObjects(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindAgingIndex(store);
  await db.schema.dropIndex('stix_objects_unowned').execute();
  await sql`delete from threatgate_migrations where name = '0021-unowned-objects'`.execute(db);
}

/** Takes migration 0020 (observations: observation-migration.ts) away from a current store: its tables and its counter columns. */
export async function rewindObservations(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindUnownedObjects(store);
  for (const table of ['sightings', 'submissions']) await db.schema.dropTable(table).execute();
  // SQLite drops no indexed column.
  for (const index of ['indicators_sightings', 'indicators_submissions', 'indicators_sighted']) await db.schema.dropIndex(index).execute();
  for (const column of ['sightings', 'stamp_sighted', 'stamp_first_sighted', 'submissions']) await db.schema.alterTable('indicators').dropColumn(column).execute();
  for (const column of ['sightings', 'stamp_sighted']) await db.schema.alterTable('threats').dropColumn(column).execute();
  await sql`delete from threatgate_migrations where name = '0020-observations'`.execute(db);
}

/**
 * Takes migration 0026 (wildcard-migration.ts) away from a current store: on PostgreSQL the trigram
 * index goes back onto indicators, with the pending list migration 0023 gave it.
 */
export async function rewindWildcardValues(store: Store): Promise<void> {
  const db = dbOf(store);
  if (dialectOf(store) === 'postgres') {
    await sql`create index indicators_value_trigrams on indicators using gin (lower(value) ${sql.raw(await trigramOperatorClass(db))})
      with (gin_pending_list_limit = ${sql.raw(String(TRIGRAM_PENDING_LIST_KIB))})`.execute(db);
    for (const change of ['insert', 'update', 'delete']) {
      await sql`drop trigger ${sql.id(`indicator_wildcard_values_${change}`)} on indicators`.execute(db);
      await sql`drop function ${sql.id(`indicator_wildcard_values_${change}`)}()`.execute(db);
    }
    await db.schema.dropTable('indicator_wildcard_values').execute();
  }
  await sql`delete from threatgate_migrations where name = '0026-wildcard-values'`.execute(db);
}

/**
 * Takes migration 0025 (listing-stamps-migration.ts) away from a current store: each indicator's
 * stamps take its listings' again, as the pulls before it wrote them on every listed row.
 */
export async function rewindListingStamps(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindWildcardValues(store);
  const listed = listingStampOf(sql.ref('indicators.iid'));
  const dialect = dialectOf(store);
  await sql`update indicators set stamp_seen = ${laterStamp(dialect, sql.ref('stamp_seen'), listed)}, stamp_listed = ${laterStamp(dialect, sql.ref('stamp_listed'), listed)}
    where ${listed} is not null`.execute(db);
  await db.schema.dropTable('listing_stamps').execute();
  await sql`delete from threatgate_migrations where name = '0025-listing-stamps'`.execute(db);
}

/**
 * Takes migration 0024 (unlisted-migration.ts) away from a current store: the aging stamps go back
 * into their column of indicators, under its partial index (migration 0022's).
 */
export async function rewindUnlistedIndicators(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindListingStamps(store);
  await db.schema.alterTable('indicators').addColumn('stamp_unlisted', 'text').execute();
  await sql`update indicators set stamp_unlisted = (select u.stamp_unlisted from unlisted_indicators u where u.iid = indicators.iid)
    where iid in (select iid from unlisted_indicators)`.execute(db);
  await db.schema.createIndex('indicators_aging').on('indicators').columns(['stamp_unlisted', 'iid'])
    .where('stamp_unlisted', 'is not', null).where(sql.ref('risk'), '<>', 'retired').execute();
  await db.schema.dropTable('unlisted_indicators').execute();
  await sql`delete from threatgate_migrations where name = '0024-unlisted-indicators'`.execute(db);
}

/** Takes migration 0023 (storage-migration.ts) away from a current store: PostgreSQL's defaults for indicators again. */
export async function rewindIndicatorsStorage(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindUnlistedIndicators(store);
  if (dialectOf(store) === 'postgres') {
    await sql`alter table indicators reset (fillfactor)`.execute(db);
    await sql`alter index indicators_value_trigrams reset (gin_pending_list_limit)`.execute(db);
  }
  await sql`delete from threatgate_migrations where name = '0023-indicators-storage'`.execute(db);
}

/** Takes migration 0022 (aging-migration.ts) away from a current store: the aging index and its column. */
export async function rewindAgingIndex(store: Store): Promise<void> {
  const db = dbOf(store);
  await rewindIndicatorsStorage(store);
  await db.schema.dropIndex('indicators_aging').execute();
  await db.schema.alterTable('indicators').dropColumn('stamp_unlisted').execute();
  await sql`delete from threatgate_migrations where name = '0022-aging-index'`.execute(db);
}

/**
 * Runs the migrations a rewind took away from the store opened at `location` (rewind* above),
 * checking that some were pending and none are after.
 */
export async function migrateRewound(store: Store, location: string): Promise<void> {
  const db = dbOf(store);
  const schema = location.startsWith('postgres') ? (new URL(location).searchParams.get('schema') ?? undefined) : undefined;
  assert.equal(await migrationsCurrent(db, dialectOf(store), schema), false, 'no migration was pending');
  await migrateToLatest(db, dialectOf(store), schema);
  assert.equal(await migrationsCurrent(db, dialectOf(store), schema), true, 'migrations are still pending');
}
