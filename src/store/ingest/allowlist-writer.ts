// The store's side of the run-time allowlist (docs/interface.md section 13): an entry is kept, and the stored indicators
// it covers retire in the same write (apply.ts), so their STIX versions expire as any retirement's do.
// The dry run reads the same scan, so the count it reports is what adding the entry retires.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { AllowlistCounts, AllowlistPlan, IndicatorCover } from '../contract/commands.js';
import type { Database } from '../db/schema.js';
import { keepListingStamps, markUnlisted, retireIndicators } from './lifecycle-writer.js';
import type { Dialect } from '../db/dialect.js';

/** Indicators read per statement of the scan, in iid order. */
const SCAN_PAGE = 5000;

/**
 * Calls `found` with each page of the indicators `cover` covers that are not retired, in iid order.
 * Values are tested in the process (address blocks, domain suffixes and URL hosts are not comparable
 * as text), a keyset page at a time; an exact entry is one seek on indicators_value.
 */
export async function scanCovered(db: Kysely<Database>, cover: IndicatorCover, found: (rows: Array<{ iid: number; value: string; type: string }>) => Promise<void> | void): Promise<void> {
  if (cover.exact !== undefined) {
    const rows = await db.selectFrom('indicators').select(['iid', 'value', 'type']).where('value', '=', cover.exact).where('risk', '<>', 'retired').orderBy('iid').execute();
    const hits = rows.map((r) => ({ iid: Number(r.iid), value: r.value, type: r.type })).filter((r) => cover.covers(r.value, r.type));
    if (hits.length > 0) await found(hits);
    return;
  }
  if (cover.types.length === 0) return;
  for (let after = 0; ; ) {
    const rows = await db
      .selectFrom('indicators')
      .select(['iid', 'value', 'type'])
      .where('iid', '>', after)
      .where('type', 'in', [...cover.types])
      .where('risk', '<>', 'retired')
      .orderBy('iid')
      .limit(SCAN_PAGE)
      .execute();
    if (rows.length === 0) return;
    after = Number(rows[rows.length - 1]!.iid);
    const hits = rows.map((r) => ({ iid: Number(r.iid), value: r.value, type: r.type })).filter((r) => cover.covers(r.value, r.type));
    if (hits.length > 0) await found(hits);
    if (rows.length < SCAN_PAGE) return;
  }
}

/** Keeps the entry and retires what it covers; an entry the store has already changes nothing. */
export async function applyAllowlist(trx: Transaction<Database>, plan: AllowlistPlan, dialect: Dialect): Promise<AllowlistCounts> {
  const inserted = await trx
    .insertInto('allowlist_entries')
    .values({ entry: plan.entry, reason: plan.reason, added_by: plan.addedBy, added_at: plan.at })
    .onConflict((oc) => oc.column('entry').doNothing())
    .returning('entry')
    .executeTakeFirst();
  if (inserted === undefined) return { added: false, retired: 0 };
  const iids: number[] = [];
  await scanCovered(trx, plan.cover, (rows) => void iids.push(...rows.map((r) => r.iid)));
  let retired = 0;
  for (let i = 0; i < iids.length; i += 500) {
    const chunk = sql.join(iids.slice(i, i + 500));
    retired += await retireIndicators(trx, plan.at, sql`iid in (${chunk}) and risk <> 'retired'`, 'allowlisted');
    // No feed lists them any more: a pull of a feed that still did would otherwise give one its risk
    // back before that feed's own pull, allowlisted, dropped it. Their listings become history.
    await sql`insert into past_listings (fid, iid, last_listed, risk)
      select l.fid, l.iid, coalesce(f.stamp_pulled, ${plan.at}), l.risk from source_listings l join feeds f on f.fid = l.fid
      where l.iid in (${chunk})
      on conflict (iid, fid) do update set last_listed = excluded.last_listed, risk = excluded.risk`.execute(trx);
    await keepListingStamps(trx, dialect, chunk);
    await sql`delete from source_listings where iid in (${chunk})`.execute(trx);
    await markUnlisted(trx, chunk);
  }
  return { added: true, retired };
}
