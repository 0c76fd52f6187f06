// The STIX objects of changed records, read in bounded chunks for the STIX sync of an import.
import { hash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Risk } from '../domain.js';
import {
  isPatternedIndicatorType,
  stixIdForIdentity,
  stixIdForIndicator,
  stixIdForIndicatorLink,
  stixIdForThreat,
  stixIdForThreatRecord,
  THREATGATE_IDENTITY,
  threatSdoType,
  toStixIdentity,
  toStixIndicator,
  toStixRelationship,
  toStixThreat,
  type StixObject,
} from '../stix/index.js';
import { toThreatRecord } from './lookup-queries.js';
import type { Database, IndicatorTable } from './schema.js';

/** A record's STIX object, identified before it is built: `render(modified)` builds one version (pure). */
export interface ObjectSource {
  id: string;
  iid: number | null;
  tid: number | null;
  /** Throws a StixMappingError when the record has no STIX form (a malformed value, say). */
  render(modified: string): StixObject;
}

export const CHUNK = 1000;

/** `json` without its first `,"key":"…"` member (timestamps hold no quote or escape). */
function withoutMember(json: string, key: string): string {
  const marker = `,"${key}":"`;
  const at = json.indexOf(marker);
  if (at === -1) return json;
  const end = json.indexOf('"', at + marker.length);
  return json.slice(0, at) + json.slice(end + 1);
}

/**
 * SHA-256 of a serialized object without the members that only record when a version was made:
 * `modified`, and an indicator's `valid_until`, which follows `modified` when it is retired. Two
 * serializations with equal hashes are one version. Every mapper writes `modified` before any
 * member that holds imported text, so the first match is the object's own.
 */
export function versionHash(type: string, json: string): string {
  let rest = withoutMember(json, 'modified');
  if (type === 'indicator') rest = withoutMember(rest, 'valid_until');
  return hash('sha256', rest);
}

export async function renderIdentities(db: Kysely<Database>): Promise<ObjectSource[]> {
  const rows = await db.selectFrom('feeds').select('organization').distinct().orderBy('organization').execute();
  return [
    { id: THREATGATE_IDENTITY.id, iid: null, tid: null, render: () => ({ ...THREATGATE_IDENTITY }) },
    ...rows.map(({ organization }) => ({
      id: stixIdForIdentity(organization),
      iid: null,
      tid: null,
      render: (modified: string) => toStixIdentity(organization, { modified }),
    })),
  ];
}

export async function renderThreats(db: Kysely<Database>, tids: number[]): Promise<ObjectSource[]> {
  const out: ObjectSource[] = [];
  for (let i = 0; i < tids.length; i += CHUNK) {
    const rows = await db.selectFrom('threats').selectAll().where('tid', 'in', tids.slice(i, i + CHUNK)).orderBy('tid').execute();
    for (const row of rows) {
      const threat = toThreatRecord(row);
      out.push({ id: stixIdForThreat(threat), iid: null, tid: threat.tid, render: (modified) => toStixThreat(threat, { modified }) });
    }
  }
  return out;
}

type IndicatorWithOrganization = Omit<IndicatorTable, 'content_hash'> & { organization: string | null };

/** The columns of an indicator to render, with the organization of its lowest-numbered feed (created_by_ref). */
const INDICATOR_COLUMNS = sql`i.iid, i.value, i.type, i.risk, i.stamp_added, i.stamp_updated, i.stamp_seen, i.retired, i.attributes, i.properties,
  (select f.organization from feed_links fl join feeds f on f.fid = fl.fid where fl.iid = i.iid order by fl.fid limit 1) as organization`;

/** Indicators with the organization of their lowest-numbered feed, which becomes created_by_ref. */
export async function renderIndicators(db: Kysely<Database>, iids: number[]): Promise<ObjectSource[]> {
  const { rows } = await sql<IndicatorWithOrganization>`select ${INDICATOR_COLUMNS} from indicators i where i.iid in (${sql.join(iids)}) order by i.iid`.execute(db);
  return indicatorSources(rows);
}

/**
 * The indicators after iid `after`, `limit` at most, in iid order: their sources, every iid read
 * (with a STIX form or not), and the last iid read (null after the last page).
 */
export async function renderIndicatorsAfter(
  db: Kysely<Database>,
  after: number,
  limit: number,
): Promise<{ sources: ObjectSource[]; read: number[]; last: number | null }> {
  const { rows } = await sql<IndicatorWithOrganization>`
    select ${INDICATOR_COLUMNS} from indicators i where i.iid > ${after} order by i.iid limit ${limit}`.execute(db);
  const read = rows.map((row) => Number(row.iid));
  return { sources: indicatorSources(rows), read, last: rows.length < limit ? null : read.at(-1)! };
}

