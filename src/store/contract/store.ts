// The store's interface: everything the application asks of its data, whatever database holds it.
// The implementation (store.ts, createStore) and both databases pass one contract suite
// (test/store/store-contract.test.ts); this file imports only other contracts.
import type { Clock } from '../../clock.js';
import type { JsonObject, Risk } from '../../domain.js';
import type { CollectionConfig } from '../../config.js';
import type { FeedDeletePreview, IndicatorCover, WriteCommand, WriteKind, WriteResult } from './commands.js';
import type {
  AllowlistEntry, AllowlistPreview, ApiKeyRecord, CollectionRef, ConsoleSession, ExportQuery, ExportRow, ExportSelection, FeedRecord,
  FeedSourceListing, FeedSourceState, IndicatorRecord, LinkOwner, LinksPage, NewConsoleSession, NewKeyRow, ObjectListing, ObjectPage,
  PullLease, PullRequest, RelatedThreat, ThreatRecord,
} from './records.js';
import type { FeedHealthFacts, FeedRun, PullFailure, ValueFacts } from './runs.js';
import type { WriteBatch } from './write-batch.js';
import type { ExploreQuery, ExploreResult } from './explore.js';
import type { ObservationCounts, SightingRecord, SightingTarget, SubmissionRecord } from './observations.js';

/** An indicator named by another's lookup: a block holding an address, a related indicator of `get=links`. */
export interface IndicatorRef {
  iid: number;
  indicator: string;
  type: string;
  risk: Risk;
  /** Its risk is `retired`, or an import set its retired flag. */
  retired: boolean;
}

/** The stages a write goes through after its batches, reported as each begins. */
export type WritePhase = 'derive' | 'project' | 'commit';

export interface WriteOptions {
  /** Hears each stage as it starts (a terminal's progress, the import profiler). */
  onPhase?: (phase: WritePhase) => void;
  /**
   * Stops the write (a shutdown): checked before each batch and each stage, and before the commit, so
   * an aborted write rolls back within one batch or stage rather than running to its end.
   */
  signal?: AbortSignal | undefined;
}

export interface Store {

  findThreat(tid: number): Promise<ThreatRecord | undefined>;
  findThreatByName(name: string): Promise<ThreatRecord | undefined>;
  findRelatedThreats(tids: readonly number[]): Promise<RelatedThreat[]>;
  findFeed(fid: number): Promise<FeedRecord | undefined>;
  findFeedByName(feed: string, organization: string): Promise<FeedRecord | undefined>;
  findLinksPage(owner: LinkOwner, page: number, size: number): Promise<LinksPage>;
  findIndicator(iid: number): Promise<IndicatorRecord | undefined>;
  /**
   * The indicator of a normalized value stored under one of `types` (the lowest iid when several
   * are), else of the value `asGiven`, for a value an import stored unnormalized.
   */
  findIndicatorByValue(value: string, types: readonly string[], asGiven?: string): Promise<IndicatorRecord | undefined>;
  /** The indicators stored under any of `values` with one of `types`, newest (highest iid) first; the blocks holding an address are asked so. */
  findIndicatorsByValues(values: readonly string[], types: readonly string[]): Promise<IndicatorRef[]>;
  /** The indicator's stored free-form properties (`get=properties`); undefined when no indicator has the iid. */
  findIndicatorProperties(iid: number): Promise<JsonObject | undefined>;

