// STIX versions as stix_objects rows: what the render worker sends back, without an object per version.
import { indicatorProjector, linkProjector, versionHash, type IndicatorRecord, type ObjectSource, type ThreatLinkRecord } from '../../stix/project-records.js';
import { StixMappingError, type StixObject } from '../../stix/index.js';

/**
 * Types whose body is not stored: an indicator or relationship is rendered again from its records
 * when it is read, which gives the same bytes, as versions are made by the import whenever those
 * records change. They are nearly all of the objects, and leaving their JSON out halves the
 * database an import writes. Identities and threats keep theirs (few), and so does the final,
 * revoked version of any object (stix-revocation.ts).
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

/** The columns of a stix_objects row, in the order of VersionRows' values. */
export const VERSION_COLUMNS = ['id', 'type', 'modified', 'date_added', 'body', 'iid', 'tid', 'source_hash'] as const;
const DATE_ADDED_AT = VERSION_COLUMNS.indexOf('date_added');
const IID_AT = VERSION_COLUMNS.indexOf('iid');

/** Versions as the values of their rows, row after row (VERSION_COLUMNS), date_added left for the writer. */
export interface VersionRows {
  values: unknown[];
  count: number;
}

/**
 * Renders one version as the values of its row (date_added 0) appended to `values`; false when
 * the record has no STIX form. An import renders millions: no object per version is kept.
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
  // A relationship of no indicator (a reactivated threat's `derived-from`) has no records to render it from: its body is kept.
  const rendered = RENDERED_ON_READ.has(object.type) && source.iid !== null;
  values.push(source.id, object.type, object.modified, 0, rendered ? '' : body, source.iid, source.tid, versionHash(object.type, body));
  return true;
}

/** Renders one version; undefined when the record has no STIX form (a mapping error leaves it out). */
export function renderVersion(source: ObjectSource, modified: string): RenderedVersion | undefined {
  const values: unknown[] = [];
  if (!appendVersion(values, source, modified)) return undefined;
  const [id, type, versionModified, , body, iid, tid, sourceHash] = values as [string, string, string, number, string, number | null, number | null, string];
  return { id, type, modified: versionModified, body, iid, tid, source_hash: sourceHash };
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
export type RenderJob = { kind: 'indicators'; rows: IndicatorRecord[]; modified: string } | { kind: 'links'; rows: ThreatLinkRecord[]; modified: string };

/** The versions of a job's rows that have a STIX form, in row order, as row values. */
export function renderJobRows(job: RenderJob): VersionRows {
  const rows: VersionRows = { values: [], count: 0 };
  // Each row's source is rendered as soon as it is made: the ids it named are still the last made.
  const keep = (source: ObjectSource | undefined) => {
    if (source !== undefined && appendVersion(rows.values, source, job.modified)) rows.count++;
  };
  if (job.kind === 'indicators') {
    const project = indicatorProjector();
    for (const row of job.rows) keep(project(row));
  } else {
    const project = linkProjector();
    for (const row of job.rows) keep(project(row));
  }
  return rows;
}
