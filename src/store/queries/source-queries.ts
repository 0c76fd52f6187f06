// Source definitions of feeds (docs/sources.md) and their pull state: one row per pulled feed, keyed by fid.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import type { FeedSourceListing, FeedSourceState, PullLease } from '../contract/records.js';
import type { PullFailure } from '../contract/runs.js';
import { writeRun } from '../ingest/run-writes.js';
import { onlyGivenBy } from '../ingest/feed-delete.js';
import type { FeedDeletePreview } from '../contract/commands.js';


/** The fid after the highest in the store (1 in an empty one). */
export async function nextFeedId(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('feeds').select((eb) => eb.fn.max('fid').as('top')).executeTakeFirst();
  return Number(row?.top ?? 0) + 1;
}

export async function listFeedSources(db: Kysely<Database>): Promise<FeedSourceListing[]> {
  const rows = await db
    .selectFrom('feed_sources as s')
    .innerJoin('feeds as f', 'f.fid', 's.fid')
    .select([
      's.fid', 'f.name', 'f.organization', 'f.schedule', 'f.stamp_pulled', 's.definition', 's.last_error', 's.last_error_at', 's.lease_owner', 's.lease_until', 's.lease_since',
      // The feed_links primary key (fid, iid) counts this from the index.
      (eb) => eb.selectFrom('feed_links as l').select(sql<number>`count(*)`.as('n')).whereRef('l.fid', '=', 's.fid').as('linked'),
    ])
    .orderBy('s.fid')
    .execute();
  return rows.map((r) => ({
    fid: Number(r.fid),
    feed: r.name,
    organization: r.organization,
    schedule: r.schedule,
    stamp_pulled: r.stamp_pulled,
    definition: r.definition,
    last_error: r.last_error,
    last_error_at: r.last_error_at,
    linked: Number(r.linked ?? 0),
    lease:
      r.lease_owner === null || r.lease_until === null
        ? undefined
        : { owner: r.lease_owner, until: Number(r.lease_until), since: r.lease_since === null ? null : Number(r.lease_since) },
  }));
}

/** Stops pulling the feed: its source row goes, the feed and its links stay. True if it had one. */
export async function removeFeedSource(db: Kysely<Database>, fid: number): Promise<boolean> {
  const result = await db.deleteFrom('feed_sources').where('fid', '=', fid).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** What deleting the feed would remove (ingest/feed-delete.ts); undefined when no feed has the fid. */
export async function previewFeedDelete(db: Kysely<Database>, fid: number): Promise<FeedDeletePreview | undefined> {
  const feed = await db.selectFrom('feeds').select(['name', 'organization']).where('fid', '=', fid).executeTakeFirst();
  if (feed === undefined) return undefined;
  const count = async (query: RawBuilder<unknown>) => Number((await sql<{ n: number }>`select count(*) as n from (${query}) as c`.execute(db)).rows[0]?.n ?? 0);
  return {
    fid,
    feed: feed.name,
    organization: feed.organization,
    links: await count(sql`select 1 from feed_links where fid = ${fid}`),
    retired: await count(onlyGivenBy(fid)),
    source: (await db.selectFrom('feed_sources').select('fid').where('fid', '=', fid).executeTakeFirst()) !== undefined,
    runs: await count(sql`select 1 from feed_runs where fid = ${fid}`),
  };
}

export async function findFeedSource(db: Kysely<Database>, fid: number): Promise<FeedSourceState | undefined> {
  const row = await db
    .selectFrom('feed_sources as s')
    .innerJoin('feeds as f', 'f.fid', 's.fid')
    .select(['s.fid', 'f.name', 'f.organization', 'f.schedule', 's.definition', 's.etag', 's.last_modified', 's.failures', 's.cursor', 'f.stamp_pulled', 's.body_hash'])
    .select((eb) => eb.selectFrom('source_listings as l').whereRef('l.fid', '=', 's.fid').select(eb.fn.countAll<number>().as('n')).as('listed'))
    .where('s.fid', '=', fid)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  const { name, ...rest } = row;
  return { ...rest, fid: Number(row.fid), feed: name, failures: Number(row.failures), listed: Number(row.listed ?? 0) };
}

/**
 * A failed pull: its reason and time, one more consecutive failure, and when to retry. Nothing
 * else of the feed changes (stamp_pulled stays).
 */
export async function recordPullFailure(db: Kysely<Database>, fid: number, failure: PullFailure): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('feed_sources')
      .set((eb) => ({ last_error: failure.reason, last_error_at: failure.at, failures: eb('failures', '+', 1), next_due: failure.nextDue }))
      .where('fid', '=', fid)
      .execute();
    // The values a failed pull rejected are not kept: it kept nothing.
    await writeRun(trx, { fid, report: { ...failure.run, rejections: [] }, finished: failure.finished, outcome: 'failed', error: failure.reason, etag: null, lastModified: null }, failure.keepRuns);
  });
}

