// Renders the STIX objects of changed records, in bounded chunks, for the STIX sync of an import.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Risk } from '../domain.js';
import {
  isPatternedIndicatorType,
  stixIdForIdentity,
  stixIdForIndicator,
  stixIdForThreat,
  StixMappingError,
  THREATGATE_IDENTITY,
  toStixIdentity,
  toStixIndicator,
  toStixRelationship,
  toStixThreat,
  type StixObject,
} from '../stix/index.js';
import { toThreatRecord } from './lookup-queries.js';
import type { Database, IndicatorTable } from './schema.js';

/** One rendered object: `render(modified)` builds it for a given version time (pure). */
export interface RenderedSource {
  id: string;
  type: string;
  iid: number | null;
  tid: number | null;
  /** The object rendered at a fixed placeholder time: what its version hash is taken from. */
  probe: StixObject;
  render(modified: string): StixObject;
}

type Unprobed = Omit<RenderedSource, 'probe' | 'id' | 'type'> & Partial<Pick<RenderedSource, 'id' | 'type'>>;

export const PLACEHOLDER_TIME = '1970-01-01T00:00:00.000Z';

export const CHUNK = 1000;

/** SHA-256 of the object without `modified`: two renderings with equal hashes are one version. */
export function versionHash(object: StixObject): string {
  const { modified: _ignored, ...rest } = object as StixObject & { modified?: string };
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}

/** Mapping errors (an indicator type without a STIX pattern, a malformed value) leave the record out. */
function attempt(source: Unprobed): RenderedSource | undefined {
  try {
    const probe = source.render(PLACEHOLDER_TIME);
    return { ...source, id: probe.id, type: probe.type, probe };
  } catch (error) {
    if (error instanceof StixMappingError) return undefined;
    throw error;
  }
}

export async function renderIdentities(db: Kysely<Database>): Promise<RenderedSource[]> {
  const rows = await db.selectFrom('feeds').select('organization').distinct().orderBy('organization').execute();
  const sources = [
    attempt({ iid: null, tid: null, render: () => ({ ...THREATGATE_IDENTITY }) }),
    ...rows.map(({ organization }) => attempt({ iid: null, tid: null, render: (modified) => toStixIdentity(organization, { modified }) })),
  ];
  return sources.filter((s): s is RenderedSource => s !== undefined);
}

export async function renderThreats(db: Kysely<Database>, tids: number[]): Promise<RenderedSource[]> {
  const out: RenderedSource[] = [];
  for (let i = 0; i < tids.length; i += CHUNK) {
    const rows = await db.selectFrom('threats').selectAll().where('tid', 'in', tids.slice(i, i + CHUNK)).execute();
    for (const row of rows) {
      const threat = toThreatRecord(row);
      const source = attempt({ iid: null, tid: threat.tid, render: (modified) => toStixThreat(threat, { modified }) });
      if (source) out.push(source);
    }
  }
  return out;
}

type IndicatorWithOrganization = Omit<IndicatorTable, 'content_hash'> & { organization: string | null };

/** Indicators with the organization of their lowest-numbered feed, which becomes created_by_ref. */
export async function renderIndicators(db: Kysely<Database>, iids: number[]): Promise<RenderedSource[]> {
  const { rows } = await sql<IndicatorWithOrganization>`
    select i.iid, i.value, i.type, i.risk, i.stamp_added, i.stamp_updated, i.stamp_seen, i.retired, i.attributes, i.properties,
      (select f.organization from feed_links fl join feeds f on f.fid = fl.fid where fl.iid = i.iid order by fl.fid limit 1) as organization
    from indicators i where i.iid in (${sql.join(iids)})`.execute(db);
  const out: RenderedSource[] = [];
  for (const row of rows) {
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
    const createdByRef = row.organization === null ? THREATGATE_IDENTITY.id : stixIdForIdentity(row.organization);
    const source = attempt({ iid, tid: null, render: (modified) => toStixIndicator(indicator, { modified, createdByRef }) });
    if (source) out.push(source);
  }
  return out;
}

interface LinkRow {
  iid: number;
  tid: number;
  stamp_linked: string;
  category: string;
  indicator_type: string;
}

/** Relationships for the given threat links; links of indicators without a STIX object are left out. */
export async function renderRelationships(db: Kysely<Database>, tid: number, iids: number[] | 'all'): Promise<RenderedSource[]> {
  const { rows } = await sql<LinkRow>`
    select tl.iid, tl.tid, tl.stamp_linked, t.category, i.type as indicator_type
    from threat_links tl join threats t on t.tid = tl.tid join indicators i on i.iid = tl.iid
    where tl.tid = ${tid} ${iids === 'all' ? sql`` : sql`and tl.iid in (${sql.join(iids)})`}
      and exists (select 1 from stix_objects s where s.iid = tl.iid and s.type = 'indicator')`.execute(db);
  const out: RenderedSource[] = [];
  for (const row of rows) {
    if (!isPatternedIndicatorType(row.indicator_type)) continue;
    const link = { iid: Number(row.iid), tid: Number(row.tid), stamp_linked: row.stamp_linked };
    const targetRef = stixIdForThreat({ tid: link.tid, category: row.category });
    const sourceRef = stixIdForIndicator(link.iid);
    const render = (modified: string) => toStixRelationship(link, { modified, sourceRef, targetRef, createdByRef: THREATGATE_IDENTITY.id });
    const source = attempt({ iid: link.iid, tid: link.tid, render });
    if (source) out.push(source);
  }
  return out;
}
