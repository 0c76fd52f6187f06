// Schema migrations, written once with Kysely's schema builder so SQLite and PostgreSQL share them.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import { sourcePulls } from './pull-migration.js';
import { lifecycle } from './lifecycle-migration.js';
import { ownerValueCounts } from './value-counts-migration.js';
import { threatTechniques } from './technique-migration.js';
import { indicatorRetirement } from './retirement-migration.js';
import { feedHealth } from './health-migration.js';
import { runtimeAllowlist } from './allowlist-migration.js';
import { consoleSessions } from './console-migration.js';
import { runChurn } from './churn-migration.js';
import { pullRequests } from './pull-request-migration.js';
import { searchIndexes } from './search-migration.js';
import { observations } from './observation-migration.js';
import { agingIndex } from './aging-migration.js';
import { indicatorsStorage } from './storage-migration.js';
import { unlistedIndicators } from './unlisted-migration.js';
import { listingStamps } from './listing-stamps-migration.js';
import { wildcardValues } from './wildcard-migration.js';
import type { Dialect } from './dialect.js';

/**
 * Every lookup path has an index: threats by tid and by name, feeds by fid and by
 * (name, organization), links by (owner, seq) for pages and by iid for the reverse direction,
 * keys by hash, STIX objects by (date_added, id) for TAXII keyset paging.
 */
