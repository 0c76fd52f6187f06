// Every value's count per feed and threat (owner_value_counts, migration 0007), and the import's
// update of its touched owners from them: what the import changed is added to (and taken away from)
// the stored counts, so an owner costs what changed, not what it holds.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { aggregateOwners } from './aggregate-reads.js';
import {
  ATTRIBUTE_KEYS,
  indicatorFacts,
  OwnerCounts,
  type AggregateResults,
  type CountCell,
  type IndicatorAggregateRow,
  type IndicatorFacts,
  type OwnerKind,
} from './aggregates.js';
import { LINK_KIND } from '../contract/write-batch.js';
import type { ChangeSet } from '../changes/change-set.js';
import type { Database } from '../db/schema.js';
import type { StoredSummaries } from './summary-writes.js';
import type { OwnerIds } from '../contract/commands.js';
import { slices } from './slices.js';

/** Rows read per statement. */
const CHUNK = 5000;

const SIDES = {
  feed: { kind: LINK_KIND.feed, links: 'feed_links', owner: 'fid' },
  threat: { kind: LINK_KIND.threat, links: 'threat_links', owner: 'tid' },
} as const;

const KINDS = ['feed', 'threat'] as const;

/** The stored counts of the given owners of one kind, or of all of them (an owner without rows is absent). */
export async function readOwnerCounts(db: Kysely<Database>, kind: OwnerKind, owners: readonly number[] | 'all'): Promise<Map<number, OwnerCounts>> {
  const counts = new Map<number, OwnerCounts>();
  const query = db.selectFrom('owner_value_counts').select(['owner', 'facet', 'name', 'value', 'count']).where('kind', '=', SIDES[kind].kind);
  for (const slice of owners === 'all' ? [undefined] : slices(owners)) {
    for (const row of await (slice ? query.where('owner', 'in', slice) : query).execute()) {
      const owner = Number(row.owner);
      let of = counts.get(owner);
      if (!of) counts.set(owner, (of = new OwnerCounts(ATTRIBUTE_KEYS[kind])));
      of.set({ facet: Number(row.facet), name: row.name, value: row.value, count: Number(row.count) });
    }
  }
  return counts;
}

/** The counted values of one owner to write, each with its new count (0: the value is no longer counted). */
export interface CountsChange {
  owner: number;
  cells: Iterable<CountCell>;
}

/** The values whose count differs between an owner's stored counts (undefined: no rows) and its new ones. */
export function* changedCells(before: OwnerCounts | undefined, after: OwnerCounts): Generator<CountCell> {
  for (const cell of after.cells()) if (before?.count(cell) !== cell.count) yield cell;
  if (before) for (const cell of before.cells()) if (after.count(cell) === 0) yield { ...cell, count: 0 };
}

/** Rows per multi-row upsert. */
const UPSERT_ROWS = 1000;

/**
 * Writes the given counts: a value no longer counted is written with count 0 first, then each such
 * owner's zero rows go in one statement over its rows.
 */
export async function writeOwnerCounts(db: Kysely<Database>, kind: OwnerKind, changes: Iterable<CountsChange>): Promise<void> {
  const k = SIDES[kind].kind;
  let values: RawBuilder<unknown>[] = [];
  const flush = async () => {
    if (values.length === 0) return;
    await sql`insert into owner_value_counts (kind, owner, facet, name, value, count) values ${sql.join(values)}
      on conflict (kind, owner, facet, name, value) do update set count = excluded.count`.execute(db);
    values = [];
  };
  const emptied: number[] = [];
  for (const { owner, cells } of changes) {
    let gone = false;
    for (const { facet, name, value, count } of cells) {
      values.push(sql`(${k}, ${owner}, ${facet}, ${name}, ${value}, ${count})`);
      gone ||= count === 0;
      if (values.length === UPSERT_ROWS) await flush();
    }
    if (gone) emptied.push(owner);
  }
  await flush();
  for (const slice of slices(emptied)) {
    await sql`delete from owner_value_counts where kind = ${k} and owner in (${sql.join(slice)}) and count = 0`.execute(db);
  }
}

