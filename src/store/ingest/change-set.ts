// What an import stages and records in temporary tables of its transaction: the links (whose targets
// may come later in the file), the keys of every record read (KEY_STAGING, write-batch.ts), and the keys of the
// records it inserted or changed. Later steps (page ranks, aggregates, STIX objects) read these
// tables in pages, so an import of any size holds none of it in memory.
import { sql, type Generated, type Kysely, type Transaction } from 'kysely';
import { ImportError } from '../../errors.js';
import type { Dialect } from '../db/migrations.js';
import type { Database } from '../db/schema.js';
import { LINK_KIND } from '../contract/write-batch.js';
import { createReplacedIndicators, dropReplacedIndicators } from '../publish/stix-revocation.js';

export { LINK_KIND };

/** The temporary tables of an import. */
export interface StagingDatabase {
  /**
   * Every link of the file; `changed` is 1 for those that were new or had another stamp_linked,
   * `added` 1 for those that were new (the store held no link of that owner and indicator).
   */
  import_links: {
    kind: number; owner: number; iid: number; stamp_linked: string; ordinal: number; position: string; changed: Generated<number>; added: Generated<number>;
  };
  /** Every tid, fid and iid of the file, at its first position; a conflicting repeat marks it (KEY_STAGING, write-batch.ts). */
  import_keys: {
    kind: number; id: number; content: number; ordinal: number; position: string; conflict_ordinal: number | null; conflict_position: string | null;
  };
  changed_threats: { id: number };
  changed_feeds: { id: number };
  changed_indicators: { id: number };
}

export type ChangedTable = 'changed_threats' | 'changed_feeds' | 'changed_indicators';
const CHANGED_TABLES: readonly ChangedTable[] = ['changed_threats', 'changed_feeds', 'changed_indicators'];
const STAGING_TABLES = ['import_links', 'import_keys', ...CHANGED_TABLES];

/** The staging tables seen through Kysely, in the import's transaction. */
export function staged(trx: Kysely<Database>): Kysely<StagingDatabase> {
  return trx as unknown as Kysely<StagingDatabase>;
}

/** `fresh`: the store holds no data (ImportChanges.fresh), so every staged link is new. */
export async function createStaging(trx: Transaction<Database>, dialect: Dialect, fresh: boolean): Promise<void> {
  // SQLite keeps temporary tables for the connection's life: a failed import may have left them.
  for (const table of STAGING_TABLES) await sql`drop table if exists ${sql.table(table)}`.execute(trx);
  const onCommit = dialect === 'postgres' ? sql`on commit drop` : sql``;
  // SQLite keeps the staged links in their key's B-tree alone (no rowid table beside it): each
  // link is written once, and moveLinks reads them in key order without a lookup per row.
  const withoutRowid = dialect === 'sqlite' ? sql`without rowid` : sql``;
  await sql`create temporary table import_links (
    kind integer not null, owner bigint not null, iid bigint not null, stamp_linked text not null,
    ordinal bigint not null, position text not null, changed integer not null default ${sql.lit(fresh ? 1 : 0)},
    added integer not null default ${sql.lit(fresh ? 1 : 0)},
    primary key (kind, owner, iid)) ${withoutRowid} ${onCommit}`.execute(trx);
  await sql`create temporary table import_keys (
    kind integer not null, id bigint not null, content bigint not null, ordinal bigint not null, position text not null,
    conflict_ordinal bigint, conflict_position text,
    primary key (kind, id)) ${withoutRowid} ${onCommit}`.execute(trx);
  for (const table of CHANGED_TABLES) {
    await sql`create temporary table ${sql.table(table)} (id bigint primary key) ${onCommit}`.execute(trx);
  }
  await createReplacedIndicators(trx, dialect);
}

export async function dropStaging(trx: Transaction<Database>): Promise<void> {
  for (const table of STAGING_TABLES) await sql`drop table if exists ${sql.table(table)}`.execute(trx);
  await dropReplacedIndicators(trx);
}

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