function initial(dialect: Dialect): Migration {
  // SQLite makes only `integer primary key` the rowid; PostgreSQL needs bigint for 64-bit ids.
  const id = dialect === 'sqlite' ? 'integer' : 'bigint';
  return {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('threats')
      .addColumn('tid', id, (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull())
      .addColumn('risk', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('notes', 'text')
      .addColumn('wikisummary', 'text')
      .addColumn('wikireference', 'text')
      .addColumn('retired', 'integer')
      .addColumn('stamp_added', 'text')
      .addColumn('stamp_updated', 'text')
      .addColumn('stamp_seen', 'text')
      .addColumn('stamp_retired', 'text')
      .addColumn('othernames', 'text', (c) => c.notNull())
      .addColumn('attributes', 'text', (c) => c.notNull())
      .addColumn('ttps', 'text', (c) => c.notNull())
      .addColumn('news', 'text', (c) => c.notNull())
      .addColumn('comments', 'text', (c) => c.notNull())
      .addColumn('related', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('updated_last_domain', 'text')
      .execute();

    await db.schema
      .createTable('threat_names')
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('tid', id, (c) => c.notNull())
      .addPrimaryKeyConstraint('threat_names_pk', ['name_key', 'tid'])
      .execute();
    await db.schema.createIndex('threat_names_tid').on('threat_names').column('tid').execute();

    await db.schema
      .createTable('feeds')
      .addColumn('fid', id, (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('organization', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('organization_key', 'text', (c) => c.notNull())
      .addColumn('category', 'text', (c) => c.notNull())
      .addColumn('pricing', 'text', (c) => c.notNull())
      .addColumn('contact', 'text', (c) => c.notNull())
      .addColumn('website', 'text', (c) => c.notNull())
      .addColumn('schedule', 'text', (c) => c.notNull())
      .addColumn('stamp_added', 'text')
      .addColumn('stamp_updated', 'text')
      .addColumn('stamp_pulled', 'text')
      .addColumn('stamp_modified', 'text')
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('accesslink', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('indicators', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('feeds_name_org').on('feeds').columns(['name_key', 'organization_key']).execute();

    await db.schema
      .createTable('indicators')
      .addColumn('iid', id, (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('risk', 'text', (c) => c.notNull())
      .addColumn('stamp_added', 'text')
      .addColumn('stamp_updated', 'text')
      .addColumn('stamp_seen', 'text')
      .addColumn('retired', 'integer')
      .addColumn('attributes', 'text', (c) => c.notNull())
      .addColumn('properties', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .execute();

    for (const [table, owner] of [
      ['feed_links', 'fid'],
      ['threat_links', 'tid'],
    ] as const) {
      await db.schema
        .createTable(table)
        .addColumn(owner, id, (c) => c.notNull())
        .addColumn('iid', id, (c) => c.notNull())
        .addColumn('stamp_linked', 'text', (c) => c.notNull())
        .addColumn('seq', id, (c) => c.notNull().defaultTo(-1))
        .addPrimaryKeyConstraint(`${table}_pk`, [owner, 'iid'])
        .execute();
      await db.schema.createIndex(`${table}_page`).on(table).columns([owner, 'seq']).execute();
      await db.schema.createIndex(`${table}_iid`).on(table).column('iid').execute();
    }

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('hash', 'text', (c) => c.notNull().unique())
      .addColumn('plan', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();

    // One row per STIX object: only its latest version is kept (docs/interface.md section 9.4).
    await db.schema
      .createTable('stix_objects')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('modified', 'text', (c) => c.notNull())
      .addColumn('date_added', 'bigint', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('iid', id)
      .addColumn('tid', id)
      .addColumn('source_hash', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('stix_objects_added').on('stix_objects').column('date_added').execute();
    await db.schema.createIndex('stix_objects_iid').on('stix_objects').column('iid').execute();
    await db.schema.createIndex('stix_objects_tid').on('stix_objects').column('tid').execute();

    // Membership of objects in TAXII collections, with the date_added of each object in each.
    await db.schema
      .createTable('collection_objects')
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('modified', 'text', (c) => c.notNull())
      .addColumn('date_added', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('collection_objects_pk', ['collection', 'id'])
      .execute();
    await db.schema
      .createIndex('collection_objects_page')
      .on('collection_objects')
      .columns(['collection', 'date_added', 'id'])
      .unique()
      .execute();

    await db.schema
      .createTable('meta')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();
  },
  };
}


/**
 * Unfiltered collections are served from stix_objects itself, paged by (date_added, id): the index
 * that pages them replaces the one on date_added alone.
 */
const objectsPageIndex: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('stix_objects_added').execute();
    await db.schema.createIndex('stix_objects_page').on('stix_objects').columns(['date_added', 'id']).execute();
  },
};

/**
 * The links' reverse indexes carry the owner too: an indicator's lowest-numbered feed (whose
 * organization is its created_by_ref) is then one index seek, and the aggregates read an iid
 * range's owners from the index alone.
 */
const coveringLinkIndexes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    for (const [table, owner] of [
      ['feed_links', 'fid'],
      ['threat_links', 'tid'],
    ] as const) {
      await db.schema.dropIndex(`${table}_iid`).execute();
      await db.schema.createIndex(`${table}_iid`).on(table).columns(['iid', owner]).execute();
    }
  },
};

/**
 * SQLite: STIX ids become a unique index instead of the table's primary key. A primary key on a
 * text column is an index SQLite cannot drop; this one can be dropped while an import fills an
 * empty store and built again after, in one sort (ids are UUIDs: each insert would otherwise
 * write the index at a random place). The table is rebuilt in one transaction; PostgreSQL keeps
 * its primary key, which serves the same lookups and conflicts.
 */
const stixIdIndex = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    if (dialect !== 'sqlite') return;
    await db.transaction().execute(async (trx) => {
      await sql`create table stix_objects_next (
        id text not null, type text not null, modified text not null, date_added bigint not null,
        body text not null, iid integer, tid integer, source_hash text not null)`.execute(trx);
      await sql`insert into stix_objects_next (id, type, modified, date_added, body, iid, tid, source_hash)
        select id, type, modified, date_added, body, iid, tid, source_hash from stix_objects order by date_added, id`.execute(trx);
      await sql`drop table stix_objects`.execute(trx);
      await sql`alter table stix_objects_next rename to stix_objects`.execute(trx);
      await trx.schema.createIndex('stix_objects_id').on('stix_objects').column('id').unique().execute();
      await trx.schema.createIndex('stix_objects_page').on('stix_objects').columns(['date_added', 'id']).execute();
      await trx.schema.createIndex('stix_objects_iid').on('stix_objects').column('iid').execute();
      await trx.schema.createIndex('stix_objects_tid').on('stix_objects').column('tid').execute();
    });
  },
});

/**
 * An object that leaves the export keeps its row as a final, revoked version (stix-revocation.ts):
 * 1 marks it, so that no later version is written under its id (STIX 2.1 §3.2: revocation is
 * final) and no relationship is made to it. A constant default: no table rewrite on either dialect.
 */
const revokedObjects: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('stix_objects').addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
};

/**
 * Source definitions live in the store, so every instance sees the same ones (docs/sources.md).
 * The definition is the source object as configured: `${env:NAME}` placeholders are kept, resolved
 * values never written. The pull-state columns are for `feeds pull` and the scheduler: the previous
 * pull's validators, the last error and its time, the consecutive failures that set the backoff,
 * and when the feed is next due (milliseconds since the epoch; null: at once). `feeds remove`
 * deletes the row; the feed and its links stay.
 */
const feedSources = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('feed_sources')
      .addColumn('fid', dialect === 'sqlite' ? 'integer' : 'bigint', (c) => c.primaryKey())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('stamp_added', 'text', (c) => c.notNull())
      .addColumn('stamp_updated', 'text', (c) => c.notNull())
      .addColumn('etag', 'text')
      .addColumn('last_modified', 'text')
      .addColumn('last_error', 'text')
      .addColumn('last_error_at', 'text')
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_due', 'bigint')
      .execute();
  },
});

/** `feed_sources.lease_since`: when the holder of a pull lease took it (ms since the epoch), for `feeds list` and a waiting `feeds pull`. */
const leaseSince: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('feed_sources').addColumn('lease_since', 'bigint').execute();
  },
};

/**
 * The objects that belong to no indicator and no threat (identities, attack-patterns) by type: every
 * write's refresh of a filtered collection reads them (collection-views.ts). Without statistics
 * SQLite read them through `stix_objects_tid`, whose null key every indicator object shares, so a
 * small write (a sighting, an allowlist entry) read the whole index; these few rows are an index of
 * their own on both databases.
 */
const unownedObjects: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('stix_objects_unowned').on('stix_objects').columns(['type', 'id']).where(sql.ref('iid'), 'is', null).where(sql.ref('tid'), 'is', null).execute();
  },
};