/** Writes the counts of the owners in `results` (all of them for the whole-store pass), against what is stored. */
export async function writeCountsOf(db: Kysely<Database>, results: AggregateResults, owners: OwnerIds | 'all'): Promise<void> {
  for (const kind of KINDS) {
    const computed = kind === 'feed' ? results.counts!.feeds : results.counts!.threats;
    if (computed.size === 0) continue;
    const stored = await readOwnerCounts(db, kind, owners === 'all' ? 'all' : kind === 'feed' ? owners.feeds : owners.threats);
    const changes: CountsChange[] = [...computed].map(([owner, after]) => ({ owner, cells: changedCells(stored.get(owner), after) }));
    // The whole-store pass computes every owner: rows of any other (none are expected) go.
    if (owners === 'all') for (const [owner, before] of stored) if (!computed.has(owner)) changes.push({ owner, cells: changedCells(before, new OwnerCounts(ATTRIBUTE_KEYS[kind])) });
    await writeOwnerCounts(db, kind, changes);
  }
}

/** An owner updated from its stored counts: its counts, the values changed, and what its latest domain stamp may do. */
interface Update {
  counts: OwnerCounts;
  /** The values whose count the import changed, to be written. */
  changed: CellSet;
  /** The stored latest domain stamp (threats only; feeds do not show one). */
  storedDomain: string | null;
  /** An indicator taken away had that latest stamp: unless one added has a later one, the owner is read again. */
  lostDomain: boolean;
  addedDomain: string | null;
}

/** A set of counted values (facet, name, value). */
class CellSet {
  private readonly cells = new Map<number, Map<string, Set<string>>>();

  add({ facet, name, value }: Omit<CountCell, 'count'>): void {
    let names = this.cells.get(facet);
    if (!names) this.cells.set(facet, (names = new Map()));
    let values = names.get(name);
    if (!values) names.set(name, (values = new Set()));
    values.add(value);
  }

  /** Each value with its count in `counts` (0 when no longer counted). */
  *withCounts(counts: OwnerCounts): Generator<CountCell> {
    for (const [facet, names] of this.cells) {
      for (const [name, values] of names) for (const value of values) yield { facet, name, value, count: counts.count({ facet, name, value }) };
    }
  }
}

/** True when the counts an owner's rows hold are what its stored summary shows (the same risk counts). */
function matchesSummary(counts: OwnerCounts, stored: { risk: Record<string, number> } | undefined): boolean {
  if (stored === undefined) return counts.risk.total === 0;
  return Object.entries(counts.risk).every(([bucket, n]) => stored.risk[bucket] === n) && Object.keys(stored.risk).length === Object.keys(counts.risk).length;
}

/**
 * The aggregates of the recomputed owners an import touched (touched-owners.ts), each from its
 * stored counts: the indicators of its new links added, and for each indicator the import changed
 * that it was linked to before, the row from before the import (changes.replacedIndicators()) taken away and
 * the new one added. An owner is read again through its links instead (aggregateOwners) when that
 * cannot be exact: its rows do not match its stored summary (none were written yet, as in a store
 * from before migration 0007), an indicator of its changed without its earlier row kept, or its
 * latest domain stamp left with an indicator. So are the owners of `read` (records new to the store).
 * Writes the counts of all of them, and returns their aggregates and which owners were read through
 * their links. Reads the import's staging tables, in its transaction.
 */
