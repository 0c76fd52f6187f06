// The rows the STIX projection reads (src/stix/project-records.ts), in bounded chunks, for the STIX sync of an import.
import { sql, type Kysely } from 'kysely';
import type { Threat } from '../../domain.js';
import { storedIdentityCreated, type IndicatorRecord, type OrganizationRecord, type ThreatLinkRecord } from '../../stix/project-records.js';
import { stixIdForIdentity } from '../../stix/index.js';
import { toThreatRecord } from '../db/record-rows.js';
import type { Database } from '../db/schema.js';
import { indicatorRecordColumns, linkRecordColumns } from './version-records.js';

export const CHUNK = 1000;

const INDICATOR_RECORD = indicatorRecordColumns();
const LINK_RECORD = linkRecordColumns();

/**
 * Every feed organization, with the `created` of its identity: the one its stored version shows,
 * as no later version may change it (STIX 2.1 §3.2), or `firstRecorded` (the time of this import)
 * for an organization this import records first. Identities are few, and keep their bodies.
 */
export async function readOrganizations(db: Kysely<Database>, firstRecorded: string): Promise<OrganizationRecord[]> {
  const rows = await db.selectFrom('feeds').select('organization').distinct().orderBy('organization').execute();
  const ids = rows.map((r) => stixIdForIdentity(r.organization));
  const stored = new Map<string, string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const bodies = await db.selectFrom('stix_objects').select(['id', 'body']).where('id', 'in', ids.slice(i, i + CHUNK)).execute();
    for (const { id, body } of bodies) stored.set(id, storedIdentityCreated(body));
  }
  return rows.map((r, i) => ({ name: r.organization, created: stored.get(ids[i]!) ?? firstRecorded }));
}

export async function readThreats(db: Kysely<Database>, tids: readonly number[]): Promise<Threat[]> {
  const out: Threat[] = [];
  for (let i = 0; i < tids.length; i += CHUNK) {
    const rows = await db.selectFrom('threats').selectAll().where('tid', 'in', tids.slice(i, i + CHUNK)).orderBy('tid').execute();
    out.push(...rows.map(toThreatRecord));
  }
  return out;
}

/**
 * The indicators with these iids, in iid order, but those a feed delete withdrew (retired with the
 * reason `feed-deleted`, ingest/feed-delete.ts): they have no STIX form any more, so the sync revokes
 * their objects, as it does an indicator's that lost its pattern.
 */
export async function readIndicators(db: Kysely<Database>, iids: readonly number[]): Promise<IndicatorRecord[]> {
  if (iids.length === 0) return [];
  const { rows } = await sql<IndicatorRecord>`select ${INDICATOR_RECORD} from indicators i
    where i.iid in (${sql.join(iids)}) and (i.retired_reason is null or i.retired_reason <> 'feed-deleted') order by i.iid`.execute(db);
  return rows;
}

/** The indicators after iid `after`, `limit` at most, in iid order; `last` is null after the last page. */
export async function readIndicatorsAfter(db: Kysely<Database>, after: number, limit: number): Promise<{ rows: IndicatorRecord[]; last: number | null }> {
  const { rows } = await sql<IndicatorRecord>`
    select ${INDICATOR_RECORD} from indicators i where i.iid > ${after} order by i.iid limit ${limit}`.execute(db);
  return { rows, last: rows.length < limit ? null : Number(rows.at(-1)!.iid) };
}

type LinkKey = { tid: number; iid: number };

/**
 * Every threat link after `after`, `limit` at most, in (tid, iid) order, with its threat's category
 * (an import into a fresh store renders them all); `last` is null after the last page.
 */
export async function readLinksAfter(db: Kysely<Database>, after: LinkKey, limit: number): Promise<{ rows: ThreatLinkRecord[]; last: LinkKey | null }> {
  const { rows } = await sql<ThreatLinkRecord>`
    select ${LINK_RECORD}
    from threat_links tl join threats t on t.tid = tl.tid
    where (tl.tid, tl.iid) > (${after.tid}, ${after.iid})
    order by tl.tid, tl.iid limit ${limit}`.execute(db);
  return { rows, last: lastKey(rows, limit) };
}

/**
 * The staged threat links (table render_links) after `after`, in (tid, iid) order: those of
 * indicators with a live STIX object; `last` is null after the last page. The page of staged keys
 * is taken first, alone (materialized: its index gives it in order), then joined to the links,
 * threats and objects a key at a time: PostgreSQL planned the whole join for every page otherwise,
 * reading all of stix_objects for each page of a million staged links. `last` is the page's last
 * staged key, so a page whose links all lack a live object does not end the walk.
 */
export async function readStagedLinks(db: Kysely<Database>, after: LinkKey, limit: number): Promise<{ rows: ThreatLinkRecord[]; last: LinkKey | null }> {
  const { rows } = await sql<ThreatLinkRecord & { page_tid: number; page_iid: number; live: number }>`
    with page as materialized (
      select tid, iid from render_links where (tid, iid) > (${after.tid}, ${after.iid}) order by tid, iid limit ${limit})
    select ${LINK_RECORD}, r.tid as page_tid, r.iid as page_iid,
      case when exists (select 1 from stix_objects s where s.iid = r.iid and s.type = 'indicator' and s.revoked = 0) then 1 else 0 end as live
    from page r
    left join threat_links tl on tl.tid = r.tid and tl.iid = r.iid
    left join threats t on t.tid = r.tid
    order by r.tid, r.iid`.execute(db);
  const end = rows.at(-1);
  const last = rows.length < limit || end === undefined ? null : { tid: Number(end.page_tid), iid: Number(end.page_iid) };
  const links = rows
    .filter((row) => row.iid !== null && Number(row.live) === 1)
    .map(({ page_tid: _tid, page_iid: _iid, live: _live, ...link }) => link);
  return { rows: links, last };
}

function lastKey(rows: readonly ThreatLinkRecord[], limit: number): LinkKey | null {
  const last = rows.length < limit ? undefined : rows.at(-1);
  return last ? { tid: Number(last.tid), iid: Number(last.iid) } : null;
}
