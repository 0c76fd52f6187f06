// Staged links of an import: a temporary table, the check that their targets exist, the move into place.
import { sql, type Transaction } from 'kysely';
import { ImportError } from '../errors.js';
import type { Dialect } from './migrations.js';
import type { Database } from './schema.js';

/** The temporary table links wait in until every record of the import is written. */
export interface StagingDatabase {
  import_links: { kind: number; owner: number; iid: number; stamp_linked: string; ordinal: number; position: string };
}

export async function createStaging(trx: Transaction<Database>, dialect: Dialect): Promise<void> {
  await sql`drop table if exists import_links`.execute(trx);
  const onCommit = dialect === 'postgres' ? sql`on commit drop` : sql``;
  await sql`create temporary table import_links (
    kind integer not null, owner bigint not null, iid bigint not null, stamp_linked text not null,
    ordinal bigint not null, position text not null, primary key (kind, owner, iid)) ${onCommit}`.execute(trx);
}

/** Every staged link must point at an indicator and a feed or threat that exist (in the store or this file). */
export async function checkLinkTargets(trx: Transaction<Database>): Promise<void> {
  const { rows } = await sql<{ position: string; reason: string }>`
    select position, case
      when not exists (select 1 from indicators i where i.iid = s.iid) then 'link iid: no indicator with iid ' || s.iid
      when s.kind = 0 then 'link fid: no feed with fid ' || s.owner
      else 'link tid: no threat with tid ' || s.owner end as reason
    from import_links s
    where not exists (select 1 from indicators i where i.iid = s.iid)
       or (s.kind = 0 and not exists (select 1 from feeds f where f.fid = s.owner))
       or (s.kind = 1 and not exists (select 1 from threats t where t.tid = s.owner))
    order by s.ordinal limit 1`.execute(trx);
  const bad = rows[0];
  if (bad) throw new ImportError(bad.position, bad.reason);
}

/** Moves staged links into place; returns the (owner, iid) pairs inserted or changed. */
export async function moveLinks(trx: Transaction<Database>, kind: 0 | 1): Promise<{ owner: number; iid: number }[]> {
  const table = kind === 0 ? sql.table('feed_links') : sql.table('threat_links');
  const owner = kind === 0 ? sql.ref('fid') : sql.ref('tid');
  const { rows } = await sql<{ owner: number; iid: number }>`
    insert into ${table} (${owner}, iid, stamp_linked, seq)
    select owner, iid, stamp_linked, -1 from import_links where kind = ${kind}
    on conflict (${owner}, iid) do update set stamp_linked = excluded.stamp_linked
    where ${table}.stamp_linked <> excluded.stamp_linked
    returning ${owner} as owner, iid`.execute(trx);
  return rows.map((r) => ({ owner: Number(r.owner), iid: Number(r.iid) }));
}
