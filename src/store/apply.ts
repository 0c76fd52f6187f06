// The one way data changes: a write (a file's records, a feed pull, a lifecycle run, staff retiring
// a threat, a feed deleted, a sighting or a submission) runs in one transaction, under the write
// lock, through the same stages in a fixed order: ingest, derive, publish, and a new data version.
// A failure anywhere rolls it all back.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { formatStamp, type Clock } from '../clock.js';
import type { AggregatePlan, PullCounts, PullPlan, WriteCommand, WriteKind, WriteOutcomes, WriteResult, WriteSummary } from './contract/commands.js';
import type { WriteBatch } from './contract/write-batch.js';
import { analyzeGrown, raiseWriteMemory, takeWriteLock, withWriteCaches, type Dialect } from './db/dialect.js';
import { writeMeta } from './db/meta.js';
import type { Database } from './db/schema.js';
import { refreshAllAggregates, refreshLookupData } from './derive/derive.js';
import { anyChange } from './changes/change-set.js';
import { analyzeChangeTables } from './changes/change-tables.js';
import { endIngest, ingest, type IngestOutcomes } from './ingest/ingest.js';
import { recordPullState } from './ingest/pull-writer.js';
import { writeRun } from './ingest/run-writes.js';
import type { StixSync } from './publish/stix-sync.js';
import { keepWithdrawnVersions } from './publish/withdrawn-versions.js';
import type { WriteOptions } from './contract/store.js';

/** Changes with every write that changed something: the key of every response cache. */
export const DATA_VERSION_KEY = 'data_version';



/** The batches, the signal checked before each is written. */
async function* untilAborted(batches: AsyncIterable<WriteBatch>, signal: AbortSignal): AsyncIterable<WriteBatch> {
  for await (const batch of batches) {
    signal.throwIfAborted();
    yield batch;
  }
}

/** How a store writes: its STIX projection, and whether a write into an empty store goes in bulk. */
export interface WriteSetup {
  publish: StixSync;
  /** Writes into an empty store in bulk (ImportChanges.fresh); off, it takes the path of every other write. */
  bulkWhenEmpty: boolean;
}

/**
 * SQLite page cache during a write, in KiB (better-sqlite3's default is 16 MB). Tables and indexes
 * mostly grow at their ends (a fresh store's STIX indexes are built after, by sorting), and SQLite
 * lets each sort use as much memory as the cache. A pull looks each listed value's listing, link
 * and indicator up after sorting the values by iid (pull_listed), in the order those are stored;
 * in value order, at random pages, it needed twice this to keep from re-reading the file
 * (bench/README.md, "Source-feed pulls").
 */
const WRITE_CACHE_KIB = 32 * 1024;

const DATA_TABLES = ['threats', 'feeds', 'indicators', 'feed_links', 'threat_links', 'stix_objects'] as const;

/** True when none of the data tables holds a row. */
async function holdsNoData(trx: Transaction<Database>): Promise<boolean> {
  for (const table of DATA_TABLES) {
    if (await trx.selectFrom(table).select(sql<number>`1`.as('one')).limit(1).executeTakeFirst()) return false;
  }
  return true;
}

/** The run of a pull that is kept: ok, or not-modified for a source that answered 304 or gave the same body. */
function writePullRun(trx: Transaction<Database>, plan: PullPlan, counts: PullCounts, clock: Clock): Promise<number> {
  const { values, newIndicators, newLinks, unlisted, churn, threats } = counts;
  return writeRun(
    trx,
    {
      fid: plan.fid,
      report: plan.run,
      finished: clock.now(),
      outcome: plan.repeat ? 'not-modified' : 'ok',
      counts: { values, newIndicators, newLinks, unlisted, churn, threats },
      etag: plan.etag,
      lastModified: plan.lastModified,
    },
    plan.keepRuns,
  );
}

/**
 * The aggregates after a feed delete: the whole-store pass. The update of only the owners a write
 * touched adds what its new links and changed indicators bring to the stored counts and lists
 * (derive/summary-writes.ts: links only come); a delete takes links away, from the threats that
 * shared indicators with the feed too.
 */
