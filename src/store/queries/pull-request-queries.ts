// "Pull now" requests waiting for the puller, and the leases of a puller that died (docs/architecture.md, the puller).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { PullRequest } from '../contract/records.js';

/**
 * Asks for a pull of the feed now: the request is kept on its source row and the feed made due, so
 * the puller of any instance sharing the store takes it at its next check. A request already
 * waiting stays as it was (asking twice is one pull). Undefined when the feed has no source.
 */
export async function requestPull(db: Kysely<Database>, fid: number, by: string, now: number): Promise<PullRequest | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('feed_sources').select(['pull_requested_at', 'pull_requested_by', 'next_due']).where('fid', '=', fid).executeTakeFirst();
    if (row === undefined) return undefined;
    if (row.pull_requested_at !== null) return { at: Number(row.pull_requested_at), by: row.pull_requested_by };
    const due = row.next_due === null || Number(row.next_due) <= now ? row.next_due : now;
    await trx.updateTable('feed_sources').set({ pull_requested_at: now, pull_requested_by: by, next_due: due }).where('fid', '=', fid).execute();
    return { at: now, by };
  });
}

/** The request waiting for the feed's pull, if any. */
export async function findPullRequest(db: Kysely<Database>, fid: number): Promise<PullRequest | undefined> {
  const row = await db.selectFrom('feed_sources').select(['pull_requested_at', 'pull_requested_by']).where('fid', '=', fid).executeTakeFirst();
  return row?.pull_requested_at == null ? undefined : { at: Number(row.pull_requested_at), by: row.pull_requested_by };
}

/**
 * Clears the waiting request as the puller starts the pull it asked for, and returns it; a request
 * made after this moment waits for the next pull. Called by the lease holder only.
 */
export async function takePullRequest(db: Kysely<Database>, fid: number): Promise<PullRequest | undefined> {
  const request = await findPullRequest(db, fid);
  if (request === undefined) return undefined;
  await db.updateTable('feed_sources').set({ pull_requested_at: null, pull_requested_by: null }).where('fid', '=', fid).where('pull_requested_at', '=', request.at).execute();
  return request;
}

/** Releases every lease (feeds' and named ones) `owner` holds: a puller that died holds none after its restart. The count released. */
export async function releaseLeasesOf(db: Kysely<Database>, owner: string): Promise<number> {
  const feeds = await db.updateTable('feed_sources').set({ lease_owner: null, lease_until: null, lease_since: null }).where('lease_owner', '=', owner).executeTakeFirst();
  const named = await db.deleteFrom('leases').where('owner', '=', owner).executeTakeFirst();
  return Number(feeds.numUpdatedRows) + Number(named.numDeletedRows);
}
