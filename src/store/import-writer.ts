// Writes validated import records in batches inside one transaction; unchanged records are not touched.
import { hash } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Feed, Indicator, Link, Threat } from '../domain.js';
import type { ImportRecord } from '../import/record-schemas.js';
import type { Dialect } from './migrations.js';
import type { ImportCounts, ImportSummary } from './records.js';
import type { Database } from './schema.js';
import { bulkInsert, type BulkInsert } from './bulk-insert.js';
import { checkLinkTargets, countChanged, createStaging, dropStaging, LINK_KIND, moveLinks, noteChanged } from './import-staging.js';

/** Arbitrary, fixed: the advisory lock key that serializes imports on PostgreSQL. */
const IMPORT_LOCK_ID = 7_324_861_001;

/**
 * SQLite page cache while an import runs, in KiB (the default is 2 MB). The unique index on STIX ids
 * takes writes at random places, so a cache that holds most of it saves most of the page reads and
 * spills at a million indicators; it is given back when the import ends.
 */
const IMPORT_CACHE_KIB = 128 * 1024;

/** Rows per INSERT: well under SQLite's 32,766 bound parameters for the widest table. */
const BATCH_ROWS = 400;

export interface PositionedRecord {
  position: string;
  record: ImportRecord;
}

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
}

const DATA_TABLES = ['threats', 'feeds', 'indicators', 'feed_links', 'threat_links', 'stix_objects'] as const;

/** True when none of the data tables holds a row. */
async function holdsNoData(trx: Transaction<Database>): Promise<boolean> {
  for (const table of DATA_TABLES) {
    if (await trx.selectFrom(table).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()) return false;
  }
  return true;
}

function contentHash(value: unknown): string {
  return hash('sha256', JSON.stringify(value));
}

const flagToInt = (flag: boolean | null): number | null => (flag === null ? null : flag ? 1 : 0);

function threatRow(t: Threat) {
  return {
    tid: t.tid,
    name: t.threat,
    category: t.category,
    risk: t.risk,
    description: t.description,
    notes: t.notes,
    wikisummary: t.wikisummary,
    wikireference: t.wikireference,
    retired: flagToInt(t.retired),
    stamp_added: t.stamp_added,
    stamp_updated: t.stamp_updated,
    stamp_seen: t.stamp_seen,
    stamp_retired: t.stamp_retired,
    othernames: JSON.stringify(t.othernames),
    attributes: JSON.stringify(t.attributes),
    ttps: JSON.stringify(t.ttps),
    news: JSON.stringify(t.news),
    comments: JSON.stringify(t.comments),
    related: JSON.stringify(t.related),
    content_hash: contentHash(t),
    summary: '{}',
    updated_last_domain: null,
  };
}

function feedRow(f: Feed) {
  return {
    fid: f.fid,
    name: f.feed,
    organization: f.organization,
    name_key: f.feed.toLowerCase(),
    organization_key: f.organization.toLowerCase(),
    category: f.category,
    pricing: f.pricing,
    contact: JSON.stringify(f.contact),
    website: f.website,
    schedule: f.schedule,
    stamp_added: f.stamp_added,
    stamp_updated: f.stamp_updated,
    stamp_pulled: f.stamp_pulled,
    stamp_modified: f.stamp_modified,
    description: f.description,
    accesslink: f.accesslink,
    content_hash: contentHash(f),
    indicators: '{}',
    summary: '{}',
  };
}

function indicatorRow(i: Indicator) {
  return {
    iid: i.iid,
    value: i.indicator,
    type: i.type,
    risk: i.risk,
    stamp_added: i.stamp_added,
    stamp_updated: i.stamp_updated,
    stamp_seen: i.stamp_seen,
    retired: flagToInt(i.retired),
    attributes: JSON.stringify(i.attributes),
    properties: JSON.stringify(i.properties),
    content_hash: contentHash(i),
  };
}

/** The columns an upsert rewrites: all but the key and the computed aggregates. */
function updatableColumns(row: Record<string, unknown>, key: string): string[] {
  return Object.keys(row).filter((c) => c !== key && c !== 'summary' && c !== 'indicators' && c !== 'updated_last_domain');
}

