// The store's side of the lifecycle (docs/interface.md section 3): threats retire when unobserved, staff retire
// and reactivate them, indicators that pulls stopped listing age out. Each runs in an import's
// transaction (apply.ts), so aggregates and STIX versions follow as for any change.
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Dialect } from '../db/dialect.js';
import { laterOf, laterStamp, listingStampOf } from '../db/listing-stamps.js';
import { KEYS_PER_STATEMENT, noteChanged } from '../changes/change-set.js';
import { keepIndicatorRows } from '../changes/replaced-indicators.js';
import type { LifecycleCounts, LifecyclePlan, ThreatStatePlan } from '../contract/commands.js';
import type { IndicatorRetiredReason } from '../contract/records.js';

/**
 * Retires the active threats whose last observation (stamp_seen, else stamp_added) is before the
 * cutoff, and ages out the indicators pulls have listed that no source lists now and none listed
 * since their type's cutoff (unlisted_indicators). A threat already retired keeps its stamp; an indicator
 * already retired is left alone. Changed records are noted for the refresh that follows.
 */
export async function applyLifecycle(trx: Transaction<Database>, plan: LifecyclePlan): Promise<LifecycleCounts> {
  const { rows: threats } = await sql<{ tid: number; name: string }>`
    update threats set retired = 1, stamp_retired = ${plan.at}, content_hash = ''
    where coalesce(retired, 0) = 0 and coalesce(stamp_seen, stamp_added) is not null and coalesce(stamp_seen, stamp_added) < ${plan.threatCutoff}
    returning tid, name`.execute(trx);
  const retiredThreats = threats.map((t) => ({ tid: Number(t.tid), name: t.name })).sort((a, b) => a.tid - b.tid);
  await noteChanged(trx, 'threats', retiredThreats.map((t) => t.tid));

  const types = Object.keys(plan.indicatorCutoffs.byType);
  const cutoff =
    types.length === 0
      ? sql`${plan.indicatorCutoffs.default}`
      : sql`case type ${sql.join(types.map((type) => sql`when ${type} then ${plan.indicatorCutoffs.byType[type]!}`), sql` `)} else ${plan.indicatorCutoffs.default} end`;
  // unlisted_indicators (unlisted-migration.ts) holds exactly the candidates: listed once, listed by
  // no source now, not retired. The latest cutoff bounds the range of its index; each type's cutoff
  // then applies.
  const latest = [plan.indicatorCutoffs.default, ...Object.values(plan.indicatorCutoffs.byType)].sort().at(-1)!;
  const aging = sql`iid in (select u.iid from unlisted_indicators u where u.stamp_unlisted < ${latest})
    and (select u.stamp_unlisted from unlisted_indicators u where u.iid = indicators.iid) < ${cutoff} and risk <> 'retired'`;
  return { retiredThreats, agedIndicators: await retireIndicators(trx, plan.at, aging, 'aged-out') };
}

/**
 * Gives the indicators `which` selects (a condition on `indicators`) the risk `retired` at `at`, and
 * returns how many: each is a changed record, so its STIX indicator gets a new version that expires
 * (`valid_until`), and its row as it was is kept for the aggregates to take away (value-counts.ts).
 * The lifecycle's aging and a pull's withdrawn values (pull-writer.ts) both retire this way, each
 * recording its `reason` and the moment (retired_reason, stamp_retired: the indicator lookup's).
 * A retired indicator no longer ages: it leaves unlisted_indicators.
 */
export async function retireIndicators(trx: Transaction<Database>, at: string, which: RawBuilder<unknown>, reason: IndicatorRetiredReason): Promise<number> {
  await keepIndicatorRows(trx, sql`select iid from indicators where ${which}`);
  const { rows } = await sql<{ iid: number }>`
    update indicators set risk = 'retired', retired_reason = ${reason}, stamp_retired = ${at}, stamp_updated = ${at}, content_hash = ''
    where ${which} returning iid`.execute(trx);
  const iids = rows.map((r) => Number(r.iid));
  await noteChanged(trx, 'indicators', iids);
  for (let i = 0; i < iids.length; i += KEYS_PER_STATEMENT) {
    await trx.deleteFrom('unlisted_indicators').where('iid', 'in', iids.slice(i, i + KEYS_PER_STATEMENT)).execute();
  }
  return rows.length;
}

