// The change set of a write: which records it inserted or changed, the links it staged, and the
// rows indicators had before it changed them, in the temporary tables of its transaction
// (temp-tables.ts). The writers of rows, pulls and lifecycle runs note what they change here;
// derive and publish read only this.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { ImportError } from '../../errors.js';
import type { Database } from '../db/schema.js';
import { LINK_KIND } from '../contract/write-batch.js';
import type { IndicatorUpsertRow } from '../contract/staging-rows.js';
import { CHANGES, staged, type ChangeTables } from './temp-tables.js';

export { LINK_KIND };

/**
 * How many records an import inserted or changed. Which ones is in the staging tables of the
 * transaction (temp-tables.ts), for the derive and publish stages that follows in the same transaction.
 */
export interface ImportChanges {
  threats: number;
  feeds: number;
  indicators: number;
  feedLinks: number;
  threatLinks: number;
  /**
   * The store held no data before this import (no records, links or STIX objects): everything in
   * it is new, so later steps may write it in bulk instead of comparing with what was there.
   */
  fresh: boolean;
  /** A feed pull: it changes the feed's pull stamps and sightings even when no record changed. */
  pulled: boolean;
}

/** The linked records and indicators a write's changes name: which change set table holds their keys. */
const CHANGED_OF = { threats: CHANGES.threats, feeds: CHANGES.feeds, indicators: CHANGES.indicators } as const;

/**
 * What ingest hands derive and publish: how much changed, and queries over what changed, which they
 * read as subqueries; only this module and the writers of ingest name the change set's tables.
 */
export interface ChangeSet extends ImportChanges {
  /**
   * The write's links of one kind (LINK_KIND), or of both, that are new to the store (`added`), or
   * new or restamped (`changed`).
   */
  links(which: 'added' | 'changed', kind?: 0 | 1): RawBuilder<{ kind: number; owner: number; iid: number }>;
  /** The keys of the records of one table that the write inserted or changed. */
  changedIds(records: keyof typeof CHANGED_OF): RawBuilder<{ id: number }>;
  /** The rows indicators had before the write changed them; `repatterned` 1 when their type or value changed. */
  replacedIndicators(): RawBuilder<ReplacedIndicatorRow>;
}

export type ReplacedIndicatorRow = ChangeTables['replaced_indicators'];

/** The change set of a write whose changes are `counts`, staged in its transaction's tables. */
export function changeSetOf(counts: ImportChanges): ChangeSet {
  return {
    ...counts,
    links: (which, kind) => {
      const flag = which === 'added' ? sql`added = 1` : sql`changed = 1`;
      const ofKind = kind === undefined ? sql`` : sql` and kind = ${kind}`;
      return sql`select kind, owner, iid from ${CHANGES.links} where ${flag}${ofKind}`;
    },
    changedIds: (records) => sql`select id from ${CHANGED_OF[records]}`,
    replacedIndicators: () =>
      sql`select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned from ${CHANGES.replacedIndicators}`,
  };
}

export function anyChange(changes: ImportChanges): boolean {
  return changes.threats + changes.feeds + changes.indicators + changes.feedLinks + changes.threatLinks > 0;
}

export type ChangedTable = keyof Pick<ChangeTables, 'changed_threats' | 'changed_feeds' | 'changed_indicators'>;

