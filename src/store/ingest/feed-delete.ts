// `feeds delete` in the store (WriteCommand `feed-delete`): a feed, its links, its source and its
// history go in one write (apply.ts); the indicators only it gave stay, retired with the reason
// `feed-deleted`, so the write's publish stage revokes their STIX objects (docs/sources.md).
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { FeedDeleteRefused, type FeedDeleteCounts, type FeedDeletePlan } from '../contract/commands.js';
import type { Database } from '../db/schema.js';
import { LINK_KIND } from '../contract/write-batch.js';
import { noteChanged, noteChangedFrom } from '../changes/change-set.js';
import { keepListingStamps, markUnlisted, retireIndicators } from './lifecycle-writer.js';
import type { Dialect } from '../db/dialect.js';
import { takeListedRisks } from './pull-writer.js';

/**
 * The iids of the indicators that only feed `fid` gives: linked to it, to no other feed, and to no
 * threat but by links its own pulls made (threat_link_sources). A threat link an import made, or
 * another feed's pull, is another source's word for the value, and so is another feed's link.
 */
export function onlyGivenBy(fid: number): RawBuilder<{ iid: number }> {
  return sql<{ iid: number }>`select fl.iid from feed_links fl
    where fl.fid = ${fid}
      and not exists (select 1 from feed_links o where o.iid = fl.iid and o.fid <> ${fid})
      and not exists (select 1 from threat_links tl where tl.iid = fl.iid
        and not exists (select 1 from threat_link_sources s where s.iid = tl.iid and s.tid = tl.tid and s.fid = ${fid}))`;
}

/** The rows of a feed's own that go with it: its links, listings (now and past) and their stamp, pulls' provenance, runs and rejections. */
const FEED_TABLES = ['feed_links', 'source_listings', 'listing_stamps', 'past_listings', 'threat_link_sources', 'feed_runs', 'pull_rejections'] as const;

/**
 * The delete runs under the feed's pull lease, taken by its caller (`feeds delete`), so no pull of
 * the feed is under way or can start: a pull takes the lease first. A feed with a source whose lease
 * is another's (it lapsed and a pull took it), or that got a source since the caller looked, is refused.
 */
async function checkLease(trx: Kysely<Database>, plan: FeedDeletePlan): Promise<void> {
  const source = await trx.selectFrom('feed_sources').select(['lease_owner']).where('fid', '=', plan.fid).executeTakeFirst();
  if (source === undefined || source.lease_owner === plan.leaseOwner) return;
  throw new FeedDeleteRefused(
    plan.leaseOwner === null
      ? `feed ${plan.fid} got a source meanwhile; ask again`
      : `feed ${plan.fid} is being pulled by ${source.lease_owner ?? 'nobody: its lease was released'}; ask again when that pull has finished`,
  );
}

async function count(trx: Kysely<Database>, query: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from (${query}) as c`.execute(trx);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Deletes the feed with what is its own, in the write's transaction. What only it gave is retired
 * (reason `feed-deleted`; the rows stay, so no iid is handed out again and the revoked STIX objects
 * keep their records); every other indicator it named whose created_by_ref it gave (it was their
 * lowest-numbered feed) is noted changed, for a new version naming their next feed's organization.
 * Threat links stay: they are the threat's record; only which feed's pull made them goes. Derive
 * takes the whole-store pass after (apply.ts). Throws FeedDeleteRefused when there is no such feed
 * or its lease is another's.
 */
export async function applyFeedDelete(trx: Transaction<Database>, plan: FeedDeletePlan, dialect: Dialect): Promise<FeedDeleteCounts> {
  const { fid } = plan;
  const feed = await trx.selectFrom('feeds').select(['name', 'organization']).where('fid', '=', fid).executeTakeFirst();
  if (feed === undefined) throw new FeedDeleteRefused(`no feed has fid ${fid}`);
  await checkLease(trx, plan);
  const links = await count(trx, sql`select 1 from feed_links where fid = ${fid}`);
  const retired = await retireIndicators(trx, plan.at, sql`iid in (${onlyGivenBy(fid)})`, 'feed-deleted');
  // The values it listed that other feeds list too take the highest risk among those others' listings,
  // as a pull that drops a value gives it; one no other feed lists keeps its risk.
  await takeListedRisks(trx, plan.at, sql`select iid from source_listings where fid = ${fid}`, fid);
  await noteChangedFrom(trx, 'indicators', sql`select fl.iid from feed_links fl
    where fl.fid = ${fid} and not exists (select 1 from feed_links o where o.iid = fl.iid and o.fid < ${fid})`);
  // Its values keep the stamp its listing gave them; what only this feed lists starts aging as its
  // listings go (aging-migration.ts).
  await keepListingStamps(trx, dialect, sql`select iid from source_listings where fid = ${fid}`, fid);
  await markUnlisted(trx, sql`select iid from source_listings where fid = ${fid}`, fid);
  for (const table of FEED_TABLES) await trx.deleteFrom(table).where('fid', '=', fid).execute();
  await trx.deleteFrom('owner_value_counts').where('kind', '=', LINK_KIND.feed).where('owner', '=', fid).execute();
  await trx.deleteFrom('feed_sources').where('fid', '=', fid).execute();
  await trx.deleteFrom('feeds').where('fid', '=', fid).execute();
  // A changed feed makes the write one that changed something, even for a feed with no links: the
  // data version moves on, and the lookup API's caches with it.
  await noteChanged(trx, 'feeds', [fid]);
  return { feed: feed.name, organization: feed.organization, links, retired };
}