/**
 * Of the indicators `left` selects, those pulls listed, not retired, that no source lists now start
 * their aging clock: a row in unlisted_indicators with the last time a pull listed them
 * (unlisted-migration.ts); one there already keeps its stamp. Called after their listings are
 * deleted, or before with `leaving`, a feed whose listings are about to go.
 */
export async function markUnlisted(trx: Transaction<Database>, left: RawBuilder<unknown>, leaving?: number): Promise<void> {
  await sql`insert into unlisted_indicators (iid, stamp_unlisted)
    select i.iid, i.stamp_listed from indicators i
    where i.iid in (${left}) and i.stamp_listed is not null and i.risk <> 'retired'
      and not exists (select 1 from source_listings l where l.iid = i.iid${leaving === undefined ? sql`` : sql` and l.fid <> ${leaving}`})
    order by i.iid
    on conflict (iid) do nothing`.execute(trx);
}

/**
 * Before listings go: the indicators `which` selects keep, in their own `stamp_seen` and
 * `stamp_listed`, the stamp their listings gave them (listing-stamps-migration.ts), by feed `fid`
 * or, without one, by every feed listing them. Only the rows whose stamps move are written.
 */
export async function keepListingStamps(trx: Transaction<Database>, dialect: Dialect, which: RawBuilder<unknown>, fid?: number): Promise<void> {
  if (fid !== undefined) {
    // One feed's stamp is one value: the rows are compared with it instead of each probing its listing.
    const row = await trx.selectFrom('listing_stamps').select('stamp_listed').where('fid', '=', fid).executeTakeFirst();
    if (row === undefined) return;
    const at = row.stamp_listed;
    await sql`update indicators set stamp_seen = ${laterOf('stamp_seen', at)}, stamp_listed = ${laterOf('stamp_listed', at)}
      where iid in (${which}) and (stamp_seen is null or stamp_seen < ${at} or stamp_listed is null or stamp_listed < ${at})`.execute(trx);
    return;
  }
  const listed = listingStampOf(sql.ref('indicators.iid'));
  await sql`update indicators set stamp_seen = ${laterStamp(dialect, sql.ref('stamp_seen'), listed)}, stamp_listed = ${laterStamp(dialect, sql.ref('stamp_listed'), listed)}
    where iid in (${which}) and ${listed} is not null`.execute(trx);
}

/**
 * A feed whose pulls stop reading its source's whole list (its source became an incremental one)
 * no longer vouches for its whole listing at each pull: its values keep the stamp it gave them, and
 * from now on its pulls write the stamps of what they list.
 */
export async function dropListingStamp(trx: Transaction<Database>, dialect: Dialect, fid: number): Promise<void> {
  await keepListingStamps(trx, dialect, sql`select iid from source_listings where fid = ${fid}`, fid);
  await trx.deleteFrom('listing_stamps').where('fid', '=', fid).execute();
}

/** The indicators `listed` selects have a listing again: their aging clock stops. */
export async function markListed(trx: Transaction<Database>, listed: RawBuilder<unknown>): Promise<void> {
  await sql`delete from unlisted_indicators where iid in (${listed})`.execute(trx);
}

/**
 * Retires or reactivates a threat by hand; false when it already was in that state. Throws when no
 * threat has the tid. A reactivated threat keeps its stamps; its retirement stamp is cleared.
 */
export async function applyThreatState(trx: Transaction<Database>, plan: ThreatStatePlan): Promise<boolean> {
  const threat = await trx.selectFrom('threats').select(['tid', 'retired']).where('tid', '=', plan.tid).executeTakeFirst();
  if (threat === undefined) throw new Error(`no threat has tid ${plan.tid}`);
  if ((Number(threat.retired ?? 0) === 1) === plan.retired) return false;
  await trx
    .updateTable('threats')
    .set(plan.retired ? { retired: 1, stamp_retired: plan.at, content_hash: '' } : { retired: 0, stamp_retired: null, content_hash: '' })
    .where('tid', '=', plan.tid)
    .execute();
  await noteChanged(trx, 'threats', [plan.tid]);
  return true;
}
