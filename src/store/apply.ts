// The one way data changes: a write (a file's records, a feed pull, a lifecycle run, staff retiring
// a threat, a feed deleted) runs in one transaction, under the write lock, through the same stages in a fixed
// order: ingest, derive, publish, and a new data version. A failure anywhere rolls it all back.
import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import { formatStamp, type Clock } from '../clock.js';
import type { AggregatePlan, PullCounts, PullPlan, WriteCommand, WriteResult } from './contract/commands.js';
import type { WriteBatch } from './contract/write-batch.js';
import { takeWriteLock, withWriteCaches, type Dialect } from './db/dialect.js';
import { writeMeta } from './db/meta.js';
import type { Database } from './db/schema.js';
import { refreshAllAggregates, refreshLookupData } from './derive/derive.js';
import { anyChange } from './ingest/change-set.js';
import { endIngest, ingest } from './ingest/ingest.js';
import { writeRun } from './ingest/run-writes.js';
import type { StixSync } from './publish/stix-sync.js';
import { keepWithdrawnVersions } from './publish/withdrawn-versions.js';

/** Changes with every write that changed something: the key of every response cache. */
export const DATA_VERSION_KEY = 'data_version';

/** The stages of a write after its batches are written, in order: a progress report may name them. */
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
 * (bench/README.md, pulls).
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

export async function applyWrite<C extends WriteCommand>(
  db: Kysely<Database>,
  dialect: Dialect,
  setup: WriteSetup,
  command: C,
  batches: AsyncIterable<WriteBatch>,
  clock: Clock,
  options: WriteOptions = {},
): Promise<WriteResult<C>> {
  return withWriteCaches(db, dialect, { main: WRITE_CACHE_KIB }, () =>
    db.transaction().execute(async (trx) => {
      await takeWriteLock(trx, dialect);
      // A feed delete keeps the STIX versions clients hold of what it withdraws while its feed still renders them.
      if (command.kind === 'feed-delete') await keepWithdrawnVersions(trx, command.plan.fid);
      const fresh = setup.bulkWhenEmpty && (await holdsNoData(trx));
      const { signal } = options;
      const ingested = await ingest(trx, dialect, command, signal ? untilAborted(batches, signal) : batches, fresh, formatStamp(clock.now()));
      const { changes, end } = ingested;
      signal?.throwIfAborted();
      options.onPhase?.('derive');
      const aggregates = command.kind === 'feed-delete' ? await refreshWhole(trx) : await refreshLookupData(trx, changes);
      signal?.throwIfAborted();
      options.onPhase?.('project');
      await setup.publish(trx, changes, clock, dialect);
      if (anyChange(changes) || changes.pulled) await writeMeta(trx, DATA_VERSION_KEY, `${clock.now()}-${randomBytes(4).toString('hex')}`);
      // The pull's run, in its own transaction: kept with what it wrote, or gone with it.
      const run = command.kind === 'pull' && 'pulled' in ingested.result ? { run: await writePullRun(trx, command.plan, ingested.result.pulled, clock) } : {};
      signal?.throwIfAborted();
      options.onPhase?.('commit');
      await endIngest(trx, ingested);
      return {
        read: end.read,
        ...(end.skippedTtps ? { skippedTtps: end.skippedTtps } : {}),
        changed: { threats: changes.threats, feeds: changes.feeds, indicators: changes.indicators, links: changes.feedLinks + changes.threatLinks },
        ...(aggregates === undefined ? {} : { aggregates }),
        // The command's own result: what ingest gave back for its kind (contract/commands.ts, WriteResults).
        ...ingested.result,
        ...run,
      } as WriteResult<C>;
    }),
  );
}
