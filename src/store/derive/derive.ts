// Recomputes what is derived from the data after an import: link page ranks and feed/threat aggregates.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { anyChange, type ChangeSet } from '../changes/change-set.js';
import { aggregateWholeStore } from './aggregate-reads.js';
import { LINK_KIND } from '../contract/write-batch.js';
import { withoutNestedLoops, type Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { readStoredSummaries, writeSummaries } from './summary-writes.js';
import { touchedOwners } from './touched-owners.js';
import { type OwnerIds, type TouchedOwners } from '../contract/commands.js';
import { countTouchedOwners, writeCountsOf } from './value-counts.js';
import { refreshSearchIndex } from './search-index.js';
import type { AggregatePlan } from '../contract/commands.js';

/**
 * An owner with up to this many new links has its later links shifted, one range at a time (the
 * links between two new ones move up by the new ones before them), which touches only the links
 * after the first new one, where ranking them again in one statement reads them all; with more, the
 * statements would add up.
 */
const SHIFT_UP_TO = 200;

/**
 * Ranks (seq) the links of the owners with new links by iid, so a links page is a range scan on
 * (owner, seq). A link before an owner's first new one keeps its rank (a restamped link keeps its
 * place too), so only the links from there on move.
 */
async function renumberLinks(trx: Transaction<Database>, dialect: Dialect, table: 'feed_links' | 'threat_links', changes: ChangeSet): Promise<void> {
  const kind = table === 'feed_links' ? LINK_KIND.feed : LINK_KIND.threat;
  const column = table === 'feed_links' ? 'fid' : 'tid';
  const owner = sql.ref(column);
  const links = sql.table(table);
  const { rows } = await sql<{ owner: number; n: number; first: number }>`
    select owner, count(*) as n, min(iid) as first from (${changes.links('added', kind)}) as s group by owner order by owner`.execute(trx);
  /** The rank a link at `iid` takes: one after the link before it (0 for the first). */
  const rankAt = async (id: number, iid: number) => {
    const { rows: before } = await sql<{ seq: number }>`select seq from ${links} where ${owner} = ${id} and iid < ${iid} order by iid desc limit 1`.execute(trx);
    return before.length === 0 ? 0 : Number(before[0]!.seq) + 1;
  };
  for (const row of rows) {
    const id = Number(row.owner);
    // Links appended after the owner's last one (all of a first pull's, say) were ranked as they went
    // in (moveLinks); only an owner with a link still at -1 has ranks to rewrite.
    const { rows: unranked } = await sql`select 1 as one from ${links} where ${owner} = ${id} and seq = -1 limit 1`.execute(trx);
    if (unranked.length === 0) continue;
    if (Number(row.n) > SHIFT_UP_TO) {
      const first = Number(row.first);
      const base = await rankAt(id, first);
      // Both sides come from the owner's links in iid order, so a merge join ranks them in one pass.
      // Stale statistics (an owner whose links the last ANALYZE never saw) can make PostgreSQL expect
      // one row on each side and rerun the ranking for every link, a nested loop quadratic in the
      // owner's links.
      await withoutNestedLoops(trx, dialect, () => sql`
        update ${links} set seq = r.rn
        from (select iid, row_number() over (order by iid) - 1 + ${base} as rn from ${links} where ${owner} = ${id} and iid >= ${first}) as r
        where ${sql.ref(`${table}.${column}`)} = ${id} and ${sql.ref(`${table}.iid`)} = r.iid and ${sql.ref(`${table}.seq`)} <> r.rn`.execute(trx));
      continue;
    }
    const { rows: added } = await sql<{ iid: number }>`
      select iid from (${changes.links('added', kind)}) as s where owner = ${id} order by iid`.execute(trx);
    const iids = added.map((r) => Number(r.iid));
    for (const [j, iid] of iids.entries()) {
      const below = j + 1 < iids.length ? sql`and iid < ${iids[j + 1]!}` : sql``;
      await sql`update ${links} set seq = seq + ${j + 1} where ${owner} = ${id} and iid > ${iid} ${below}`.execute(trx);
    }
    // In iid order, each new link's rank follows the (shifted or new) link before it.
    for (const iid of iids) await sql`update ${links} set seq = ${await rankAt(id, iid)} where ${owner} = ${id} and iid = ${iid}`.execute(trx);
  }
}


/**
 * The whole-store pass reads every indicator once, in iid order. An import that changed less updates the owners it touched from their stored value
 * counts (value-counts.ts), at the cost of what it changed, read at random: an indicator for each new
 * link, and two rows (its earlier one and its new one) for each link of a changed indicator. From
 * half the store's links' worth of those on, the whole pass is taken.
 */
const WHOLE_PASS_FROM_SHARE = 0.5;

/**
 * Whether the reads the import's own changes cost the touched owners' update reach
 * WHOLE_PASS_FROM_SHARE of the store's links. The links are counted only up to the most for which
 * they would: the count costs what the import changed, not the store's size. An import that changed
 * no link and no indicator (a feed or threat record) costs none, uncounted; nor does a store with no link.
 */
async function wholePassPays(trx: Kysely<Database>, changes: ChangeSet): Promise<boolean> {
  const count = async (query: RawBuilder<{ n: number }>) => Number((await query.execute(trx)).rows[0]!.n);
  const added = changes.feedLinks + changes.threatLinks === 0 ? 0 : await count(sql`select count(*) as n from (${changes.links('added')}) as s`);
  let changed = 0;
  for (const table of changes.indicators === 0 ? [] : (['feed_links', 'threat_links'] as const)) {
    changed += await count(sql`select count(*) as n from ${sql.table(table)} where iid in (${changes.changedIds('indicators')})`);
  }
  const cost = added + 2 * changed;
  if (cost === 0) return false;
  // The whole pass pays when the store has at most cost / share links: count one past that, at most.
  const enough = Math.floor(cost / WHOLE_PASS_FROM_SHARE) + 1;
  let links = 0;
  for (const table of ['feed_links', 'threat_links'] as const) {
    if (links >= enough) break;
    links += await count(sql`select count(*) as n from (select 1 from ${sql.table(table)} limit ${enough - links}) as l`);
  }
  return links > 0 && links < enough;
}

/**
 * Every feed's and threat's aggregates, from every linked indicator; only rows whose text changes are
 * written. Returns how many were. Every value's count is written too (owner_value_counts), for the
 * imports that follow.
 */
export async function refreshAllAggregates(trx: Kysely<Database>): Promise<number> {
  const stored = await readStoredSummaries(trx, 'all');
  const results = await aggregateWholeStore(trx, [...stored.feeds.keys()], [...stored.threats.keys()]);
  await writeCountsOf(trx, results, 'all');
  return writeSummaries(trx, results, stored, 'whole');
}

/**
 * The touched owners' aggregates: the recomputed ones from their stored value counts and what the
 * import changed (value-counts.ts), the relisted ones from what their stored summary holds, but for
 * a record new to the store, which has none yet.
 */
async function refreshOwners(trx: Kysely<Database>, { recompute, relist }: TouchedOwners, changes: ChangeSet): Promise<OwnerIds> {
  const stored = await readStoredSummaries(trx, { feeds: [...recompute.feeds, ...relist.feeds], threats: [...recompute.threats, ...relist.threats] });
  const newRecords = {
    feeds: relist.feeds.filter((fid) => stored.feeds.get(fid)?.aggregate === undefined),
    threats: relist.threats.filter((tid) => stored.threats.get(tid)?.aggregate === undefined),
  };
  const { results: computed, read } = await countTouchedOwners(trx, recompute, newRecords, stored, changes);
  for (const fid of relist.feeds) if (!computed.feeds.has(fid)) computed.feeds.set(fid, stored.feeds.get(fid)!.aggregate!);
  for (const tid of relist.threats) if (!computed.threats.has(tid)) computed.threats.set(tid, stored.threats.get(tid)!.aggregate!);
  await writeSummaries(trx, computed, stored, changes);
  return read;
}


/**
 * Aggregates depend on indicators, links, feeds and threats at once. An import that changes nothing
 * (a re-import) needs no plan (null); one into an empty store, or one whose new links and
 * changed indicators weigh half the store's links (wholePassPays), takes the whole-store pass; any
 * other recomputes only the owners it touched.
 * Reads the import's staging tables, in its transaction.
 */
async function planAggregates(trx: Kysely<Database>, changes: ChangeSet): Promise<{ whole: true } | { whole: false; touched: TouchedOwners } | null> {
  if (!anyChange(changes)) return null;
  if (changes.fresh) return { whole: true };
  if (await wholePassPays(trx, changes)) return { whole: true };
  return { whole: false, touched: await touchedOwners(trx, changes) };
}

/** The part of the import refresh that the lookup API relies on; returns how the aggregates were refreshed. */
export async function refreshLookupData(trx: Transaction<Database>, dialect: Dialect, changes: ChangeSet): Promise<AggregatePlan | null> {
  await refreshSearchIndex(trx, dialect, changes);
  // Links moved into a fresh store were ranked as they went in (moveLinks).
  if (!changes.fresh) {
    await renumberLinks(trx, dialect, 'feed_links', changes);
    await renumberLinks(trx, dialect, 'threat_links', changes);
  }
  const plan = await planAggregates(trx, changes);
  if (plan?.whole === false) return { ...plan, read: await refreshOwners(trx, plan.touched, changes) };
  if (plan?.whole) await refreshAllAggregates(trx);
  return plan;
}
