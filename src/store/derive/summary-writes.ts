// Writes the computed columns of feeds and threats (spec 2.2 `indicators` and `summary`; spec 2.1
// `summary` and `updated_last_domain`). Each summary lists the owners of the other kind it shares
// indicators with; a row is written only when its text changes.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  aggregateOfSummary,
  feedSummaryRow,
  parseSummary,
  sharedOfSummary,
  threatSummaryRow,
  type AggregateResults,
  type FeedListItem,
  type FeedSummaryRow,
  type OwnerAggregate,
  type ThreatListItem,
  type ThreatSummaryRow,
} from './aggregates.js';
import { LINK_KIND } from '../contract/write-batch.js';
import type { ChangeSet } from '../changes/change-set.js';
import type { Database } from '../db/schema.js';
import type { OwnerIds } from '../contract/commands.js';
import { slices } from './slices.js';


/** An owner's computed columns as stored, and the aggregates they hold (undefined: none yet). */
export interface StoredSummary<Row> {
  row: Row;
  aggregate: OwnerAggregate | undefined;
  /** The owners of the other kind its summary lists, with the indicators each shares (undefined: no list yet). */
  shared: Map<number, number> | undefined;
}

export interface StoredSummaries {
  feeds: Map<number, StoredSummary<FeedSummaryRow>>;
  threats: Map<number, StoredSummary<ThreatSummaryRow>>;
}

/** The stored computed columns of the given feeds and threats, or of all of them. */
export async function readStoredSummaries(trx: Kysely<Database>, owners: OwnerIds | 'all'): Promise<StoredSummaries> {
  const feeds = new Map<number, StoredSummary<FeedSummaryRow>>();
  const threats = new Map<number, StoredSummary<ThreatSummaryRow>>();
  const feedQuery = trx.selectFrom('feeds').select(['fid', 'indicators', 'summary']);
  const threatQuery = trx.selectFrom('threats').select(['tid', 'summary', 'updated_last_domain']);
  for (const slice of owners === 'all' ? [undefined] : slices(owners.feeds)) {
    for (const r of await (slice ? feedQuery.where('fid', 'in', slice) : feedQuery).execute()) {
      const parsed = parseSummary(r.summary);
      feeds.set(Number(r.fid), { row: { indicators: r.indicators, summary: r.summary }, aggregate: aggregateOfSummary(parsed), shared: sharedOfSummary(parsed.threats, 'tid') });
    }
  }
  for (const slice of owners === 'all' ? [undefined] : slices(owners.threats)) {
    for (const r of await (slice ? threatQuery.where('tid', 'in', slice) : threatQuery).execute()) {
      const parsed = parseSummary(r.summary);
      threats.set(Number(r.tid), {
        row: { summary: r.summary, updated_last_domain: r.updated_last_domain },
        aggregate: aggregateOfSummary(parsed),
        shared: sharedOfSummary(parsed.feeds, 'fid'),
      });
    }
  }
  return { feeds, threats };
}

type Shared = Map<number, { id: number; indicators: number }[]>;

/** Most shared indicators first, then by id. */
const byShared = (a: { indicators: number; id: number }, b: { indicators: number; id: number }) => b.indicators - a.indicators || a.id - b.id;

/**
 * For each feed and each threat of the given ones (or of the store), the owners of the other kind
 * it shares indicators with and how many: indicators shared by a feed and a threat, counted once per pair.
 */
async function sharedIndicators(trx: Kysely<Database>, owners: OwnerIds | 'all'): Promise<{ feeds: Shared; threats: Shared }> {
  const feeds: Shared = new Map();
  const threats: Shared = new Map();
  const add = (map: Shared, owner: number, id: number, indicators: number) => {
    const list = map.get(owner);
    if (list) list.push({ id, indicators });
    else map.set(owner, [{ id, indicators }]);
  };
  const pairs = (where: RawBuilder<unknown>) =>
    sql<{ fid: number; tid: number; n: number }>`
      select fl.fid, tl.tid, count(*) as n from feed_links fl join threat_links tl on tl.iid = fl.iid ${where} group by fl.fid, tl.tid`.execute(trx);
  if (owners === 'all') {
    for (const p of (await pairs(sql``)).rows) {
      add(feeds, Number(p.fid), Number(p.tid), Number(p.n));
      add(threats, Number(p.tid), Number(p.fid), Number(p.n));
    }
  } else {
    for (const slice of slices(owners.feeds)) for (const p of (await pairs(sql`where fl.fid in (${sql.join(slice)})`)).rows) add(feeds, Number(p.fid), Number(p.tid), Number(p.n));
    for (const slice of slices(owners.threats)) for (const p of (await pairs(sql`where tl.tid in (${sql.join(slice)})`)).rows) add(threats, Number(p.tid), Number(p.fid), Number(p.n));
  }
  for (const list of [...feeds.values(), ...threats.values()]) list.sort(byShared);
  return { feeds, threats };
}

/**
 * The shared counts the import's new links add (changes.links('added')): each indicator a new link
 * gives a feed and a threat in common, once, whether the feed's link is new, the threat's or both.
 */
async function sharedAdded(trx: Kysely<Database>, changes: ChangeSet): Promise<{ fid: number; tid: number; n: number }[]> {
  const { rows: feedSide } = await sql<{ fid: number; tid: number; n: number }>`
    select s.owner as fid, tl.tid, count(*) as n from (${changes.links('added', LINK_KIND.feed)}) as s join threat_links tl on tl.iid = s.iid
    group by s.owner, tl.tid`.execute(trx);
  const { rows: threatSide } = await sql<{ fid: number; tid: number; n: number }>`
    select fl.fid, s.owner as tid, count(*) as n from (${changes.links('added', LINK_KIND.threat)}) as s join feed_links fl on fl.iid = s.iid
    where not exists (select 1 from (${changes.links('added', LINK_KIND.feed)}) as x where x.owner = fl.fid and x.iid = fl.iid)
    group by fl.fid, s.owner`.execute(trx);
  return [...feedSide, ...threatSide].map((p) => ({ fid: Number(p.fid), tid: Number(p.tid), n: Number(p.n) }));
}