/** The fids of the sources due at `now` (ms since the epoch) whose lease is free, earliest due first. */
export async function dueFeedSources(db: Kysely<Database>, now: number): Promise<number[]> {
  const rows = await db
    .selectFrom('feed_sources')
    .select('fid')
    .where((eb) => eb.or([eb('next_due', 'is', null), eb('next_due', '<=', now)]))
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy((eb) => eb.fn.coalesce('next_due', sql<number>`0`))
    .orderBy('fid')
    .execute();
  return rows.map((r) => Number(r.fid));
}

/**
 * Takes the feed's pull lease for `owner` until `until`, if the feed is still due and no live lease
 * holds it; true when taken. One statement, so of several instances that try at once one wins; a
 * pull that finished moved next_due on, so a late instance finds the feed no longer due.
 */
export async function takePullLease(db: Kysely<Database>, fid: number, owner: string, now: number, until: number, whenDue = true): Promise<boolean> {
  let update = db
    .updateTable('feed_sources')
    .set({ lease_owner: owner, lease_until: until, lease_since: now })
    .where('fid', '=', fid)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]));
  if (whenDue) update = update.where((eb) => eb.or([eb('next_due', 'is', null), eb('next_due', '<=', now)]));
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Due feeds whose pull lease another holder has now (a crashed instance's holds until it lapses), for the scheduler's log. */
export async function heldDueFeeds(db: Kysely<Database>, now: number): Promise<Array<{ fid: number } & PullLease>> {
  const rows = await db
    .selectFrom('feed_sources')
    .select(['fid', 'lease_owner', 'lease_until', 'lease_since'])
    .where((eb) => eb.or([eb('next_due', 'is', null), eb('next_due', '<=', now)]))
    .where('lease_until', '>=', now)
    .where('lease_owner', 'is not', null)
    .execute();
  return rows.map((r) => ({ fid: Number(r.fid), owner: r.lease_owner!, until: Number(r.lease_until), since: r.lease_since === null ? null : Number(r.lease_since) }));
}

/** Who holds the feed's pull lease, since and until when (ms); undefined when no lease was ever taken or it was released. */
export async function findPullLease(db: Kysely<Database>, fid: number): Promise<PullLease | undefined> {
  const row = await db.selectFrom('feed_sources').select(['lease_owner', 'lease_until', 'lease_since']).where('fid', '=', fid).executeTakeFirst();
  if (row?.lease_owner == null || row.lease_until === null) return undefined;
  return { owner: row.lease_owner, until: Number(row.lease_until), since: row.lease_since === null ? null : Number(row.lease_since) };
}


export async function releasePullLease(db: Kysely<Database>, fid: number, owner: string): Promise<void> {
  await db.updateTable('feed_sources').set({ lease_owner: null, lease_until: null, lease_since: null }).where('fid', '=', fid).where('lease_owner', '=', owner).execute();
}

/** Extends a lease this instance holds; nothing when it lost it. */
export async function renewPullLease(db: Kysely<Database>, fid: number, owner: string, until: number): Promise<void> {
  await db.updateTable('feed_sources').set({ lease_until: until }).where('fid', '=', fid).where('lease_owner', '=', owner).execute();
}

/** Takes the named lease (one not of a feed: the lifecycle run) for `owner` until `until`, when it is free or expired; true when taken. */
export async function takeLease(db: Kysely<Database>, name: string, owner: string, now: number, until: number): Promise<boolean> {
  const rows = await db
    .insertInto('leases')
    .values({ name, owner, until })
    .onConflict((oc) => oc.column('name').doUpdateSet({ owner, until }).where('leases.until', '<', now))
    .returning('name')
    .execute();
  return rows.length > 0;
}

export async function releaseLease(db: Kysely<Database>, name: string, owner: string): Promise<void> {
  await db.deleteFrom('leases').where('name', '=', name).where('owner', '=', owner).execute();
}
