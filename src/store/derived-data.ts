// Recomputes what is derived from the data after an import: link page ranks and feed/threat aggregates.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { ImportChanges } from './import-writer.js';
import { aggregateOwners, aggregateWholeStore } from './aggregate-reads.js';
import { LINK_KIND, ownersWithChangedLinks } from './import-staging.js';
import type { Database } from './schema.js';
import { readStoredSummaries, writeSummaries } from './summary-writes.js';
import { touchedOwners, type OwnerIds, type TouchedOwners } from './touched-owners.js';

/** Ranks (seq) the links of the given owners by iid, so a links page is a range scan on (owner, seq). */
async function renumberLinks(trx: Transaction<Database>, table: 'feed_links' | 'threat_links'): Promise<void> {
  const owner = table === 'feed_links' ? 'fid' : 'tid';
  const ids = await ownersWithChangedLinks(trx, table === 'feed_links' ? LINK_KIND.feed : LINK_KIND.threat);
  for (let i = 0; i < ids.length; i += 500) {
    const slice = ids.slice(i, i + 500);
    await sql`
      update ${sql.table(table)} set seq = r.rn
      from (select ${sql.ref(owner)} as o, iid, row_number() over (partition by ${sql.ref(owner)} order by iid) - 1 as rn
            from ${sql.table(table)} where ${sql.ref(owner)} in (${sql.join(slice)})) as r
      where ${sql.ref(`${table}.${owner}`)} = r.o and ${sql.ref(`${table}.iid`)} = r.iid and ${sql.ref(`${table}.seq`)} <> r.rn`.execute(trx);
  }
}

export function anyChange(changes: ImportChanges): boolean {
  return changes.threats + changes.feeds + changes.indicators + changes.feedLinks + changes.threatLinks > 0;
}

/**
 * The whole-store pass recomputes every owner from every indicator, read in iid order; an import
 * that changed little recomputes only the owners it touched (touched-owners.ts), each from its own
 * links. Per link that costs a little more (1M indicators: all 700 owners read by their links in
 * 13.4 s, the whole pass 9.1-12.4 s), so the owners' reads stop paying at about 80% of the store's
 * links; from half of them on, the whole pass is taken, which also leaves room for the relisting.
 */
const WHOLE_PASS_FROM_SHARE = 0.5;

/** How many links the owners' own reads would visit, against the store's links. */
async function linkShare(trx: Kysely<Database>, owners: OwnerIds): Promise<number> {
  if (owners.feeds.length + owners.threats.length === 0) return 0;
  let touched = 0;
  let total = 0;
  for (const [table, column, ids] of [
    ['feed_links', 'fid', owners.feeds],
    ['threat_links', 'tid', owners.threats],
  ] as const) {
    const count = async (where: RawBuilder<unknown>) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} ${where}`.execute(trx)).rows[0]!.n);
    total += await count(sql``);
    for (let i = 0; i < ids.length; i += 500) touched += await count(sql`where ${sql.ref(column)} in (${sql.join(ids.slice(i, i + 500))})`);
  }
  return total === 0 ? 0 : touched / total;
}

/**
 * Every feed's and threat's aggregates, from every linked indicator; only rows whose text changes are
 * written. Returns how many were.
 */
export async function refreshAllAggregates(trx: Kysely<Database>): Promise<number> {
  const stored = await readStoredSummaries(trx, 'all');
  const results = await aggregateWholeStore(trx, [...stored.feeds.keys()], [...stored.threats.keys()]);
  return writeSummaries(trx, results, stored, true);
}

/**
 * The touched owners' aggregates: the recomputed ones from their linked indicators, the relisted
 * ones from what their stored summary holds, but for a record new to the store, which has none yet.
 */
async function refreshOwners(trx: Kysely<Database>, { recompute, relist }: TouchedOwners): Promise<void> {
  const stored = await readStoredSummaries(trx, { feeds: [...recompute.feeds, ...relist.feeds], threats: [...recompute.threats, ...relist.threats] });
  const fids = [...recompute.feeds, ...relist.feeds.filter((fid) => stored.feeds.get(fid)?.aggregate === undefined)];
  const tids = [...recompute.threats, ...relist.threats.filter((tid) => stored.threats.get(tid)?.aggregate === undefined)];
  const computed = await aggregateOwners(trx, fids, tids);
  for (const fid of relist.feeds) if (!computed.feeds.has(fid)) computed.feeds.set(fid, stored.feeds.get(fid)!.aggregate!);
  for (const tid of relist.threats) if (!computed.threats.has(tid)) computed.threats.set(tid, stored.threats.get(tid)!.aggregate!);
  await writeSummaries(trx, computed, stored, false);
}

/** How an import's aggregates are refreshed: the whole-store pass, or only the owners it touched. */
export type AggregatePlan = { whole: true } | { whole: false; touched: TouchedOwners };

/**
 * Aggregates depend on indicators, links, feeds and threats at once. An import that changes nothing
 * (a re-import) needs no plan (undefined); one into an empty store, or one that touched a large
 * share of the store, takes the whole-store pass; any other recomputes only the owners it touched.
 * Reads the import's staging tables, in its transaction.
 */
async function planAggregates(trx: Kysely<Database>, changes: ImportChanges): Promise<AggregatePlan | undefined> {
  if (!anyChange(changes)) return undefined;
  if (changes.fresh) return { whole: true };
  const touched = await touchedOwners(trx);
  return (await linkShare(trx, touched.recompute)) < WHOLE_PASS_FROM_SHARE ? { whole: false, touched } : { whole: true };
}

/** The part of the import refresh that the lookup API relies on; returns how the aggregates were refreshed. */
export async function refreshLookupData(trx: Transaction<Database>, changes: ImportChanges): Promise<AggregatePlan | undefined> {
  // Links moved into a fresh store were ranked as they went in (moveLinks).
  if (!changes.fresh) {
    await renumberLinks(trx, 'feed_links');
    await renumberLinks(trx, 'threat_links');
  }
  const plan = await planAggregates(trx, changes);
  if (plan?.whole === false) await refreshOwners(trx, plan.touched);
  else if (plan?.whole) await refreshAllAggregates(trx);
  return plan;
}
