// The store's implementation over a Kysely database: the interface the application calls is
// contract/store.ts.
import { sql, type Kysely } from 'kysely';
import { findFeed, findFeedByName, findLinksPage, findRelatedThreats, findThreat, findThreatByName } from './queries/lookup-queries.js';
import { findIndicator, findIndicatorByValue, findIndicatorProperties, findIndicatorsByValues } from './queries/indicator-queries.js';
import { applyWrite, DATA_VERSION_KEY } from './apply.js';
import { writeGateOf } from './db/write-gate.js';
import type { Store } from './contract/store.js';
import { findKeyByHash, insertKey, KEYS_VERSION_KEY, listKeys, revokeKey } from './queries/key-queries.js';
import { migrationsCurrent } from './db/migrations.js';
import { type Dialect } from './db/dialect.js';
import type { Database } from './db/schema.js';
import { collectionHasObject, listCollectionObjects } from './queries/stix-queries.js';
import { countExportIndicators, exportIndicatorPages } from './queries/export-queries.js';
import { findPullRequest, releaseLeasesOf, requestPull, takePullRequest } from './queries/pull-request-queries.js';
import { dueFeedSources, findFeedSource, listFeedSources, nextFeedId, previewFeedDelete, recordPullFailure, releasePullLease, removeFeedSource, renewPullLease, releaseLease, takeLease, takePullLease, findPullLease, heldDueFeeds } from './queries/source-queries.js';
import { NEXT_SECRET_KEY, newSecret, readMeta, readOrCreateMeta } from './db/meta.js';
import { feedHealthFacts, findValueFacts, listFeedRuns } from './queries/health-queries.js';
import { listAllowlistEntries, previewAllowlistEntry, removeAllowlistEntry } from './queries/allowlist-queries.js';
import { CONSOLE_SECRET_KEY, createConsoleSession, deleteConsoleSession, deleteExpiredConsoleSessions, findConsoleSession } from './queries/session-queries.js';
import { createStixSync, syncCollectionsWithConfig } from './publish/stix-sync.js';
import { createExplorer } from './queries/explore-runner.js';
import { findSubmission, listSightings, listSubmissions, observationCounts } from './queries/observation-queries.js';
import type { CollectionConfig } from '../config.js';

export interface StoreOptions {
  /** The configured TAXII collections: every import keeps their STIX objects and memberships in step. */
  collections: readonly CollectionConfig[];
  /** PostgreSQL schema the store lives in (checked by readiness). */
  schema?: string | undefined;
  /** Sighted indicators get a STIX sighting in their collections (config `stix.sightings`, default true). */
  sightings?: boolean | undefined;
  /** SQLite: how long a write waits for another's lock (the connection's busy timeout, open-store.ts). */
  busyTimeoutMs: number;
}

/**
 * Which write paths a write may take. Production leaves the defaults (createStore's caller in
 * production, openStore, passes none); the differential test (test/store/bulk-import.test.ts)
 * forces each one on a small data set, to hold them equal.
 */
export interface WritePaths {
  /** Writes into an empty store in bulk (default true). */
  bulkWhenEmpty?: boolean;
  /** The fewest indicators of a fresh write that are rendered on a worker thread (default 20,000). */
  renderThreadFrom?: number;
}

/**
 * The store. Every import keeps what derives from the data in step, in its own transaction: link
 * ranks, aggregates, STIX objects and collection memberships. None of it is left to the caller.
 */