/**
 * The shared counts of the owners an import touched: each stored list with what the import's new
 * links add to it (links only come, so no count falls), or, for an owner with no list yet (a record
 * new to the store), read from the links as the whole pass does. Every owner whose list the new
 * links change is touched (touched-owners.ts), so the stored lists stay exact.
 */
async function sharedOfTouched(
  trx: Kysely<Database>, fids: readonly number[], tids: readonly number[], stored: StoredSummaries, changes: ChangeSet,
): Promise<{ feeds: Shared; threats: Shared }> {
  const shared = await sharedIndicators(trx, {
    feeds: fids.filter((fid) => stored.feeds.get(fid)?.shared === undefined),
    threats: tids.filter((tid) => stored.threats.get(tid)?.shared === undefined),
  });
  const added = { feeds: new Map<number, Map<number, number>>(), threats: new Map<number, Map<number, number>>() };
  const note = (map: Map<number, Map<number, number>>, owner: number, id: number, n: number) => {
    let counts = map.get(owner);
    if (!counts) map.set(owner, (counts = new Map()));
    counts.set(id, (counts.get(id) ?? 0) + n);
  };
  for (const { fid, tid, n } of await sharedAdded(trx, changes)) {
    note(added.feeds, fid, tid, n);
    note(added.threats, tid, fid, n);
  }
  for (const [owners, storedOf, addedOf, out] of [
    [fids, stored.feeds, added.feeds, shared.feeds],
    [tids, stored.threats, added.threats, shared.threats],
  ] as const) {
    for (const owner of owners) {
      const list = storedOf.get(owner)?.shared;
      if (list === undefined) continue;
      const counts = new Map(list);
      for (const [id, n] of addedOf.get(owner) ?? []) counts.set(id, (counts.get(id) ?? 0) + n);
      out.set(owner, [...counts].map(([id, indicators]) => ({ id, indicators })).sort(byShared));
    }
  }
  return shared;
}

/** The listed fields of the given threats and feeds: what a summary shows of the owners it lists. */
async function listedRecords(trx: Kysely<Database>, tids: readonly number[], fids: readonly number[]) {
  const threats = new Map<number, Omit<ThreatListItem, 'indicators'>>();
  for (const slice of slices(tids)) {
    const rows = await trx.selectFrom('threats').select(['tid', 'category', 'stamp_updated', 'risk', 'name']).where('tid', 'in', slice).execute();
    for (const r of rows) threats.set(Number(r.tid), { tid: Number(r.tid), category: r.category, stamp_updated: r.stamp_updated, risk: r.risk, name: r.name });
  }
  const feeds = new Map<number, Omit<FeedListItem, 'indicators'>>();
  for (const slice of slices(fids)) {
    const rows = await trx.selectFrom('feeds').select(['fid', 'organization', 'name', 'pricing', 'category']).where('fid', 'in', slice).execute();
    for (const r of rows) feeds.set(Number(r.fid), { fid: Number(r.fid), organization: r.organization, name: r.name, pricing: r.pricing, category: r.category });
  }
  return { threats, feeds };
}

/**
 * Composes the summaries of the owners in `aggregates` (their own aggregates, with the lists of the
 * owners they share indicators with) and writes those whose text differs from `stored`. `'whole'`:
 * the owners are all of the store's, so the shared counts are read in one statement; otherwise they
 * are the owners a write touched, whose stored lists take what its change set's new links add
 * (sharedOfTouched).
 * Returns how many rows were written.
 */
export async function writeSummaries(
  trx: Kysely<Database>, aggregates: AggregateResults, stored: StoredSummaries, changes: ChangeSet | 'whole',
): Promise<number> {
  const fids = [...aggregates.feeds.keys()];
  const tids = [...aggregates.threats.keys()];
  const shared = changes === 'whole' ? await sharedIndicators(trx, 'all') : await sharedOfTouched(trx, fids, tids, stored, changes);
  const listedTids = new Set([...shared.feeds.values()].flatMap((list) => list.map((s) => s.id)));
  const listedFids = new Set([...shared.threats.values()].flatMap((list) => list.map((s) => s.id)));
  const listed = await listedRecords(trx, [...listedTids], [...listedFids]);
  let written = 0;
  for (const [fid, agg] of aggregates.feeds) {
    const threats = (shared.feeds.get(fid) ?? []).map(({ id, indicators }) => ({ indicators, ...listed.threats.get(id)! }));
    const row = feedSummaryRow(agg, threats);
    const before = stored.feeds.get(fid)?.row;
    if (before?.indicators === row.indicators && before.summary === row.summary) continue;
    await trx.updateTable('feeds').set(row).where('fid', '=', fid).execute();
    written++;
  }
  for (const [tid, agg] of aggregates.threats) {
    const feeds = (shared.threats.get(tid) ?? []).map(({ id, indicators }) => ({ ...listed.feeds.get(id)!, indicators }));
    const row = threatSummaryRow(agg, feeds);
    const before = stored.threats.get(tid)?.row;
    if (before?.summary === row.summary && before.updated_last_domain === row.updated_last_domain) continue;
    await trx.updateTable('threats').set(row).where('tid', '=', tid).execute();
    written++;
  }
  return written;
}