function indicatorSources(rows: IndicatorWithOrganization[]): ObjectSource[] {
  const out: ObjectSource[] = [];
  // Few organizations, many indicators: each identity id is made once per chunk.
  const identities = new Map<string, string>();
  const identityOf = (organization: string): string => {
    let id = identities.get(organization);
    if (id === undefined) identities.set(organization, (id = stixIdForIdentity(organization)));
    return id;
  };
  for (const row of rows) {
    if (!isPatternedIndicatorType(row.type)) continue;
    const iid = Number(row.iid);
    const indicator = {
      iid,
      indicator: row.value,
      type: row.type,
      risk: row.risk as Risk,
      stamp_added: row.stamp_added,
      stamp_updated: row.stamp_updated,
      stamp_seen: row.stamp_seen,
      retired: row.retired === null ? null : Number(row.retired) === 1,
      attributes: JSON.parse(row.attributes),
      properties: JSON.parse(row.properties),
    };
    const createdByRef = row.organization === null ? THREATGATE_IDENTITY.id : identityOf(row.organization);
    out.push({ id: stixIdForIndicator(iid), iid, tid: null, render: (modified) => toStixIndicator(indicator, { modified, createdByRef }) });
  }
  return out;
}

interface LinkRow {
  iid: number;
  tid: number;
  stamp_linked: string;
  category: string;
}

type LinkPage = { sources: ObjectSource[]; last: { tid: number; iid: number } | null };

/**
 * Relationships of the staged threat links (table render_links) after `after`, in (tid, iid) order;
 * links of indicators without a STIX object are left out. `last` is null after the last page.
 */
export async function renderLinkPage(db: Kysely<Database>, after: { tid: number; iid: number }, limit: number): Promise<LinkPage> {
  const { rows } = await sql<LinkRow & { indicator_type: string }>`
    select r.iid, r.tid, tl.stamp_linked, t.category, i.type as indicator_type
    from render_links r
    join threat_links tl on tl.tid = r.tid and tl.iid = r.iid
    join threats t on t.tid = r.tid
    join indicators i on i.iid = r.iid
    where (r.tid, r.iid) > (${after.tid}, ${after.iid})
      and exists (select 1 from stix_objects s where s.iid = r.iid and s.type = 'indicator')
    order by r.tid, r.iid limit ${limit}`.execute(db);
  return linkPage(
    rows.filter((row) => isPatternedIndicatorType(row.indicator_type)),
    rows.length < limit ? undefined : rows.at(-1),
  );
}

/**
 * Relationships of every threat link after `after`, in (tid, iid) order, for an import into a fresh
 * store, where every indicator was rendered by the same import: those in `withoutObject` got no
 * STIX object, and their links are left out. `last` is null after the last page.
 */
export async function renderAllLinksPage(
  db: Kysely<Database>,
  after: { tid: number; iid: number },
  limit: number,
  withoutObject: ReadonlySet<number>,
): Promise<LinkPage> {
  const { rows } = await sql<LinkRow>`
    select tl.iid, tl.tid, tl.stamp_linked, t.category
    from threat_links tl join threats t on t.tid = tl.tid
    where (tl.tid, tl.iid) > (${after.tid}, ${after.iid})
    order by tl.tid, tl.iid limit ${limit}`.execute(db);
  return linkPage(
    rows.filter((row) => !withoutObject.has(Number(row.iid))),
    rows.length < limit ? undefined : rows.at(-1),
  );
}

/** The relationship sources of threat links; `lastRow` is the last row read when more may follow. */
function linkPage(rows: LinkRow[], lastRow: LinkRow | undefined): LinkPage {
  const sources: ObjectSource[] = [];
  // Few threats per page: each threat's id is made once.
  const targets = new Map<number, { type: string; ref: string }>();
  for (const row of rows) {
    const link = { iid: Number(row.iid), tid: Number(row.tid), stamp_linked: row.stamp_linked };
    let target = targets.get(link.tid);
    if (target === undefined) {
      const type = threatSdoType(row.category).type;
      targets.set(link.tid, (target = { type, ref: stixIdForThreatRecord(link.tid, type) }));
    }
    const { type: targetType, ref: targetRef } = target;
    const sourceRef = stixIdForIndicator(link.iid);
    const render = (modified: string) => toStixRelationship(link, { modified, sourceRef, targetRef, createdByRef: THREATGATE_IDENTITY.id });
    sources.push({ id: stixIdForIndicatorLink(link.iid, link.tid, targetType), iid: link.iid, tid: link.tid, render });
  }
  return { sources, last: lastRow ? { tid: Number(lastRow.tid), iid: Number(lastRow.iid) } : null };
}