export function createStore(db: Kysely<Database>, dialect: Dialect, options: StoreOptions, writePaths: WritePaths = {}): Store {
  const { schema } = options;
  const syncStix = createStixSync(options.collections, { renderThreadFrom: writePaths.renderThreadFrom, sightings: options.sightings ?? true });
  const explorer = createExplorer(db, dialect);
  // The writes a serving process makes wait for another process's write without stopping it (write-gate.ts).
  const gate = writeGateOf(db, dialect, options.busyTimeoutMs);
  const gated =
    <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      await gate.pass();
      return write(...args);
    };
  return {
    findThreat: (tid) => findThreat(db, tid),
    findThreatByName: (name) => findThreatByName(db, name),
    findRelatedThreats: (tids) => findRelatedThreats(db, tids),
    findFeed: (fid) => findFeed(db, fid),
    findFeedByName: (feed, organization) => findFeedByName(db, feed, organization),
    findLinksPage: (owner, page, size) => findLinksPage(db, owner, page, size),
    findIndicator: (iid) => findIndicator(db, iid),
    findIndicatorByValue: (value, types, asGiven) => findIndicatorByValue(db, value, types, asGiven),
    findIndicatorsByValues: (values, types) => findIndicatorsByValues(db, values, types),
    findIndicatorProperties: (iid) => findIndicatorProperties(db, iid),
    insertKey: gated((row) => insertKey(db, row)),
    findKeyByHash: (hash) => findKeyByHash(db, hash),
    listKeys: () => listKeys(db),
    revokeKey: gated((target, at) => revokeKey(db, target, at)),
    keysVersion: async () => (await readMeta(db, KEYS_VERSION_KEY)) ?? 'none',
    nextFeedId: () => nextFeedId(db),
    listFeedSources: () => listFeedSources(db),
    removeFeedSource: (fid) => removeFeedSource(db, fid),
    previewFeedDelete: (fid) => previewFeedDelete(db, fid),
    findFeedSource: (fid) => findFeedSource(db, fid),
    recordPullFailure: (fid, failure) => recordPullFailure(db, fid, failure),
    listFeedRuns: (fid, limit) => listFeedRuns(db, fid, limit),
    feedHealthFacts: (fid) => feedHealthFacts(db, fid),
    findValueFacts: (lookup) => findValueFacts(db, options.collections, lookup),
    listSightings: (target, limit, beforeId) => listSightings(db, target, limit, beforeId),
    observationCounts: (target) => observationCounts(db, target),
    findSubmission: (qid, keyId) => findSubmission(db, qid, keyId),
    listSubmissions: (iid, limit) => listSubmissions(db, iid, limit),
    listAllowlistEntries: () => listAllowlistEntries(db),
    removeAllowlistEntry: gated((entry) => removeAllowlistEntry(db, entry)),
    previewAllowlistEntry: (cover, sampleSize) => previewAllowlistEntry(db, cover, sampleSize),
    dueFeedSources: (now) => dueFeedSources(db, now),
    takePullLease: (fid, owner, now, until) => takePullLease(db, fid, owner, now, until),
    claimPullLease: (fid, owner, now, until) => takePullLease(db, fid, owner, now, until, false),
    findPullLease: (fid) => findPullLease(db, fid),
    heldDueFeeds: (now) => heldDueFeeds(db, now),
    renewPullLease: (fid, owner, until) => renewPullLease(db, fid, owner, until),
    releasePullLease: (fid, owner) => releasePullLease(db, fid, owner),
    requestPull: gated((fid, by, now) => requestPull(db, fid, by, now)),
    findPullRequest: (fid) => findPullRequest(db, fid),
    takePullRequest: (fid) => takePullRequest(db, fid),
    releaseLeasesOf: (owner) => releaseLeasesOf(db, owner),
    takeLease: (name, owner, now, until) => takeLease(db, name, owner, now, until),
    releaseLease: (name, owner) => releaseLease(db, name, owner),
    listCollectionObjects: (listing) => listCollectionObjects(db, listing),
    collectionHasObject: (collection, id) => collectionHasObject(db, collection, id),
    nextTokenSecret: () => readOrCreateMeta(db, NEXT_SECRET_KEY, newSecret),
    consoleSecret: () => readOrCreateMeta(db, CONSOLE_SECRET_KEY, newSecret),
    createConsoleSession: gated((session) => createConsoleSession(db, session)),
    findConsoleSession: (sidHash, now) => findConsoleSession(db, sidHash, now),
    deleteConsoleSession: gated((sidHash) => deleteConsoleSession(db, sidHash)),
    deleteExpiredConsoleSessions: gated((now) => deleteExpiredConsoleSessions(db, now)),
    explore: (query) => explorer.explore(query),
    exportIndicators: (query) => exportIndicatorPages(db, dialect, query),
    countExportIndicators: (selection) => countExportIndicators(db, selection),
    syncCollections: (collections, clock) => syncCollectionsWithConfig(db, dialect, collections, clock),
    applyWrite: async (command, batches, clock, writeOptions = {}) => {
      await gate.pass();
      return applyWrite(db, dialect, { publish: syncStix, bulkWhenEmpty: writePaths.bulkWhenEmpty ?? true }, command, batches, clock, writeOptions);
    },
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
    async close() {
      await explorer.close();
      gate.close();
      await db.destroy();
    },
  };
}
