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
  StixMappingError,
  type ExportedIndicator,
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

/**
 * Types whose body is not stored: an indicator or relationship is rendered again from its records
 * when it is read (renderStoredBodies), which gives the same bytes, as versions are made by the
 * import whenever those records change. They are nearly all of the objects, and leaving their
 * JSON out halves the database an import writes. Identities and threats keep theirs (few).
 */
export const RENDERED_ON_READ: ReadonlySet<string> = new Set(['indicator', 'relationship']);

/** One version of an object, rendered and hashed: all of its stix_objects row but date_added. */
export interface RenderedVersion {
  id: string;
  type: string;
  modified: string;
  /** The serialized object, or '' for the types rendered on read. */
  body: string;
  iid: number | null;
  tid: number | null;
  source_hash: string;
}

/** Renders one version; undefined when the record has no STIX form (a mapping error leaves it out). */
export function renderVersion(source: ObjectSource, modified: string): RenderedVersion | undefined {
  const values: unknown[] = [];
  if (!appendVersion(values, source, modified)) return undefined;
  const [id, type, versionModified, , body, iid, tid, sourceHash] = values as [string, string, string, number, string, number | null, number | null, string];
  return { id, type, modified: versionModified, body, iid, tid, source_hash: sourceHash };
}

/**
 * Renders one version as the values of its row (VERSION_COLUMNS, date_added 0) appended to
 * `values`; false when the record has no STIX form. An import renders millions: no object per
 * version is kept on the way.
 */