async function refreshWhole(trx: Transaction<Database>): Promise<AggregatePlan> {
  await refreshAllAggregates(trx);
  return { whole: true };
}

/** What a kind of write does beside the stages every write goes through. */
interface WriteStages<K extends WriteKind> {
  /** Before anything changes: what the write must read of the store as it was. */
  before?: (trx: Transaction<Database>, command: WriteCommand<K>) => Promise<void>;
  /** The write's aggregates are refreshed by the whole-store pass rather than for the owners it touched. */
  refreshWhole?: true;
  /** What the write gives back beside its summary, from what its ingest gave, once it is published. */
  outcome: (trx: Transaction<Database>, command: WriteCommand<K>, ingested: IngestOutcomes[K], clock: Clock) => Promise<WriteOutcomes[K]>;
}

const given = async <T>(_trx: Transaction<Database>, _command: unknown, ingested: T): Promise<T> => ingested;

const STAGES: { [K in WriteKind]: WriteStages<K> } = {
  records: { outcome: given },
  // The pull's run, in its own transaction: kept with what it wrote, or gone with it. The source's
  // pull state is written last, just before the commit (recordPullState says why).
  pull: {
    outcome: async (trx, { plan }, ingested, clock) => {
      const run = await writePullRun(trx, plan, ingested.pulled, clock);
      await recordPullState(trx, plan);
      return { ...ingested, run };
    },
  },
  lifecycle: { outcome: given },
  'threat-state': { outcome: given },
  allowlist: { outcome: given },
  // A feed delete keeps the STIX versions clients hold of what it withdraws while its feed still renders them.
  'feed-delete': { before: (trx, { plan }) => keepWithdrawnVersions(trx, plan.fid), refreshWhole: true, outcome: given },
  sighting: { outcome: given },
  submission: { outcome: given },
};

export async function applyWrite<K extends WriteKind>(
  db: Kysely<Database>,
  dialect: Dialect,
  setup: WriteSetup,
  command: WriteCommand<K>,
  batches: AsyncIterable<WriteBatch>,
  clock: Clock,
  options: WriteOptions = {},
): Promise<WriteResult<K>> {
  return withWriteCaches(db, dialect, { main: WRITE_CACHE_KIB }, () =>
    db.transaction().execute(async (trx) => {
      await takeWriteLock(trx, dialect);
      await raiseWriteMemory(trx, dialect);
      const stages: WriteStages<K> = STAGES[command.kind];
      await stages.before?.(trx, command);
      const fresh = setup.bulkWhenEmpty && (await holdsNoData(trx));
      const { signal } = options;
      const ingested = await ingest(trx, dialect, command, signal ? untilAborted(batches, signal) : batches, fresh, formatStamp(clock.now()));
      const { changes, end } = ingested;
      signal?.throwIfAborted();
      // Derive and publish read what ingest wrote by key: a large write's tables planned at their new sizes.
      const grown = changes.indicators + changes.feedLinks + changes.threatLinks;
      await analyzeGrown(trx, dialect, grown, ['indicators', 'feed_links', 'threat_links', 'source_listings']);
      await analyzeChangeTables(trx, dialect);
      options.onPhase?.('derive');
      const aggregates = stages.refreshWhole ? await refreshWhole(trx) : await refreshLookupData(trx, dialect, changes);
      signal?.throwIfAborted();
      options.onPhase?.('project');
      await setup.publish(trx, changes, clock, dialect);
      if (anyChange(changes) || changes.pulled || changes.observed) await writeMeta(trx, DATA_VERSION_KEY, `${clock.now()}-${randomBytes(4).toString('hex')}`);
      const own = await stages.outcome(trx, command, ingested.result, clock);
      signal?.throwIfAborted();
      options.onPhase?.('commit');
      await endIngest(trx, ingested);
      const summary: WriteSummary = {
        read: end.read,
        skippedTtps: end.skippedTtps,
        changed: { threats: changes.threats, feeds: changes.feeds, indicators: changes.indicators, links: changes.feedLinks + changes.threatLinks },
        aggregates,
      };
      return { ...summary, ...own };
    }),
  );
}