  insertKey(row: NewKeyRow): Promise<void>;
  findKeyByHash(hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(target: { id: string } | { hash: string }, at: string): Promise<string | undefined>;
  /** A token that changes whenever a key is revoked (key caches compare it). */
  keysVersion(): Promise<string>;

  /** The fid a new feed gets: one more than the highest. */
  nextFeedId(): Promise<number>;
  listFeedSources(): Promise<FeedSourceListing[]>;
  /** Stops pulling a feed (its data stays); false when it had no source. */
  removeFeedSource(fid: number): Promise<boolean>;
  /** What deleting a feed (the write `feed-delete`) would remove now; undefined when no feed has the fid. */
  previewFeedDelete(fid: number): Promise<FeedDeletePreview | undefined>;
  /** A feed's source and the state a pull starts from; undefined when the feed has no source. */
  findFeedSource(fid: number): Promise<FeedSourceState | undefined>;
  /** Records a failed pull (docs/sources.md): the reason and time, one more failure, the retry time, and its run (docs/interface.md section 12); no data changes. */
  recordPullFailure(fid: number, failure: PullFailure): Promise<void>;
  /** The feed's latest runs (docs/interface.md section 12.3), newest first. */
  listFeedRuns(fid: number, limit: number): Promise<FeedRun[]>;
  /** What each feed's health is computed from: one per feed with a source or runs, ascending fid; with `fid`, that feed's alone. */
  feedHealthFacts(fid?: number): Promise<FeedHealthFacts[]>;
  /**
   * What the store knows of a value (docs/interface.md section 12.4): its indicator under the normalized value
   * and `types` (as findIndicatorByValue finds it), the feeds and threats linked to it and what
   * linked them, the last rejection of the value (normalized or as given) by a pull, and the
   * collections it is in. `types` empty: only the rejection.
   */
  findValueFacts(lookup: { value: string; types: readonly string[]; asGiven: string }): Promise<ValueFacts>;

  /**
   * The latest sightings of an indicator or a threat (docs/observations.md), newest (highest id)
   * first, at most `limit`; with `beforeId`, those older than that sighting (the next page).
   */
  listSightings(target: SightingTarget, limit: number, beforeId?: number): Promise<SightingRecord[]>;
  /** What an indicator's or a threat's observations add up to; undefined when it is not stored. */
  observationCounts(target: SightingTarget): Promise<ObservationCounts | undefined>;
  /** The submission `qid` if the key `keyId` made it; undefined for another key's or none. */
  findSubmission(qid: number, keyId: string): Promise<SubmissionRecord | undefined>;
  /** The latest submissions of an indicator, newest first, at most `limit` (`why`, the console). */
  listSubmissions(iid: number, limit: number): Promise<SubmissionRecord[]>;

  /** The allowlist entries added at run time (docs/interface.md section 13), oldest first; adding one is a write (`allowlist` command). */
  listAllowlistEntries(): Promise<AllowlistEntry[]>;
  /** Removes a run-time entry; false when there was none. */
  removeAllowlistEntry(entry: string): Promise<boolean>;
  /** The dry run of adding an entry: how many stored indicators it would retire now, and the first `sampleSize`. */
  previewAllowlistEntry(cover: IndicatorCover, sampleSize: number): Promise<AllowlistPreview>;
  /** Sources due at `now` (ms since the epoch) that no instance holds a lease on. */
  dueFeedSources(now: number): Promise<number[]>;
  /** Takes a due feed's pull lease until `until` (ms); false when another instance holds it or it is no longer due. */
  takePullLease(fid: number, owner: string, now: number, until: number): Promise<boolean>;
  /** Takes the feed's pull lease whether or not it is due (`feeds pull`); false when a live lease of another holds it. */
  claimPullLease(fid: number, owner: string, now: number, until: number): Promise<boolean>;
  /** The feed's pull lease as stored (it may have expired); undefined when none is held. */
  findPullLease(fid: number): Promise<PullLease | undefined>;
  /** Due feeds whose lease another holder has at `now`. */
  heldDueFeeds(now: number): Promise<Array<{ fid: number } & PullLease>>;
  renewPullLease(fid: number, owner: string, until: number): Promise<void>;
  releasePullLease(fid: number, owner: string): Promise<void>;
  /** Asks for a pull of the feed now (a "Pull now"), making it due; an earlier request still waiting is kept. Undefined: the feed has no source. */
  requestPull(fid: number, by: string, now: number): Promise<PullRequest | undefined>;
  /** The "Pull now" waiting for the feed's puller, if any. */
  findPullRequest(fid: number): Promise<PullRequest | undefined>;
  /** Clears and returns the waiting request, as the lease holder starts the pull it asked for. */
  takePullRequest(fid: number): Promise<PullRequest | undefined>;
  /** Releases every lease `owner` holds (a puller that died, at its restart); the count released. */
  releaseLeasesOf(owner: string): Promise<number>;
  /** A lease that is not a feed's (`lifecycle`): taken when free or expired; false when another instance holds it. */
  takeLease(name: string, owner: string, now: number, until: number): Promise<boolean>;
  releaseLease(name: string, owner: string): Promise<void>;

  listCollectionObjects(listing: ObjectListing): Promise<ObjectPage>;
  collectionHasObject(collection: CollectionRef, id: string): Promise<boolean>;
  /** The secret that signs TAXII `next` tokens, created once and shared by every instance. */
  nextTokenSecret(): Promise<string>;
  /** The secret that signs console session cookies and CSRF tokens (docs/interface.md section 14), created once and shared by every instance. */
  consoleSecret(): Promise<string>;
  /** Opens a console session (login): its id's hash, its admin key's hash, when it ends. */
  createConsoleSession(session: NewConsoleSession): Promise<void>;
  /** The session under `sidHash` if it is live at `now` (ms) and its key is still an active admin key. */
  findConsoleSession(sidHash: string, now: number): Promise<ConsoleSession | undefined>;
  /** Ends a session (logout); false when there was none. */
  deleteConsoleSession(sidHash: string): Promise<boolean>;
  /** Removes the sessions ended by `now` (ms); the count removed. */
  deleteExpiredConsoleSessions(now: number): Promise<number>;
  /**
   * A collection's active indicators a page at a time (the plain-text and CSV exports): in ascending
   * iid, or with `max` the ones it keeps, in the order it chooses them (docs/interface.md section 11).
   */
  exportIndicators(query: ExportQuery): AsyncIterable<ExportRow[]>;
  /**
   * A page of an explore or search query over the whole store (docs/explore.md), newest first; a
   * query still running after its `maxMillis` stops with `timedOut`.
   */
  explore(query: ExploreQuery): Promise<ExploreResult>;
  /** How many indicators an export lists (before `max`). */
  countExportIndicators(selection: ExportSelection): Promise<number>;
  /** Rebuilds collection memberships when the configured collections changed; true if it did. */
  syncCollections(collections: readonly CollectionConfig[], clock: Clock): Promise<boolean>;

  /**
   * The one way data changes (apply.ts): a command (a file's records, a feed pull, a lifecycle run,
   * a threat retired or reactivated, a feed deleted) and its batches (contract/write-batch.ts, built by src/import
   * or src/sources) are written, then what derives from them (link ranks, aggregates, STIX objects
   * and collections) follows, all in one transaction. The result is the command's own.
   */
  applyWrite<K extends WriteKind>(command: WriteCommand<K>, batches: AsyncIterable<WriteBatch>, clock: Clock, options?: WriteOptions): Promise<WriteResult<K>>;
  /** A token that changes whenever an import changes the data (caches compare it). */
  dataVersion(): Promise<string>;
  /** True when the store has no threats, feeds or indicators. */
  isEmpty(): Promise<boolean>;
  /** Throws when the database cannot be reached or its schema is behind the code. */
  checkReady(): Promise<void>;
  close(): Promise<void>;
}
