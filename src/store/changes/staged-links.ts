// The links of a write, staged in the change set (import_links) until their targets are known: a
// file's links may come before the records they name, and a pull makes its links once its values
// have indicators. Once checked they are moved into place, each marked new or restamped for the
// stages after ingest (ChangeSet.links).
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { insertRows, type RowTable } from '../db/bulk-insert.js';
import type { Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { LINK_KIND } from '../contract/write-batch.js';
import type { LinkStagingRow } from '../contract/staging-rows.js';

/** A file's links: a link given twice keeps its last stamp and place. */
const LINK_STAGING: RowTable<LinkStagingRow> = {
  table: 'import_links',
  columns: ['kind', 'owner', 'iid', 'stamp_linked', 'ordinal', 'position'],
  tail: `on conflict (kind, owner, iid) do update set stamp_linked = excluded.stamp_linked, ordinal = excluded.ordinal, position = excluded.position`,
  arrays: ['integer', 'bigint', 'bigint', 'text', 'bigint', 'text'],
};

/** Stages one batch of a file's links. */
export async function stageLinks(trx: Transaction<Database>, dialect: Dialect, rows: readonly LinkStagingRow[]): Promise<void> {
  await insertRows(trx, dialect, LINK_STAGING, rows);
}

/**
 * Stages the links `links` selects, for a writer that makes them in one statement (a pull): its
 * columns are a LinkStagingRow's, in its order (kind, owner, iid, stamp_linked, ordinal, position),
 * and no link may be staged already. Returns how many were staged.
 */
export async function stageLinksFrom(trx: Kysely<Database>, links: RawBuilder<unknown>): Promise<number> {
  const result = await sql`insert into import_links (kind, owner, iid, stamp_linked, ordinal, position) ${links}`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/** Every link staged so far, of one kind (LINK_KIND) or of both, as a subquery: for the writers, before the links move. */
export function stagedLinks(kind?: 0 | 1): RawBuilder<{ kind: number; owner: number; iid: number }> {
  return sql`select kind, owner, iid from import_links${kind === undefined ? sql`` : sql` where kind = ${kind}`}`;
}

/**
 * The first staged link, in file order, that points at no indicator, or at no feed or threat (in
 * the store or the write): its position and why; undefined when every link has its targets.
 */
export async function firstMissingLinkTarget(trx: Kysely<Database>): Promise<{ position: string; reason: string } | undefined> {
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
  return rows[0];
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
  // A new link after its owner's last one (a new indicator's, as new iids come last) takes its rank
  // here: the last link's plus its place among them. Any other gets -1 until derive ranks the
  // owner's links from its first new one on (renumberLinks), which then finds the appended ones
  // ranked already and rewrites none of them (PostgreSQL writes every updated row anew, in each of
  // the table's indexes, as seq is one).
  // An added link has no row to meet, so it goes in without a conflict clause, whose check of each
  // row cost PostgreSQL more than the insert (bench/README.md, "PostgreSQL: no conflict clause where
  // none can conflict"); only a link whose stamp changed is written over its row.
  const addedLinks = sql`select owner, iid, stamp_linked from import_links where kind = ${kind} and added = 1`;
  const added = await sql`
    with owners as (
      select o.owner, coalesce((select max(l.iid) from ${table} l where l.${owner} = o.owner), 0) as last_iid
      from (select distinct owner from import_links where kind = ${kind} and added = 1) as o),
    ends as (
      select owners.owner, owners.last_iid,
        coalesce((select l.seq from ${table} l where l.${owner} = owners.owner and l.iid = owners.last_iid), -1) as last_seq
      from owners)
    insert into ${table} (${owner}, iid, stamp_linked, seq)
    select c.owner, c.iid, c.stamp_linked,
      case when c.iid > e.last_iid then e.last_seq + row_number() over (partition by c.owner, c.iid > e.last_iid order by c.iid) else -1 end
    from (${addedLinks}) as c join ends e on e.owner = c.owner
    order by c.owner, c.iid`.execute(trx);
  const restamped = await sql`
    update ${table} set stamp_linked = c.stamp_linked
    from (select owner, iid, stamp_linked from import_links where kind = ${kind} and changed = 1 and added = 0) as c
    where ${table}.${owner} = c.owner and ${table}.iid = c.iid`.execute(trx);
  return Number(added.numAffectedRows ?? 0n) + Number(restamped.numAffectedRows ?? 0n);
}