function appendVersion(values: unknown[], source: ObjectSource, modified: string): boolean {
  let object: StixObject;
  try {
    object = source.render(modified);
  } catch (error) {
    if (error instanceof StixMappingError) return false;
    throw error;
  }
  const body = JSON.stringify(object);
  values.push(source.id, object.type, object.modified, 0, RENDERED_ON_READ.has(object.type) ? '' : body, source.iid, source.tid, versionHash(object.type, body));
  return true;
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

/** An indicator as rendered: the columns its SDO shows, and the organization of its lowest-numbered feed. */
export type IndicatorWithOrganization = Pick<IndicatorTable, 'iid' | 'value' | 'type' | 'risk' | 'stamp_added' | 'retired' | 'attributes'> & {
  organization: string | null;
};

/** The columns of an indicator to render, with the organization of its lowest-numbered feed (created_by_ref). */
const INDICATOR_COLUMNS = sql`i.iid, i.value, i.type, i.risk, i.stamp_added, i.retired, i.attributes,
  (select f.organization from feeds f where f.fid = (select min(fl.fid) from feed_links fl where fl.iid = i.iid)) as organization`;

/** Indicators with the organization of their lowest-numbered feed, which becomes created_by_ref. */
export async function renderIndicators(db: Kysely<Database>, iids: number[]): Promise<ObjectSource[]> {
  const { rows } = await sql<IndicatorWithOrganization>`select ${INDICATOR_COLUMNS} from indicators i where i.iid in (${sql.join(iids)}) order by i.iid`.execute(db);
  return indicatorSources(rows);
}

/** The indicators after iid `after`, `limit` at most, in iid order; `last` is null after the last page. */
export async function readIndicatorsAfter(db: Kysely<Database>, after: number, limit: number): Promise<{ rows: IndicatorWithOrganization[]; last: number | null }> {
  const { rows } = await sql<IndicatorWithOrganization>`
    select ${INDICATOR_COLUMNS} from indicators i where i.iid > ${after} order by i.iid limit ${limit}`.execute(db);
  return { rows, last: rows.length < limit ? null : Number(rows.at(-1)!.iid) };
}

/** The sources of indicators with a STIX pattern type (pure: a render worker runs it too). */
export function indicatorSources(rows: IndicatorWithOrganization[]): ObjectSource[] {
  const identityOf = identityIds();
  const out: ObjectSource[] = [];
  for (const row of rows) {
    const source = indicatorSource(row, identityOf);
    if (source !== undefined) out.push(source);
  }
  return out;
}

/** Few organizations, many indicators: each identity id is made once per chunk. */
function identityIds(): (organization: string) => string {
  const identities = new Map<string, string>();
  return (organization) => {
    let id = identities.get(organization);
    if (id === undefined) identities.set(organization, (id = stixIdForIdentity(organization)));
    return id;
  };
}

/** One indicator's source; undefined for a type without a STIX pattern. */
function indicatorSource(row: IndicatorWithOrganization, identityOf: (organization: string) => string): ObjectSource | undefined {
  if (!isPatternedIndicatorType(row.type)) return undefined;
  const iid = Number(row.iid);
  const indicator: ExportedIndicator = {
    iid,
    indicator: row.value,
    type: row.type,
    risk: row.risk as Risk,
    stamp_added: row.stamp_added,
    retired: row.retired === null ? null : Number(row.retired) === 1,
    attributes: JSON.parse(row.attributes),
  };
  const createdByRef = row.organization === null ? THREATGATE_IDENTITY.id : identityOf(row.organization);
  return { id: stixIdForIndicator(iid), iid, tid: null, render: (modified) => toStixIndicator(indicator, { modified, createdByRef }) };
}

/** A threat link as rendered: the link and its threat's category. */
export interface LinkRow {
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
      and exists (select 1 from stix_objects s where s.iid = r.iid and s.type = 'indicator' and s.revoked = 0)
    order by r.tid, r.iid limit ${limit}`.execute(db);
  const lastRow = rows.length < limit ? undefined : rows.at(-1);
  return {
    sources: linkSources(rows.filter((row) => isPatternedIndicatorType(row.indicator_type))),
    last: lastRow ? { tid: Number(lastRow.tid), iid: Number(lastRow.iid) } : null,
  };
}

/**
 * Every threat link after `after`, `limit` at most, in (tid, iid) order, with its threat's category
 * (an import into a fresh store renders them all); `last` is null after the last page.
 */
export async function readLinksAfter(
  db: Kysely<Database>,
  after: { tid: number; iid: number },
  limit: number,
): Promise<{ rows: LinkRow[]; last: { tid: number; iid: number } | null }> {
  const { rows } = await sql<LinkRow>`
    select tl.iid, tl.tid, tl.stamp_linked, t.category
    from threat_links tl join threats t on t.tid = tl.tid
    where (tl.tid, tl.iid) > (${after.tid}, ${after.iid})
    order by tl.tid, tl.iid limit ${limit}`.execute(db);
  const lastRow = rows.length < limit ? undefined : rows.at(-1);
  return { rows, last: lastRow ? { tid: Number(lastRow.tid), iid: Number(lastRow.iid) } : null };
}

/** The relationship sources of threat links (pure: a render worker runs it too). */
export function linkSources(rows: LinkRow[]): ObjectSource[] {
  const targetOf = threatTargets();
  return rows.map((row) => linkSource(row, targetOf));
}

/** Few threats per page: each threat's type and id are made once. */
function threatTargets(): (tid: number, category: string) => { type: string; ref: string } {
  const targets = new Map<number, { type: string; ref: string }>();
  return (tid, category) => {
    let target = targets.get(tid);
    if (target === undefined) {
      const type = threatSdoType(category).type;
      targets.set(tid, (target = { type, ref: stixIdForThreatRecord(tid, type) }));
    }
    return target;
  };
}

function linkSource(row: LinkRow, targetOf: (tid: number, category: string) => { type: string; ref: string }): ObjectSource {
  const link = { iid: Number(row.iid), tid: Number(row.tid), stamp_linked: row.stamp_linked };
  const { type: targetType, ref: targetRef } = targetOf(link.tid, row.category);
  const sourceRef = stixIdForIndicator(link.iid);
  const render = (modified: string) => toStixRelationship(link, { modified, sourceRef, targetRef, createdByRef: THREATGATE_IDENTITY.id });
  return { id: stixIdForIndicatorLink(link.iid, link.tid, targetType), iid: link.iid, tid: link.tid, render };
}

/** The columns of a stix_objects row, in the order of VersionRows' values. */
export const VERSION_COLUMNS = ['id', 'type', 'modified', 'date_added', 'body', 'iid', 'tid', 'source_hash'] as const;
const DATE_ADDED_AT = VERSION_COLUMNS.indexOf('date_added');
const IID_AT = VERSION_COLUMNS.indexOf('iid');

/**
 * Versions as the values of their rows, row after row (VERSION_COLUMNS), with date_added left for
 * the writer to fill: what crosses from a render worker, without an object per version.
 */
export interface VersionRows {
  values: unknown[];
  count: number;
}

export function versionRows(versions: readonly RenderedVersion[]): VersionRows {
  const values: unknown[] = [];
  for (const v of versions) values.push(v.id, v.type, v.modified, 0, v.body, v.iid, v.tid, v.source_hash);
  return { values, count: versions.length };
}

/** Dates each row in turn with `next()`. */
export function dateVersionRows(rows: VersionRows, next: () => number): void {
  const width = VERSION_COLUMNS.length;
  for (let i = 0; i < rows.count; i++) rows.values[i * width + DATE_ADDED_AT] = next();
}

/** The iid of each row (null for objects of no indicator). */
export function versionRowIids(rows: VersionRows): (number | null)[] {
  const width = VERSION_COLUMNS.length;
  const iids: (number | null)[] = new Array(rows.count);
  for (let i = 0; i < rows.count; i++) iids[i] = rows.values[i * width + IID_AT] as number | null;
  return iids;
}

/** Work for a render worker: rows of one kind, rendered as versions modified at `modified`. */
export type RenderJob = { kind: 'indicators'; rows: IndicatorWithOrganization[]; modified: string } | { kind: 'links'; rows: LinkRow[]; modified: string };

/** The versions of a job's rows that have a STIX form, in row order, as row values. */
export function renderJobRows(job: RenderJob): VersionRows {
  const rows: VersionRows = { values: [], count: 0 };
  // Each row's source is rendered as soon as it is made: the ids it named are still the last made.
  const keep = (source: ObjectSource | undefined) => {
    if (source !== undefined && appendVersion(rows.values, source, job.modified)) rows.count++;
  };
  if (job.kind === 'indicators') {
    const identityOf = identityIds();
    for (const row of job.rows) keep(indicatorSource(row, identityOf));
  } else {
    const targetOf = threatTargets();
    for (const row of job.rows) keep(linkSource(row, targetOf));
  }
  return rows;
}