export async function countTouchedOwners(
  trx: Kysely<Database>,
  recompute: OwnerIds,
  read: OwnerIds,
  stored: StoredSummaries,
  changes: ChangeSet,
): Promise<{ results: AggregateResults; read: OwnerIds }> {
  const updates = { feed: new Map<number, Update>(), threat: new Map<number, Update>() };
  const again = { feed: new Set(read.feeds), threat: new Set(read.threats) };
  for (const kind of KINDS) {
    const owners = kind === 'feed' ? recompute.feeds : recompute.threats;
    const counts = await readOwnerCounts(trx, kind, owners);
    for (const owner of owners) {
      const before = counts.get(owner) ?? new OwnerCounts(ATTRIBUTE_KEYS[kind]);
      const summary = (kind === 'feed' ? stored.feeds : stored.threats).get(owner)?.aggregate;
      if (!matchesSummary(before, summary)) {
        again[kind].add(owner);
        continue;
      }
      const storedDomain = kind === 'threat' ? (summary?.lastDomainUpdate ?? null) : null;
      before.lastDomainUpdate = storedDomain;
      updates[kind].set(owner, { counts: before, changed: new CellSet(), storedDomain, lostDomain: false, addedDomain: null });
    }
  }
  const add = (kind: OwnerKind, owner: number, facts: IndicatorFacts, sign: 1 | -1) => {
    const update = updates[kind].get(owner);
    if (update === undefined) return;
    update.counts.add(facts, sign);
    for (const cell of update.counts.cellsOf(facts)) update.changed.add(cell);
    const stamp = facts.domainStamp;
    if (kind !== 'threat' || stamp === null) return;
    if (sign === -1 && update.storedDomain !== null && stamp >= update.storedDomain) update.lostDomain = true;
    if (sign === 1 && (update.addedDomain === null || stamp > update.addedDomain)) update.addedDomain = stamp;
  };
  const readAgain = (kind: OwnerKind, owner: number) => {
    updates[kind].delete(owner);
    again[kind].add(owner);
  };

  for (const kind of KINDS) await addNewLinks(trx, changes, kind, [...updates[kind].keys()], (owner, facts) => add(kind, owner, facts, 1));
  await replaceChangedIndicators(trx, changes, (kind, owner, before, now) => {
    if (again[kind].has(owner)) return;
    // touchedOwners recomputes every owner linked to a changed indicator, so each one has its update.
    if (!updates[kind].has(owner) || before === undefined) return readAgain(kind, owner);
    add(kind, owner, before, -1);
    add(kind, owner, now, 1);
  });
  for (const kind of KINDS) {
    for (const [owner, { lostDomain, addedDomain, storedDomain }] of updates[kind]) {
      if (lostDomain && !(addedDomain !== null && addedDomain >= storedDomain!)) readAgain(kind, owner);
    }
  }

  const results: AggregateResults = await aggregateOwners(trx, [...again.feed], [...again.threat]);
  for (const kind of KINDS) {
    const aggregates = kind === 'feed' ? results.feeds : results.threats;
    const counts = kind === 'feed' ? results.counts!.feeds : results.counts!.threats;
    const storedCounts = await readOwnerCounts(trx, kind, [...again[kind]]);
    const changes: CountsChange[] = [...counts].map(([owner, after]) => ({ owner, cells: changedCells(storedCounts.get(owner), after) }));
    for (const [owner, update] of updates[kind]) {
      aggregates.set(owner, update.counts.aggregate());
      counts.set(owner, update.counts);
      changes.push({ owner, cells: update.changed.withCounts(update.counts) });
    }
    await writeOwnerCounts(trx, kind, changes);
  }
  const sorted = (ids: Set<number>) => [...ids].sort((a, b) => a - b);
  return { results, read: { feeds: sorted(again.feed), threats: sorted(again.threat) } };
}

