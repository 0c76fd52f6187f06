// Writes the batches of an import (write-batch.ts) inside one transaction; unchanged records are not touched.
import type { AggregatePlan } from '../derive/derive.js';
import { upsertFeedSource } from '../queries/source-queries.js';
import { applyLifecycle, applyThreatState, type LifecyclePlan, type ThreatStatePlan } from './lifecycle-writer.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from '../db/migrations.js';
import type { ImportSummary } from '../contract/records.js';
import type { Database } from '../db/schema.js';
import { bulkInsertRows } from '../db/bulk-insert.js';
import { KEY_STAGING, LINK_STAGING, UPSERTS, type WriteBatch } from '../contract/write-batch.js';
import { checkKeyConflicts, checkRelatedTargets } from './record-checks.js';
import { keepReplacedIndicators } from '../publish/stix-revocation.js';
import {
  applyPull, createPullStaging, dropPullStaging, REF_THREAT_STAGING, THREAT_DEF_STAGING, VALUE_REF_STAGING, VALUE_STAGING, VALUE_THREAT_STAGING, WITHDRAWN_STAGING,
  type PullPlan,
} from './pull-writer.js';
import { checkLinkTargets, countChanged, createStaging, dropStaging, LINK_KIND, moveLinks, noteChanged } from './change-set.js';

/** Arbitrary, fixed: the advisory lock key that serializes imports on PostgreSQL. */
export const IMPORT_LOCK_ID = 7_324_861_001;

/**
 * SQLite page cache while an import runs, in KiB (better-sqlite3's default is 16 MB). Tables and indexes mostly
 * grow at their ends (a fresh store's STIX indexes are built after, by sorting); SQLite also lets
 * each sort use as much memory as the cache. A fresh import of a million indicators was as fast
 * with 32 MB. A pull looks each listed value's listing, link and indicator up after sorting the
 * values by iid (pull-writer.ts, pull_listed), in the order those are stored: in value order, at
 * random pages, it needed 64 MB to keep from re-reading the file, and no longer gains from it
 * (bench/README.md, pulls). It is given back when the import ends.
 */
const IMPORT_CACHE_KIB = 32 * 1024;

/**
 * How many records an import inserted or changed. Which ones is in the staging tables of the
 * transaction (import-staging.ts), for the refresh that follows in the same transaction.
 */
export interface ImportChanges {
  threats: number;
  feeds: number;
  indicators: number;
  feedLinks: number;
  threatLinks: number;
  /**
   * The store held no data before this import (no records, links or STIX objects): everything in
   * it is new, so later steps may write it in bulk instead of comparing with what was there.
   */
  fresh: boolean;
  /** A feed pull: it changes the feed's pull stamps and sightings even when no record changed. */
  pulled: boolean;
}

const DATA_TABLES = ['threats', 'feeds', 'indicators', 'feed_links', 'threat_links', 'stix_objects'] as const;

/** True when none of the data tables holds a row. */
async function holdsNoData(trx: Transaction<Database>): Promise<boolean> {
  for (const table of DATA_TABLES) {
    if (await trx.selectFrom(table).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()) return false;
  }
  return true;
}