/** Records keys of records that an upsert inserted or changed. */
export async function noteChanged(trx: Kysely<Database>, table: ChangedTable, keys: readonly number[]): Promise<void> {
  if (keys.length === 0) return;
  await staged(trx)
    .insertInto(table)
    .values(keys.map((id) => ({ id })))
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

export async function countChanged(trx: Kysely<Database>, table: ChangedTable): Promise<number> {
  const row = await staged(trx).selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Every staged link must point at an indicator and a feed or threat that exist (in the store or this file). */
export async function checkLinkTargets(trx: Transaction<Database>): Promise<void> {
  // The links are checked in iid order, so the indicators are looked up in their own order (the
  // staging table's order, by owner, would visit the indicator pages at random).
  const { rows } = await sql<{ position: string; reason: string }>`
    with s as materialized (select kind, owner, iid, ordinal, position from import_links order by iid)
    select position, case
      when not exists (select 1 from indicators i where i.iid = s.iid) then 'link iid: no indicator with iid ' || s.iid
      when s.kind = 0 then 'link fid: no feed with fid ' || s.owner
      else 'link tid: no threat with tid ' || s.owner end as reason
    from s
    where not exists (select 1 from indicators i where i.iid = s.iid)
       or (s.kind = 0 and not exists (select 1 from feeds f where f.fid = s.owner))
       or (s.kind = 1 and not exists (select 1 from threats t where t.tid = s.owner))
    order by s.ordinal limit 1`.execute(trx);
  const bad = rows[0];
  if (bad) throw new ImportError(bad.position, bad.reason);
}

/**
 * Marks the staged links that are new or changed (and those that are new as added), and writes
 * those into place; returns how many. Into a store that held no links (`fresh`), every link is new
 * (and staged as changed and added): they go in owner and iid order with their page ranks (seq)
 * already set, so no rank needs rewriting afterwards.
 */
export async function moveLinks(trx: Transaction<Database>, kind: 0 | 1, fresh: boolean): Promise<number> {
  const table = kind === LINK_KIND.feed ? sql.table('feed_links') : sql.table('threat_links');
  const owner = kind === LINK_KIND.feed ? sql.ref('fid') : sql.ref('tid');
  if (fresh) {
    const result = await sql`
      insert into ${table} (${owner}, iid, stamp_linked, seq)
      select owner, iid, stamp_linked, row_number() over (partition by owner order by iid) - 1
      from import_links where kind = ${kind} order by owner, iid`.execute(trx);
    return Number(result.numAffectedRows ?? 0n);
  }
  await sql`update import_links set changed = 1, added = case when exists (
      select 1 from ${table} l where l.${owner} = import_links.owner and l.iid = import_links.iid) then 0 else 1 end
    where kind = ${kind} and not exists (
      select 1 from ${table} l where l.${owner} = import_links.owner and l.iid = import_links.iid and l.stamp_linked = import_links.stamp_linked)`.execute(trx);
  const result = await sql`
    insert into ${table} (${owner}, iid, stamp_linked, seq)
    select owner, iid, stamp_linked, -1 from import_links where kind = ${kind} and changed = 1
    on conflict (${owner}, iid) do update set stamp_linked = excluded.stamp_linked`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/*
 * An import that changes an indicator's type or value may leave it without a STIX form (a value
 * that is no address of its new type). Its object is then revoked, and the revoked version must
 * repeat what clients hold, which only the indicator's earlier row can render: the rows of such
 * changes are kept here (`repatterned` 1), in the import's transaction, before the import
 * overwrites them. The earlier rows of the indicators changed otherwise are kept too (`repatterned`
 * 0): the aggregates take an indicator's earlier contribution away from its feeds and threats
 * before adding its new one (value-counts.ts).
 */

/**
 * Keeps the current rows of the indicators in an upsert batch that the batch changes (another
 * content hash: the upsert's own test), marking those whose type or value changes. A batch that
 * changes nothing (a re-import) reads the hashes alone.
 */
export async function keepReplacedIndicators(trx: Transaction<Database>, batch: readonly IndicatorUpsertRow[]): Promise<void> {
  const incoming = new Map<number, { pattern: string; hash: string }>();
  for (const [iid, value, type, , , , , , , , hash] of batch) incoming.set(iid, { pattern: `${type}\u0000${value}`, hash });
  if (incoming.size === 0) return;
  const { rows } = await sql<{ iid: number; type: string; value: string; content_hash: string }>`
    select iid, type, value, content_hash from indicators where iid in (${sql.join([...incoming.keys()])})`.execute(trx);
  const changed: number[] = [];
  const repatterned: number[] = [];
  for (const r of rows) {
    const next = incoming.get(Number(r.iid))!;
    if (next.hash === r.content_hash) continue;
    changed.push(Number(r.iid));
    if (next.pattern !== `${r.type}\u0000${r.value}`) repatterned.push(Number(r.iid));
  }
  if (changed.length === 0) return;
  const marked = repatterned.length === 0 ? sql`0` : sql`case when iid in (${sql.join(repatterned)}) then 1 else 0 end`;
  // A key comes at most once with its content (record-checks.ts), so a row is kept once, from before the import.
  await sql`insert into replaced_indicators (iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned)
    select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, ${marked} from indicators where iid in (${sql.join(changed)})
    on conflict (iid) do nothing`.execute(trx);
}

/**
 * Keeps the current rows of the indicators `iids` selects (a query giving one iid column), for a
 * writer that changes indicators in place rather than by upsert batches (a pull raising a risk): the
 * aggregates then take their earlier rows away from their owners' counts instead of reading those
 * owners again (value-counts.ts). Rows kept of indicators that do not change in the end are unused.
 */
export async function keepIndicatorRows(trx: Kysely<Database>, iids: RawBuilder<unknown>): Promise<void> {
  await sql`insert into replaced_indicators (iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned)
    select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, 0 from indicators where iid in (${iids})
    on conflict (iid) do nothing`.execute(trx);
}