type Table = 'threats' | 'feeds' | 'indicators';

/** The upsert of one table: rows whose content hash is unchanged are left alone. */
function upsertSpec(table: Table, key: 'tid' | 'fid' | 'iid', sample: Record<string, unknown>): BulkInsert {
  const updates = updatableColumns(sample, key).map((c) => `${c} = excluded.${c}`);
  return {
    table,
    columns: Object.keys(sample),
    tail: `on conflict (${key}) do update set ${updates.join(', ')} where ${table}.content_hash <> excluded.content_hash returning ${key}`,
  };
}

/** Upserts rows whose content hash differs; returns the keys actually inserted or changed. */
async function upsert(trx: Transaction<Database>, dialect: Dialect, table: Table, key: 'tid' | 'fid' | 'iid', rows: Record<string, unknown>[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const result = await bulkInsert<Record<string, unknown>>(trx, dialect, upsertSpec(table, key, rows[0]!), rows);
  return result.map((r) => Number(r[key]));
}

const LINK_STAGING: BulkInsert = {
  table: 'import_links',
  columns: ['kind', 'owner', 'iid', 'stamp_linked', 'ordinal', 'position'],
  tail: `on conflict (kind, owner, iid) do update set stamp_linked = excluded.stamp_linked, ordinal = excluded.ordinal, position = excluded.position`,
};

class ImportBatcher {
  private threats = new Map<number, Threat>();
  private feeds = new Map<number, Feed>();
  private indicators = new Map<number, Indicator>();
  private links: { link: Link; ordinal: number; position: string }[] = [];
  private ordinal = 0;
  readonly read: ImportCounts = { threats: 0, feeds: 0, indicators: 0, links: 0 };

  constructor(
    private readonly trx: Transaction<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Takes one record; returns a promise only when a batch is due to be written. */
  add({ position, record }: PositionedRecord): Promise<void> | undefined {
    this.ordinal++;
    switch (record.kind) {
      case 'threat':
        this.read.threats++;
        // Later duplicates win, as in a re-import; one batch must not hold the same key twice.
        this.threats.set(record.value.tid, record.value);
        return this.threats.size >= BATCH_ROWS / 2 ? this.flushThreats() : undefined;
      case 'feed':
        this.read.feeds++;
        this.feeds.set(record.value.fid, record.value);
        return this.feeds.size >= BATCH_ROWS ? this.flushFeeds() : undefined;
      case 'indicator':
        this.read.indicators++;
        this.indicators.set(record.value.iid, record.value);
        return this.indicators.size >= BATCH_ROWS ? this.flushIndicators() : undefined;
      case 'link':
        this.read.links++;
        this.links.push({ link: record.value, ordinal: this.ordinal, position });
        return this.links.length >= BATCH_ROWS * 2 ? this.flushLinks() : undefined;
    }
  }

  async flush(): Promise<void> {
    await this.flushThreats();
    await this.flushFeeds();
    await this.flushIndicators();
    await this.flushLinks();
  }

  private async flushThreats(): Promise<void> {
    const batch = [...this.threats.values()];
    this.threats.clear();
    const changed = await upsert(this.trx, this.dialect, 'threats', 'tid', batch.map(threatRow));
    if (changed.length === 0) return;
    await noteChanged(this.trx, 'changed_threats', changed);
    await this.trx.deleteFrom('threat_names').where('tid', 'in', changed).execute();
    const byTid = new Map(batch.map((t) => [t.tid, t]));
    const names = changed.flatMap((tid) => {
      const t = byTid.get(tid)!;
      const keys = new Set([t.threat, ...t.othernames].map((n) => n.toLowerCase()));
      return [...keys].map((name_key) => ({ name_key, tid }));
    });
    for (let i = 0; i < names.length; i += BATCH_ROWS) {
      await this.trx.insertInto('threat_names').values(names.slice(i, i + BATCH_ROWS)).execute();
    }
  }

  private async flushFeeds(): Promise<void> {
    const batch = [...this.feeds.values()];
    this.feeds.clear();
    await noteChanged(this.trx, 'changed_feeds', await upsert(this.trx, this.dialect, 'feeds', 'fid', batch.map(feedRow)));
  }

  private async flushIndicators(): Promise<void> {
    const batch = [...this.indicators.values()];
    this.indicators.clear();
    await noteChanged(this.trx, 'changed_indicators', await upsert(this.trx, this.dialect, 'indicators', 'iid', batch.map(indicatorRow)));
  }

  /** Links go to a staging table first: their targets may come later in the file. */
  private async flushLinks(): Promise<void> {
    if (this.links.length === 0) return;
    const rows = this.links.map(({ link, ordinal, position }) => ({
      kind: 'fid' in link ? 0 : 1,
      owner: 'fid' in link ? link.fid : link.tid,
      iid: link.iid,
      stamp_linked: link.stamp_linked,
      ordinal,
      position,
    }));
    this.links = [];
    // PostgreSQL refuses one statement that touches a row twice; SQLite applies them in order,
    // which is what keeping the last duplicate does.
    const unique = this.dialect === 'postgres' ? [...new Map(rows.map((r) => [`${r.kind}:${r.owner}:${r.iid}`, r])).values()] : rows;
    await bulkInsert(this.trx, this.dialect, LINK_STAGING, unique);
  }
}

export type RefreshDerived = (trx: Transaction<Database>, changes: ImportChanges) => Promise<void>;

export interface ImportOptions {
  /**
   * Writes an import into an empty store in bulk (see ImportChanges.fresh); on by default. Off, it
   * takes the path of every other import: tests compare the two.
   */
  bulkWhenEmpty?: boolean;
}

/**
 * Runs a whole import in one transaction: any ImportError (or other failure) rolls everything back.
 * `refresh` recomputes what depends on the data (aggregates, page ranks, STIX objects) before commit.
 */
export async function writeImport(
  db: Kysely<Database>,
  dialect: Dialect,
  records: AsyncIterable<PositionedRecord>,
  refresh: RefreshDerived,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  if (dialect !== 'sqlite') return writeInTransaction(db, dialect, records, refresh, options);
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
  await sql.raw(`pragma cache_size = -${IMPORT_CACHE_KIB}`).execute(db);
  try {
    return await writeInTransaction(db, dialect, records, refresh, options);
  } finally {
    await sql.raw(`pragma cache_size = ${Number(rows[0]?.cache_size ?? -2000)}`).execute(db);
  }
}

async function writeInTransaction(
  db: Kysely<Database>,
  dialect: Dialect,
  records: AsyncIterable<PositionedRecord>,
  refresh: RefreshDerived,
  options: ImportOptions,
): Promise<ImportSummary> {
  return db.transaction().execute(async (trx) => {
    // One import at a time: the date_added counter and the aggregates assume it. SQLite's single
    // writer already serializes; PostgreSQL takes a transaction-scoped advisory lock.
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_ID})`.execute(trx);
    const fresh = (options.bulkWhenEmpty ?? true) && (await holdsNoData(trx));
    await createStaging(trx, dialect, fresh);
    const batcher = new ImportBatcher(trx, dialect);
    for await (const item of records) {
      const written = batcher.add(item);
      if (written) await written;
    }
    await batcher.flush();
    await checkLinkTargets(trx);
    const changes: ImportChanges = {
      threats: await countChanged(trx, 'changed_threats'),
      feeds: await countChanged(trx, 'changed_feeds'),
      indicators: await countChanged(trx, 'changed_indicators'),
      feedLinks: await moveLinks(trx, LINK_KIND.feed, fresh),
      threatLinks: await moveLinks(trx, LINK_KIND.threat, fresh),
      fresh,
    };
    await refresh(trx, changes);
    await dropStaging(trx);
    return {
      read: batcher.read,
      changed: { threats: changes.threats, feeds: changes.feeds, indicators: changes.indicators, links: changes.feedLinks + changes.threatLinks },
    };
  });
}