function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-initial': initial(dialect),
    '0002-objects-page-index': objectsPageIndex,
    '0003-covering-link-indexes': coveringLinkIndexes,
    '0004-stix-id-index': stixIdIndex(dialect),
    '0005-revoked-objects': revokedObjects,
    '0006-feed-sources': feedSources(dialect),
    '0007-owner-value-counts': ownerValueCounts(dialect),
    '0008-source-pulls': sourcePulls(dialect),
    '0010-lifecycle': lifecycle,
    '0011-threat-techniques': threatTechniques(dialect),
    '0012-lease-since': leaseSince,
    '0013-indicator-retirement': indicatorRetirement,
    '0014-feed-health': feedHealth(dialect),
    '0015-runtime-allowlist': runtimeAllowlist(dialect),
    '0016-console-sessions': consoleSessions(dialect),
    '0017-run-churn': runChurn(dialect),
    '0018-pull-requests': pullRequests,
    '0019-search-indexes': searchIndexes(dialect),
    '0020-observations': observations(dialect),
    '0021-unowned-objects': unownedObjects,
    '0022-aging-index': agingIndex,
    '0023-indicators-storage': indicatorsStorage(dialect),
    '0024-unlisted-indicators': unlistedIndicators(dialect),
    '0025-listing-stamps': listingStamps(dialect),
    '0026-wildcard-values': wildcardValues(dialect),
  };
}

/**
 * On PostgreSQL the bookkeeping tables are named with their schema: Kysely looks for them across all
 * schemas, and would otherwise mistake another schema's for ours. The same schema keys the migration
 * lock (SchemaLockingPostgresDialect, dialect.ts), so migrations of different schemas never wait.
 */
export function createMigrator(db: Kysely<any>, dialect: Dialect, schema?: string): Migrator {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const tableSchema = dialect === 'postgres' ? { migrationTableSchema: schema ?? 'public' } : {};
  return new Migrator({ db, provider, ...tableSchema, migrationTableName: 'threatgate_migrations', migrationLockTableName: 'threatgate_migrations_lock' });
}

/** Applies pending migrations; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<any>, dialect: Dialect, schema?: string): Promise<void> {
  const { error, results } = await createMigrator(db, dialect, schema).migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** True when every known migration has been applied (used by readiness checks). */
export async function migrationsCurrent(db: Kysely<any>, dialect: Dialect, schema?: string): Promise<boolean> {
  const list = await createMigrator(db, dialect, schema).getMigrations();
  return list.every((m) => m.executedAt !== undefined);
}