/** Drops an SQLite index; returns the statement that makes it again (undefined when there is none). */
async function dropIndex(trx: Transaction<Database>, name: string): Promise<string | undefined> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'index' and name = ${name}`.execute(trx);
  const text = rows[0]?.sql;
  if (text === undefined) return undefined;
  await sql`drop index ${sql.id(name)}`.execute(trx);
  return text;
}

/** Upserts one batch of rows; returns the keys actually inserted or changed. */
async function upsert(trx: Transaction<Database>, dialect: Dialect, table: keyof typeof UPSERTS, batch: { params: unknown[]; count: number }): Promise<number[]> {
  const { spec, key } = UPSERTS[table];
  const result = await bulkInsertRows<Record<string, unknown>>(trx, dialect, spec, batch.params, batch.count);
  return result.map((r) => Number(r[key]));
}

type EndBatch = Extract<WriteBatch, { kind: 'end' }>;

/** What the batches said so far: the end of the records, and a pull's plan. */
interface BatchState {
  end?: EndBatch;
  pull?: PullPlan;
  lifecycle?: LifecyclePlan;
  threatState?: ThreatStatePlan;
}

/** Writes one batch; the end of the records and a pull's plan go to `state`. */
async function writeBatch(trx: Transaction<Database>, dialect: Dialect, batch: WriteBatch, fresh: boolean, state: BatchState): Promise<void> {
  if (batch.kind === 'pull') {
    if (state.pull !== undefined) throw new Error('an import holds at most one pull');
    state.pull = batch.plan;
    await createPullStaging(trx, dialect);
    return;
  }
  if (batch.kind === 'values') {
    if (state.pull === undefined) throw new Error('pulled values came without their pull');
    await bulkInsertRows(trx, dialect, VALUE_STAGING, batch.params, batch.count);
    await bulkInsertRows(trx, dialect, VALUE_THREAT_STAGING, batch.threats, batch.threatCount);
    if (batch.refs !== undefined) await bulkInsertRows(trx, dialect, VALUE_REF_STAGING, batch.refs, batch.refCount ?? 0);
    if (batch.withdrawn !== undefined) await bulkInsertRows(trx, dialect, WITHDRAWN_STAGING, batch.withdrawn, batch.withdrawnCount ?? 0);
    return;
  }
  if (batch.kind === 'relations') {
    if (state.pull === undefined) throw new Error('pulled relations came without their pull');
    await bulkInsertRows(trx, dialect, REF_THREAT_STAGING, batch.rows, batch.count);
    await bulkInsertRows(trx, dialect, THREAT_DEF_STAGING, batch.defs, batch.defCount);
    return;
  }
  if (batch.kind === 'end') {
    state.end = batch;
    return;
  }
  if (batch.kind === 'lifecycle') {
    state.lifecycle = batch.plan;
    return;
  }
  if (batch.kind === 'threat-state') {
    state.threatState = batch.plan;
    return;
  }
  if (batch.kind === 'sources') {
    // Its feeds came in earlier batches of this transaction.
    for (const [fid, definition] of batch.rows) await upsertFeedSource(trx, fid, definition, batch.stamp);
    return;
  }
  await writeRows(trx, dialect, batch, fresh);
}

/** Writes one batch of records or links. */
async function writeRows(trx: Transaction<Database>, dialect: Dialect, batch: Exclude<WriteBatch, { kind: 'pull' | 'values' | 'relations' | 'sources' | 'lifecycle' | 'threat-state' | 'end' }>, fresh: boolean): Promise<void> {
  if (batch.kind !== 'links') await bulkInsertRows(trx, dialect, KEY_STAGING, batch.keys, batch.count);
  switch (batch.kind) {
    case 'threats': {
      const changed = await upsert(trx, dialect, 'threats', batch);
      if (changed.length === 0) return undefined;
      await noteChanged(trx, 'changed_threats', changed);
      await trx.deleteFrom('threat_names').where('tid', 'in', changed).execute();
      const isChanged = new Set(changed);
      const names = batch.names.filter(([tid]) => isChanged.has(tid)).flatMap(([tid, keys]) => keys.map((name_key) => ({ name_key, tid })));
      for (let i = 0; i < names.length; i += 400) await trx.insertInto('threat_names').values(names.slice(i, i + 400)).execute();
      return undefined;
    }
    case 'feeds':
      await noteChanged(trx, 'changed_feeds', await upsert(trx, dialect, 'feeds', batch));
      return undefined;
    case 'indicators':
      // Into a fresh store nothing is replaced; elsewhere the rows an upsert changes in type or
      // value are kept first, for the revoked version of an indicator that loses its pattern.
      if (!fresh) await keepReplacedIndicators(trx, batch.params, batch.count);
      await noteChanged(trx, 'changed_indicators', await upsert(trx, dialect, 'indicators', batch));
      return undefined;
    case 'links':
      await bulkInsertRows(trx, dialect, LINK_STAGING, batch.params, batch.count);
      return undefined;
  }
}

/** Recomputes what derives from the data; returns how the aggregates were refreshed, for the summary. */
export type RefreshDerived = (trx: Transaction<Database>, changes: ImportChanges) => Promise<AggregatePlan | undefined>;

/**
 * Runs a whole import in one transaction: any ImportError (or other failure) rolls everything back.
 * `refresh` recomputes what depends on the data (aggregates, page ranks, STIX objects) before commit.
 */
export async function writeImport(
  db: Kysely<Database>,
  dialect: Dialect,
  batches: AsyncIterable<WriteBatch>,
  refresh: RefreshDerived,
  /** Writes an import into an empty store in bulk (ImportChanges.fresh); off, it takes the path of every other import. */
  bulkWhenEmpty: boolean,
): Promise<ImportSummary> {
  if (dialect !== 'sqlite') return writeInTransaction(db, dialect, batches, refresh, bulkWhenEmpty);
  const main = await sql<{ cache_size: number }>`pragma main.cache_size`.execute(db);
  // A pull sets its own (createPullStaging); it is given back here too.
  const temp = await sql<{ cache_size: number }>`pragma temp.cache_size`.execute(db);
  await sql.raw(`pragma main.cache_size = -${IMPORT_CACHE_KIB}`).execute(db);
  try {
    return await writeInTransaction(db, dialect, batches, refresh, bulkWhenEmpty);
  } finally {
    await sql.raw(`pragma main.cache_size = ${Number(main.rows[0]?.cache_size ?? -2000)}`).execute(db);
    await sql.raw(`pragma temp.cache_size = ${Number(temp.rows[0]?.cache_size ?? -2000)}`).execute(db);
  }
}

async function writeInTransaction(
  db: Kysely<Database>,
  dialect: Dialect,
  batches: AsyncIterable<WriteBatch>,
  refresh: RefreshDerived,
  bulkWhenEmpty: boolean,
): Promise<ImportSummary> {
  return db.transaction().execute(async (trx) => {
    // One import at a time: the date_added counter and the aggregates assume it. SQLite's single
    // writer already serializes; PostgreSQL takes a transaction-scoped advisory lock.
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_ID})`.execute(trx);
    // SQLite: take the write lock before the first read. A transaction that read first and then meets
    // another connection's commit (a lease taken or renewed by another process) cannot write any more
    // (SQLITE_BUSY_SNAPSHOT); a statement that writes nothing still takes the lock, waiting busy_timeout.
    else await sql`delete from leases where 0`.execute(trx);
    const fresh = bulkWhenEmpty && (await holdsNoData(trx));
    await createStaging(trx, dialect, fresh);
    const state: BatchState = {};
    // Into an empty SQLite store, the index that finds indicators by value (pull-migration.ts) is
    // built once after the rows, in one sort, rather than at a random place for each of them.
    const valueIndex = fresh && dialect === 'sqlite' ? await dropIndex(trx, 'indicators_value') : undefined;
    for await (const batch of batches) await writeBatch(trx, dialect, batch, fresh, state);
    if (valueIndex !== undefined) await sql.raw(valueIndex).execute(trx);
    // The batches end with the counts; without them the records were cut short.
    const { end, pull } = state;
    if (end === undefined) throw new Error('the import records ended without their counts');
    const { read } = end;
    const pulled = pull === undefined ? undefined : await applyPull(trx, pull);
    const lifecycle = state.lifecycle === undefined ? undefined : await applyLifecycle(trx, state.lifecycle);
    const threatState = state.threatState === undefined ? undefined : await applyThreatState(trx, state.threatState);
    await checkKeyConflicts(trx);
    await checkRelatedTargets(trx, end.related);
    await checkLinkTargets(trx);
    const changes: ImportChanges = {
      threats: await countChanged(trx, 'changed_threats'),
      feeds: await countChanged(trx, 'changed_feeds'),
      indicators: await countChanged(trx, 'changed_indicators'),
      feedLinks: await moveLinks(trx, LINK_KIND.feed, fresh),
      threatLinks: await moveLinks(trx, LINK_KIND.threat, fresh),
      fresh,
      pulled: pull !== undefined,
    };
    const aggregates = await refresh(trx, changes);
    await dropStaging(trx);
    if (pull !== undefined) await dropPullStaging(trx);
    return {
      read,
      ...(end.skippedTtps ? { skippedTtps: end.skippedTtps } : {}),
      changed: { threats: changes.threats, feeds: changes.feeds, indicators: changes.indicators, links: changes.feedLinks + changes.threatLinks },
      ...(aggregates === undefined ? {} : { aggregates }),
      ...(pulled === undefined ? {} : { pulled }),
      ...(lifecycle === undefined ? {} : { lifecycle }),
      ...(threatState === undefined ? {} : { threatStateChanged: threatState }),
    };
  });
}
