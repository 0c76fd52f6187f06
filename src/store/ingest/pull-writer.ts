// The store's side of a feed pull (docs/feeds.md, "What a pull does with each row"; docs/architecture.md, "A pull, in one straight line"): the values a pull listed,
// staged by ingest.ts, become indicators, links, listings, risks and sightings here, in the
// import's transaction; aggregates and STIX versions then follow as for any write (apply.ts).
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { RowTable } from '../db/bulk-insert.js';
import type {
  RefThreatStagingRow, ThreatDefStagingRow, ValueRefStagingRow, ValueStagingRow, ValueThreatStagingRow, WithdrawnStagingRow,
} from '../contract/staging-rows.js';
import type { Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { noteChanged, noteInsertedFrom } from '../changes/change-set.js';
import { keepIndicatorRows } from '../changes/replaced-indicators.js';
import { stagedLinks, stageLinksFrom } from '../changes/staged-links.js';
import { mergePulledAttributes, newAttributes } from './pull-attributes.js';
import { resolveThreats } from './pull-threats.js';
import { createPullTables, keyPullValues, pullTables, stagedBesideValues } from './pull-tables.js';
import { analyzeTemporary, setTempCache } from '../db/dialect.js';
import { dropListingStamp, keepListingStamps, markListed, markUnlisted, retireIndicators } from './lifecycle-writer.js';
import { LINK_KIND } from '../contract/write-batch.js';
import { PullRefused, RISK_RANKS, type PullCounts, type PullPlan } from '../contract/commands.js';
import { checkChurn, churnOf } from './pull-churn.js';

export { VALUE_ATTRIBUTE_STAGING } from './pull-attributes.js';

/** A staged value row: type, normalized value, risk rank (RISK_RANKS) and its place in the source; a value may repeat. */
export const VALUE_STAGING: RowTable<ValueStagingRow> = {
  table: 'pull_rows',
  columns: ['type', 'value', 'risk', 'ordinal'],
  // A value listed twice keeps its first place and the higher of its risks.
  // Plain inserts into a table without a key, grouped once at the end (applyPull): a keyed upsert per
  // batch would search the key for every row as it comes (bench/README.md, "Source-feed pulls").
  tail: '',
  arrays: ['text', 'text', 'integer', 'bigint'],
};

export const VALUE_THREAT_STAGING: RowTable<ValueThreatStagingRow> = {
  table: 'pull_value_threats',
  columns: ['type', 'value', 'name'],
  tail: 'on conflict do nothing',
  arrays: ['text', 'text', 'text'],
};

/**
 * The upstream object (a STIX indicator id, a MISP event) each value came from; a pair may repeat.
 * As pull_rows, a table without a key, appended to and joined once at the end (resolveThreats): a
 * key on upstream ids, which come in no order, would have each batch touch hundreds of its pages,
 * each written again to the statement journal (bench/README.md, "Mirror").
 */
export const VALUE_REF_STAGING: RowTable<ValueRefStagingRow> = {
  table: 'pull_value_refs',
  columns: ['ref', 'type', 'value'],
  tail: '',
  arrays: ['text', 'text', 'text'],
};

/** An upstream object indicates a threat, by name: its values are linked to it (joined at the pull's end); a pair may repeat. */
export const REF_THREAT_STAGING: RowTable<RefThreatStagingRow> = {
  table: 'pull_ref_threats',
  columns: ['ref', 'name'],
  tail: '',
  arrays: ['text', 'text'],
};

/** A threat the source describes: the category and other names a threat created for it gets. */
export const THREAT_DEF_STAGING: RowTable<ThreatDefStagingRow> = {
  table: 'pull_threat_defs',
  columns: ['name_key', 'name', 'category', 'aliases'],
  tail: 'on conflict (name_key) do nothing',
  arrays: ['text', 'text', 'text', 'text'],
};

/** A value the source withdrew (FeedBatch `withdrawn`): type and normalized value; a value may repeat. */
export const WITHDRAWN_STAGING: RowTable<WithdrawnStagingRow> = {
  table: 'pull_withdrawn',
  columns: ['type', 'value'],
  tail: '',
  arrays: ['text', 'text'],
};

/**
 * The page cache of SQLite's temporary database, where a pull stages its values, in KiB while the
 * pull runs (apply.ts gives it back). The staging tables are appended to and then read in a few
 * passes, which the file cache serves nearly as well; a plain import keeps the default, which it
 * needs (bench/README.md, "Mirror").
 */
const PULL_TEMP_CACHE_KIB = 4 * 1024;

/** A pull's staging tables, made when its plan comes (ingest.ts). */
export async function createPullStaging(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  await setTempCache(trx, dialect, PULL_TEMP_CACHE_KIB);
  await createPullTables(trx, dialect);
}

const riskCases = sql.raw(RISK_RANKS.map((r, i) => `when ${i} then '${r}'`).join(' '));
const riskText = sql`case risk ${riskCases} end`;

async function count(trx: Kysely<any>, query: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*) as n from (${query}) as q`.execute(trx);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Sets stamp_seen to the pull's time on the threats the pull saw and, for an incremental source, on
 * the listed indicators `iids` selects. A pull that read its source's whole list writes no
 * indicator: the feed's listing stamp says when its whole listing was seen (finishFeed), and a read
 * of an indicator's stamp_seen takes it (listing-stamps.ts). An incremental source's pull lists only
 * what is new upstream, so it stamps those rows, and its feed has no listing stamp.
 */
async function markSeen(trx: Transaction<Database>, plan: PullPlan, iids: ReturnType<typeof sql>, tids: readonly number[]): Promise<void> {
  const { at } = plan;
  // stamp_listed marks what pulls list: only those age out when no source lists them (lifecycle-writer.ts).
  // No column here is indexed, so on PostgreSQL each row's new version stays on its page (storage-migration.ts).
  if (plan.incremental === true) {
    await sql`update indicators set stamp_seen = ${at}, stamp_listed = ${at}
      where iid in (${iids}) and (stamp_seen is null or stamp_seen <> ${at} or stamp_listed is null or stamp_listed <> ${at})`.execute(trx);
  }
  for (let i = 0; i < tids.length; i += 500) {
    await trx.updateTable('threats').set({ stamp_seen: at }).where('tid', 'in', tids.slice(i, i + 500)).execute();
  }
}

/** The names of the retired threats among these. */
async function retiredNames(trx: Transaction<Database>, tids: readonly number[]): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < tids.length; i += 500) {
    const rows = await trx.selectFrom('threats').select('name').where('tid', 'in', tids.slice(i, i + 500)).where('retired', '=', 1).orderBy('tid').execute();
    names.push(...rows.map((r) => r.name));
  }
  return names;
}

/** The feed's stamps after a successful pull; its source's pull state comes last (recordPullState). */
async function finishFeed(trx: Transaction<Database>, plan: PullPlan, modified: boolean): Promise<void> {
  if (plan.incremental !== true) {
    await trx
      .insertInto('listing_stamps')
      .values({ fid: plan.fid, stamp_listed: plan.at })
      .onConflict((oc) => oc.column('fid').doUpdateSet({ stamp_listed: plan.at }))
      .execute();
  }
  await trx
    .updateTable('feeds')
    .set({ stamp_pulled: plan.at, ...(modified ? { stamp_modified: plan.at } : {}) })
    .where('fid', '=', plan.fid)
    .execute();
}

/**
 * The source's pull state after a successful pull (its validators, cursor, body hash, next due
 * time, and the threats a repeat of this listing sees), written once everything else of the pull is:
 * on PostgreSQL the write locks the source's row until the commit, and the pull's lease renewals
 * (pull-lease.ts) update that row, so they wait only for the commit rather than for derive and
 * publish. A repeat keeps the threats its listing saw.
 */
export async function recordPullState(trx: Transaction<Database>, plan: PullPlan): Promise<void> {
  const seenThreats = plan.repeat ? undefined : (await pullTables(trx).selectFrom('pull_threats').select('tid').orderBy('tid').execute()).map((r) => Number(r.tid));
  await trx
    .updateTable('feed_sources')
    .set({
      etag: plan.etag,
      last_modified: plan.lastModified,
      last_error: null,
      last_error_at: null,
      failures: 0,
      next_due: plan.nextDue,
      ...(seenThreats === undefined ? {} : { seen_threats: JSON.stringify(seenThreats) }),
      ...(plan.cursor === undefined ? {} : { cursor: plan.cursor }),
      ...(plan.bodyHash === undefined ? {} : { body_hash: plan.bodyHash }),
    })
    .where('fid', '=', plan.fid)
    .execute();
}

/** Fills the feed's empty descriptive fields from its upstream's; a feed that changes is a changed record. */
async function describeFeed(trx: Transaction<Database>, fid: number, upstream: NonNullable<PullPlan['describe']>): Promise<void> {
  const feed = await trx.selectFrom('feeds').select(['description', 'website', 'category', 'pricing']).where('fid', '=', fid).executeTakeFirst();
  if (feed === undefined) return;
  const fill: Partial<Record<keyof typeof upstream, string>> = {};
  for (const field of ['description', 'website', 'category', 'pricing'] as const) {
    if (feed[field] === '' && upstream[field] !== '') fill[field] = upstream[field];
  }
  if (Object.keys(fill).length === 0) return;
  await trx.updateTable('feeds').set({ ...fill, content_hash: '' }).where('fid', '=', fid).execute();
  await noteChanged(trx, 'feeds', [fid]);
}

/** A 304: the latest listing is seen again; nothing is added, so nothing is modified. */
async function applyRepeat(trx: Transaction<Database>, plan: PullPlan): Promise<PullCounts> {
  const row = await trx.selectFrom('feed_sources').select('seen_threats').where('fid', '=', plan.fid).executeTakeFirst();
  const tids = (JSON.parse(row?.seen_threats ?? '[]') as number[]).filter((t) => Number.isSafeInteger(t));
  await markSeen(trx, plan, sql`select iid from source_listings where fid = ${plan.fid}`, tids);
  await finishFeed(trx, plan, false);
  const values = await count(trx, sql`select 1 from source_listings where fid = ${plan.fid}`);
  return {
    values, withdrawn: 0, newIndicators: 0, newLinks: 0, newThreats: 0, unlisted: 0, churn: churnOf(plan, 0), threats: tids.length, retiredSeen: await retiredNames(trx, tids),
  };
}

/**
 * Each value once, at its first place, with the highest risk it was listed with, and its indicator:
 * the lowest iid of its (type, value) when one exists, else the next free iid, new ones numbered in
 * the order the source listed them. One statement writes each staged value once (PostgreSQL writes
 * an update as a new version of the row: looking the indicators up and numbering the new ones as
 * updates of the staged rows cost twice the staging itself). Writes only the staging tables.
 */
async function stageValues(trx: Transaction<Database>, dialect: Dialect): Promise<{ besideValues: boolean }> {
  const top = Number((await trx.selectFrom('indicators').select((eb) => eb.fn.max('iid').as('top')).executeTakeFirst())?.top ?? 0);
  // Each staged row is joined to its indicators before the rows are grouped: PostgreSQL, told the
  // staging table's size (it never analyzes a temporary table itself), probes the value index for a
  // short list and joins a long one by hash with one read of indicators, where a lookup per value as
  // a subquery always probed (bench/README.md, "PostgreSQL: the staged values joined"). SQLite
  // probes the index either way. Only the new values are numbered: a window over all of them
  // sorted every listed value by its place.
  await analyzeTemporary(trx, dialect, ['pull_rows']);
  await sql`with g as materialized (select r.type, r.value, max(r.risk) as risk, min(r.ordinal) as ordinal, min(i.iid) as found
      from pull_rows r left join indicators i on i.value = r.value and i.type = r.type
      group by r.type, r.value)
    insert into pull_values (type, value, risk, ordinal, iid, new)
    select type, value, risk, ordinal, found, 0 from g where found is not null
    union all
    select type, value, risk, ordinal, ${top} + row_number() over (order by ordinal), 1 from g where found is null`.execute(trx);
  const besideValues = await stagedBesideValues(trx);
  if (besideValues) await keyPullValues(trx, dialect);
  await sql`delete from pull_rows`.execute(trx);
  return { besideValues };
}

/** The new values become indicators (their iids given by stageValues); every listed value goes to pull_listed, by iid. */
async function resolveIndicators(trx: Transaction<Database>, plan: PullPlan): Promise<number> {
  const inserted = await sql`
    insert into indicators (iid, value, type, risk, stamp_added, stamp_updated, stamp_seen, retired, attributes, properties, content_hash, stamp_listed)
    select iid, value, type, ${riskText}, ${plan.at}, ${plan.at}, ${plan.at}, null, ${newAttributes}, '{}', '', ${plan.at}
    from pull_values where new = 1 order by iid`.execute(trx);
  await noteInsertedFrom(trx, 'indicators', sql`select iid from pull_values where new = 1`);
  // Later steps go by iid, in iid order (a dropped listing is one no listed value has).
  await sql`insert into pull_listed (iid, risk, ordinal, new) select iid, risk, ordinal, new from pull_values order by iid`.execute(trx);
  return Number(inserted.numAffectedRows ?? 0n);
}

/**
 * The feed's listing becomes what this pull listed (an incremental source's: what it listed before
 * and now), less what it withdrew; an indicator whose sources' listings changed takes the highest
 * risk among the feeds that list it now (one no feed lists any more keeps its risk, unless withdrawn:
 * retireWithdrawn). An indicator whose risk changes is a changed record: a new STIX version follows.
 */
async function updateListingsAndRisks(trx: Transaction<Database>, plan: PullPlan, dialect: Dialect): Promise<number> {
  const { fid, at } = plan;
  await sql`update pull_listed set relisted = 1 where new = 0 and not exists (
    select 1 from source_listings l where l.fid = ${fid} and l.iid = pull_listed.iid and l.risk = pull_listed.risk)`.execute(trx);
  if (plan.incremental !== true) {
    await sql`insert into pull_dropped (iid) select iid from source_listings l where l.fid = ${fid}
      and not exists (select 1 from pull_listed v where v.iid = l.iid)`.execute(trx);
  }
  // Withdrawn values leave the listing of an incremental source too (resolveWithdrawn).
  await sql`insert into pull_dropped (iid) select w.iid from pull_withdrawn_iids w
    where exists (select 1 from source_listings l where l.fid = ${fid} and l.iid = w.iid)
      and not exists (select 1 from pull_dropped d where d.iid = w.iid)`.execute(trx);
  // The dropped values are read by iid against the store's tables from here on: a few probe their keys.
  await analyzeTemporary(trx, dialect, ['pull_dropped']);
  await keepPastListings(trx, fid, at);
  // They keep the stamp their listing gave them (the feed's previous pull's) as their own.
  await keepListingStamps(trx, dialect, sql`select iid from pull_dropped`, fid);
  await sql`delete from source_listings where fid = ${fid} and iid in (select iid from pull_dropped)`.execute(trx);
  await markUnlisted(trx, sql`select iid from pull_dropped`);
  // A new indicator has no listing yet: only the relisted ones pay the conflict check.
  await sql`insert into source_listings (fid, iid, risk) select ${fid}, iid, risk from pull_listed where new = 1`.execute(trx);
  await sql`insert into source_listings (fid, iid, risk) select ${fid}, iid, risk from pull_listed where relisted = 1
    on conflict (fid, iid) do update set risk = excluded.risk`.execute(trx);
  // Only a value this feed did not list as it does now can have been unlisted; a new one never was.
  await markListed(trx, sql`select iid from pull_listed where relisted = 1`);
  // UNION ALL: an IN list needs no distinct rows, and SQLite plans a UNION as a merge that reads the
  // staging table through an index at random.
  return takeListedRisks(trx, at, sql`select iid from pull_listed where relisted = 1 union all select iid from pull_dropped`);
}

/**
 * Each indicator of `touched` takes the highest risk among the feeds that list it (docs/feeds.md, "What a pull does with each row"),
 * the listings of `leaving` (a feed being deleted) left aside; one no feed lists keeps its risk. One
 * whose risk changes is a changed record (its row from before kept for the aggregates, a new STIX
 * version). Returns how many changed.
 */
export async function takeListedRisks(trx: Transaction<Database>, at: string, touched: RawBuilder<unknown>, leaving?: number): Promise<number> {
  // Their rows as they were, for the aggregates to take away (value-counts.ts): only of those a feed
  // still lists, as no other's risk changes (most of a pull's dropped values).
  const others = leaving === undefined ? sql`` : sql` and l.fid <> ${leaving}`;
  await keepIndicatorRows(trx, sql`select t.iid from (${touched}) as t where exists (select 1 from source_listings l where l.iid = t.iid${others})`);
  const { rows } = await sql<{ iid: number }>`
    update indicators set risk = m.risk_text, stamp_updated = ${at}, content_hash = '', retired_reason = null, stamp_retired = null
    from (select l.iid, case max(l.risk) ${riskCases} end as risk_text
          from source_listings l
          where l.iid in (${touched})${others}
          group by l.iid) as m
    where indicators.iid = m.iid and indicators.risk <> m.risk_text
    returning indicators.iid`.execute(trx);
  await noteChanged(trx, 'indicators', rows.map((r) => Number(r.iid)));
  return rows.length;
}

/**
 * Provenance (docs/interface.md section 12.4): each value the feed stops listing keeps the last pull that listed it (the
 * feed's latest good pull before this one) and the risk it gave; one it lists again leaves that
 * history, as it is in source_listings once more. Both touch only the values that moved.
 */
async function keepPastListings(trx: Transaction<Database>, fid: number, at: string): Promise<void> {
  await sql`delete from past_listings where fid = ${fid} and iid in (select iid from pull_listed where relisted = 1)`.execute(trx);
  const feed = await trx.selectFrom('feeds').select('stamp_pulled').where('fid', '=', fid).executeTakeFirst();
  const lastListed = feed?.stamp_pulled ?? at;
  await sql`insert into past_listings (fid, iid, last_listed, risk)
    select l.fid, l.iid, ${lastListed}, l.risk from source_listings l
    where l.fid = ${fid} and l.iid in (select iid from pull_dropped)
    on conflict (iid, fid) do update set last_listed = excluded.last_listed, risk = excluded.risk`.execute(trx);
}

/**
 * Values the source withdrew (docs/sources.md, "What a pull keeps": revoked or expired STIX indicators, deleted or non-`to_ids`
 * MISP attributes, lookup-api rows retired upstream). One the same pull also lists stays listed (two
 * STIX objects for one value, one of them revoked). The indicators of the others that this feed has
 * listed (a feed link) go to pull_withdrawn_iids, to leave the feed's listing even when the source
 * is incremental (updateListingsAndRisks) and to retire when no source lists them (retireWithdrawn);
 * an indicator the feed never listed is not its to withdraw, and a withdrawn value never makes an
 * indicator or a link. Returns how many distinct values were withdrawn.
 */
async function resolveWithdrawn(trx: Transaction<Database>, plan: PullPlan, dialect: Dialect): Promise<number> {
  const withdrawn = sql`select distinct w.type, w.value from pull_withdrawn w
    where not exists (select 1 from pull_values v where v.type = w.type and v.value = w.value)`;
  // CROSS JOIN keeps SQLite from putting indicators in the outer loop: it has no statistics for the
  // staging table and guessed it larger than the store (PostgreSQL reads it as an inner join).
  await sql`insert into pull_withdrawn_iids (iid)
    select distinct i.iid from (${withdrawn}) w cross join indicators i
    where i.value = w.value and i.type = w.type and exists (select 1 from feed_links l where l.fid = ${plan.fid} and l.iid = i.iid)`.execute(trx);
  await analyzeTemporary(trx, dialect, ['pull_withdrawn_iids']);
  return count(trx, withdrawn);
}

/**
 * Withdrawn indicators that pulls brought in (stamp_listed) and that no source lists any more are
 * retired at once, by the lifecycle's own retirement (a new STIX version that expires), rather than
 * after `indicatorRetireDays`: the upstream has said they are over. Listed again, they get their
 * sources' risk back as aged-out ones do. Returns how many were retired.
 */
async function retireWithdrawn(trx: Transaction<Database>, plan: PullPlan): Promise<number> {
  return retireIndicators(trx, plan.at, sql`iid in (select iid from pull_withdrawn_iids) and stamp_listed is not null and risk <> 'retired'
    and not exists (select 1 from source_listings l where l.iid = indicators.iid)`, 'upstream');
}

/**
 * Links the pull makes: each listed value to the feed, and to the threats its row or the source names,
 * the first time only. `besideValues`: the pull staged rows beside its values (stagedBesideValues),
 * which are where its rows name threats; a list of bare values names none, and its staged values have
 * no key to join them by.
 */
async function stageNewLinks(trx: Transaction<Database>, plan: PullPlan, besideValues: boolean): Promise<void> {
  const { fid, at } = plan;
  await stageLinksFrom(trx, sql`select ${LINK_KIND.feed}, ${fid}, v.iid, ${at}, v.ordinal, 'pull'
    from pull_listed v where v.new = 1 or not exists (select 1 from feed_links l where l.fid = ${fid} and l.iid = v.iid)`);
  const named: RawBuilder<unknown>[] = [];
  if (besideValues) {
    named.push(sql`select t.tid, v.iid, min(v.ordinal) as ordinal
      from pull_value_threats p
      join pull_threats t on t.name_key = lower(p.name)
      join pull_values v on v.type = p.type and v.value = p.value
      group by t.tid, v.iid`);
  }
  if (plan.sourceThreat !== null) {
    named.push(sql`select t.tid, v.iid, v.ordinal from pull_listed v join pull_threats t on t.name_key = ${plan.sourceThreat.name.toLowerCase()}`);
  }
  if (named.length === 0) return;
  const threatLinksMade = await stageLinksFrom(trx, sql`select ${LINK_KIND.threat}, x.tid, x.iid, ${at}, min(x.ordinal), 'pull'
    from (${sql.join(named, sql` union `)}) as x
    where not exists (select 1 from threat_links l where l.tid = x.tid and l.iid = x.iid)
    group by x.tid, x.iid`);
  // Provenance: which feed's pull made each new threat link (an import's links have no row here);
  // a pull that linked no threat does not read its staged feed links for them.
  if (threatLinksMade === 0) return;
  await sql`insert into threat_link_sources (iid, tid, fid)
    select iid, owner, ${fid} from (${stagedLinks(LINK_KIND.threat)}) as s order by iid, owner
    on conflict (iid, tid) do nothing`.execute(trx);
}

/**
 * Applies a pull whose values are staged (pull_values, pull_value_threats), before the import's
 * checks and link moves: every step of docs/feeds.md's "What a pull does with each row" but the aggregates and STIX, which the
 * import's refresh does. Throws PullRefused, changing nothing, for an empty list where the feed's
 * latest pull listed values.
 */
export async function applyPull(trx: Transaction<Database>, plan: PullPlan, dialect: Dialect): Promise<PullCounts> {
  // An incremental source's pulls stamp the rows they list (markSeen): its feed's listing stamp, if its
  // source was a full-list one until now, goes onto the rows first.
  if (plan.incremental === true) await dropListingStamp(trx, dialect, plan.fid);
  if (plan.repeat) return applyRepeat(trx, plan);
  const { besideValues } = await stageValues(trx, dialect);
  const values = await count(trx, sql`select 1 from pull_values`);
  // An upstream that retired every value it listed says so (withdrawn rows): that is no outage.
  if (values === 0 && plan.incremental !== true && (await count(trx, sql`select 1 from pull_withdrawn`)) === 0) {
    const listed = await count(trx, sql`select 1 from source_listings where fid = ${plan.fid}`);
    if (listed > 0) throw new PullRefused(`the source listed no values where its last pull listed ${listed}; kept as an outage`);
  }
  // The gate's churn check (maxChurn) before anything is written: it counts by the indicators found.
  await checkChurn(trx, plan);
  const threats = await resolveThreats(trx, plan);
  const attributeChanges = await mergePulledAttributes(trx, plan.at, dialect);
  const newIndicators = await resolveIndicators(trx, plan);
  const withdrawn = await resolveWithdrawn(trx, plan, dialect);
  const riskChanges = await updateListingsAndRisks(trx, plan, dialect);
  const retired = await retireWithdrawn(trx, plan);
  await stageNewLinks(trx, plan, besideValues);
  const newLinks = await count(trx, stagedLinks());
  const seenThreats = (await pullTables(trx).selectFrom('pull_threats').select('tid').execute()).map((r) => Number(r.tid));
  const unlisted = await count(trx, sql`select 1 from pull_dropped`);
  await markSeen(trx, plan, sql`select iid from pull_listed where new = 0`, seenThreats);
  const listingChanged = unlisted > 0;
  if (plan.describe !== undefined) await describeFeed(trx, plan.fid, plan.describe);
  const changes = threats.created.length + threats.enriched.length + newIndicators + attributeChanges + riskChanges + retired + newLinks;
  await finishFeed(trx, plan, changes > 0 || listingChanged);
  return {
    values, withdrawn, newIndicators, newLinks, newThreats: threats.created.length, unlisted, churn: churnOf(plan, unlisted), threats: new Set(seenThreats).size,
    retiredSeen: await retiredNames(trx, seenThreats),
  };
}
