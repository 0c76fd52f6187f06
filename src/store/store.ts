// The store contract the application calls, and its implementation over a Kysely database.
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { findFeed, findFeedByName, findLinksPage, findRelatedThreats, findThreat, findThreatByName } from './lookup-queries.js';
import { randomBytes } from 'node:crypto';
import { anyChange, refreshLookupData } from './derived-data.js';
import { writeImport, type ImportChanges, type ImportOptions } from './import-writer.js';
import type { WriteBatch } from './write-batch.js';
import { findKeyByHash, insertKey, KEYS_VERSION_KEY, listKeys, revokeKey, type NewKeyRow } from './key-queries.js';
import { migrationsCurrent, type Dialect } from './migrations.js';
import type { ApiKeyRecord, FeedRecord, ImportSummary, LinkOwner, LinksPage, RelatedThreat, ThreatRecord } from './records.js';
import type { Database } from './schema.js';
import { collectionHasObject, listCollectionObjects, type CollectionRef, type ListedObject, type ObjectListing } from './stix-queries.js';
import { NEXT_SECRET_KEY, newSecret, readMeta, readOrCreateMeta, writeMeta } from './meta-queries.js';

/** Changes with every import that changed something: the key of every response cache. */
const DATA_VERSION_KEY = 'data_version';
import { syncCollectionsWithConfig } from './stix-sync.js';
import type { CollectionConfig } from '../config.js';

/** A step run inside every import transaction after the lookup data is refreshed (e.g. STIX objects). */
export type ImportHook = (trx: Kysely<Database>, changes: ImportChanges, clock: Clock, dialect: Dialect) => Promise<void>;

export interface Store {
  readonly dialect: Dialect;
  /** For store modules of other surfaces (TAXII); SQL stays inside src/store. */
  readonly db: Kysely<Database>;

  findThreat(tid: number): Promise<ThreatRecord | undefined>;
  findThreatByName(name: string): Promise<ThreatRecord | undefined>;
  findRelatedThreats(tids: readonly number[]): Promise<RelatedThreat[]>;
  findFeed(fid: number): Promise<FeedRecord | undefined>;
  findFeedByName(feed: string, organization: string): Promise<FeedRecord | undefined>;
  findLinksPage(owner: LinkOwner, page: number, size: number): Promise<LinksPage>;

  insertKey(row: NewKeyRow): Promise<void>;
  findKeyByHash(hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(target: { id: string } | { hash: string }, at: string): Promise<string | undefined>;
  /** A token that changes whenever a key is revoked (key caches compare it). */
  keysVersion(): Promise<string>;

  listCollectionObjects(listing: ObjectListing): Promise<{ items: ListedObject[]; more: boolean }>;
  collectionHasObject(collection: CollectionRef, id: string): Promise<boolean>;
  /** The secret that signs TAXII `next` tokens, created once and shared by every instance. */
  nextTokenSecret(): Promise<string>;
  /** Rebuilds collection memberships when the configured collections changed; true if it did. */
  syncCollections(collections: readonly CollectionConfig[], clock: Clock): Promise<boolean>;

  /**
   * The one way data gets in: write batches (write-batch.ts, built by src/import from a file, a
   * data set or a feed pull) are written, then what derives from them (link ranks, aggregates, STIX
   * objects and collections) follows, all in one transaction.
   */
  applyImport(batches: AsyncIterable<WriteBatch>, clock: Clock, options?: ImportOptions): Promise<ImportSummary>;
  /** A token that changes whenever an import changes the data (caches compare it). */
  dataVersion(): Promise<string>;
  /** True when the store has no threats, feeds or indicators. */
  isEmpty(): Promise<boolean>;
  /** Throws when the database cannot be reached or its schema is behind the code. */
  checkReady(): Promise<void>;
  close(): Promise<void>;
}

export function createStore(db: Kysely<Database>, dialect: Dialect, importHooks: readonly ImportHook[] = [], schema?: string): Store {
  return {
    dialect,
    db,
    findThreat: (tid) => findThreat(db, tid),
    findThreatByName: (name) => findThreatByName(db, name),
    findRelatedThreats: (tids) => findRelatedThreats(db, tids),
    findFeed: (fid) => findFeed(db, fid),
    findFeedByName: (feed, organization) => findFeedByName(db, feed, organization),
    findLinksPage: (owner, page, size) => findLinksPage(db, owner, page, size),
    insertKey: (row) => insertKey(db, row),
    findKeyByHash: (hash) => findKeyByHash(db, hash),
    listKeys: () => listKeys(db),
    revokeKey: (target, at) => revokeKey(db, target, at),
    keysVersion: async () => (await readMeta(db, KEYS_VERSION_KEY)) ?? 'none',
    listCollectionObjects: (listing) => listCollectionObjects(db, listing),
    collectionHasObject: (collection, id) => collectionHasObject(db, collection, id),
    nextTokenSecret: () => readOrCreateMeta(db, NEXT_SECRET_KEY, newSecret),
    syncCollections: (collections, clock) => syncCollectionsWithConfig(db, collections, clock),
    applyImport: (batches, clock, options) =>
      writeImport(
        db,
        dialect,
        batches,
        async (trx, changes) => {
          await refreshLookupData(trx, changes);
          for (const hook of importHooks) await hook(trx, changes, clock, dialect);
          if (anyChange(changes)) await writeMeta(trx, DATA_VERSION_KEY, `${clock.now()}-${randomBytes(4).toString('hex')}`);
        },
        options,
      ),
    dataVersion: async () => (await readMeta(db, DATA_VERSION_KEY)) ?? 'empty',
    async isEmpty() {
      for (const table of ['threats', 'feeds', 'indicators'] as const) {
        if (await db.selectFrom(table).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()) return false;
      }
      return true;
    },
    async checkReady() {
      await sql`select 1`.execute(db);
      if (!(await migrationsCurrent(db, dialect, schema))) throw new Error('database migrations are not current');
    },
    close: () => db.destroy(),
  };
}