/** The indicators of the owners' new links (changes.links('added')), read by owner in iid order. */
async function addNewLinks(
  trx: Kysely<Database>, changes: ChangeSet, kind: OwnerKind, owners: readonly number[], add: (owner: number, facts: IndicatorFacts) => void,
): Promise<void> {
  if (owners.length === 0) return;
  const k = SIDES[kind].kind;
  const withNew = new Set<number>();
  for (const slice of slices(owners)) {
    const { rows } = await sql<{ owner: number }>`
      select distinct owner from (${changes.links('added', k)}) as s where owner in (${sql.join(slice)})`.execute(trx);
    for (const r of rows) withNew.add(Number(r.owner));
  }
  for (const owner of [...withNew].sort((a, b) => a - b)) {
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      // The bound on i too: PostgreSQL carries no inequality across a join, and its merge join read
      // indicators from the first row for every chunk.
      const { rows } = await sql<IndicatorAggregateRow & { iid: number }>`
        select i.iid, i.type, i.risk, i.retired, i.stamp_updated, i.stamp_added, i.attributes, i.properties
        from (${changes.links('added', k)}) as s join indicators i on i.iid = s.iid
        where s.owner = ${owner} and s.iid > ${after} and i.iid > ${after} order by s.iid limit ${CHUNK}`.execute(trx);
      for (const row of rows) add(owner, indicatorFacts(row));
      if (rows.length < CHUNK) break;
      after = Number(rows[rows.length - 1]!.iid);
    }
  }
}

/** Changed indicators per chunk: each chunk's rows are used as they come, so little outlives it. */
const CHANGED_CHUNK = 200;

/**
 * Each indicator the import changed, with each owner it was linked to before the import (its links
 * that are not new): its earlier facts (undefined when its earlier row was not kept) and its new ones.
 * An indicator linked to several owners is parsed once per statement.
 */
async function replaceChangedIndicators(
  trx: Kysely<Database>,
  changes: ChangeSet,
  visit: (kind: OwnerKind, owner: number, before: IndicatorFacts | undefined, now: IndicatorFacts) => void,
): Promise<void> {
  type Row = IndicatorAggregateRow & { owner: number; iid: number; kept: number | null } & { [K in keyof IndicatorAggregateRow as `was_${K}`]: IndicatorAggregateRow[K] };
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const { rows: ids } = await sql<{ id: number }>`select id from (${changes.changedIds('indicators')}) as c where id > ${after} order by id limit ${CHANGED_CHUNK}`.execute(trx);
    if (ids.length === 0) break;
    const iids = ids.map((r) => Number(r.id));
    after = iids[iids.length - 1]!;
    for (const kind of KINDS) {
      const { kind: k, links, owner } = SIDES[kind];
      // The chunk's links first, by their iid index: joined as one statement, PostgreSQL hashed the
      // write's whole staged links and kept rows (temporary tables it has no statistics for) for
      // every chunk, a cost that grew with the write, not with the chunk.
      const { rows } = await sql<Row>`
        with l as materialized (select ${sql.ref(owner)} as owner, iid from ${sql.table(links)} where iid in (${sql.join(iids)}))
        select l.owner, l.iid, i.type, i.risk, i.retired, i.stamp_updated, i.stamp_added, i.attributes, i.properties,
          r.iid as kept, r.type as was_type, r.risk as was_risk, r.retired as was_retired, r.stamp_updated as was_stamp_updated,
          r.stamp_added as was_stamp_added, r.attributes as was_attributes, r.properties as was_properties
        from l join indicators i on i.iid = l.iid left join (${changes.replacedIndicators()}) as r on r.iid = l.iid
        where not exists (select 1 from (${changes.links('added', k)}) as s where s.owner = l.owner and s.iid = l.iid)
        order by l.iid`.execute(trx);
      let iid: number | undefined;
      let now: IndicatorFacts | undefined;
      let before: IndicatorFacts | undefined;
      for (const row of rows) {
        if (Number(row.iid) !== iid) {
          iid = Number(row.iid);
          now = indicatorFacts(row);
          before =
            row.kept === null
              ? undefined
              : indicatorFacts({
                  type: row.was_type,
                  risk: row.was_risk,
                  retired: row.was_retired,
                  stamp_updated: row.was_stamp_updated,
                  stamp_added: row.was_stamp_added,
                  attributes: row.was_attributes,
                  properties: row.was_properties,
                });
        }
        visit(kind, Number(row.owner), before, now!);
      }
    }
    if (ids.length < CHANGED_CHUNK) break;
  }
}
