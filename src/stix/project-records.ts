// The STIX projection of the store's records: each record's object, named before it is built, and the hash of a version.
import { hash } from 'node:crypto';
import type { Risk, Threat } from '../domain.js';
import { isPatternedIndicatorType } from './stix-pattern.js';
import { stixIdForIdentity, stixIdForIndicator, stixIdForIndicatorLink, stixIdForReactivation, stixIdForThreatRecord } from './stix-id.js';
import { StixMappingError } from './stix-mapping-error.js';
import { normalizeStixTime, STIX_EPOCH } from './stix-time.js';
import type { StixObject } from './stix-types.js';
import { stixIdForThreat, threatSdoType } from './threat-sdo-type.js';
import { THREATGATE_IDENTITY, toStixIdentity } from './to-stix-identity.js';
import { toStixIndicator, type ExportedIndicator } from './to-stix-indicator.js';
import { toStixRelationship } from './to-stix-relationship.js';
import { toStixThreat } from './to-stix-threat.js';

/** A record's STIX object, identified before it is built: `render(modified)` builds one version. */
export interface ObjectSource {
  id: string;
  iid: number | null;
  tid: number | null;
  /** Throws a StixMappingError when the record has no STIX form (a malformed value, say). */
  render(modified: string): StixObject;
}

/** An indicator as the projection reads it: attributes as stored JSON text, and the organization of its lowest-numbered feed. */
export interface IndicatorRecord {
  iid: number;
  value: string;
  type: string;
  risk: string;
  stamp_added: string | null;
  retired: number | null;
  attributes: string;
  organization: string | null;
}

/** An indicator-to-threat link with its threat's category, which names the SDO type it points at. */
export interface ThreatLinkRecord {
  iid: number;
  tid: number;
  stamp_linked: string;
  category: string;
  /** The threat's reactivations after a published retirement, which name its ids (stixIdForThreatRecord). */
  generation?: number;
}

/**
 * A feed organization as its identity is rendered: its name, and the `created` of its identity,
 * which is when the service first recorded it and stays the same in every version (§3.2).
 */
export interface OrganizationRecord {
  name: string;
  created: string;
}

/** threatgate's own identity, then one per feed organization (created_by_ref of their indicators). */
export function identitySources(organizations: readonly OrganizationRecord[]): ObjectSource[] {
  return [
    { id: THREATGATE_IDENTITY.id, iid: null, tid: null, render: () => ({ ...THREATGATE_IDENTITY }) },
    ...organizations.map(({ name, created }) => ({
      id: stixIdForIdentity(name),
      iid: null,
      tid: null,
      render: (modified: string) => toStixIdentity(name, { modified, created }),
    })),
  ];
}

/**
 * The `created` a stored identity version shows, which its next version must repeat (§3.2). A body
 * without a readable one can only be from before identities had their own (STIX_EPOCH).
 */
export function storedIdentityCreated(body: string): string {
  try {
    const created = (JSON.parse(body) as { created?: unknown }).created;
    if (typeof created === 'string' && isStixTime(created)) return created;
  } catch {
    // Not JSON: fall through to the constant every identity had before.
  }
  return STIX_EPOCH;
}

function isStixTime(value: string): boolean {
  try {
    return normalizeStixTime(value) === value;
  } catch (error) {
    if (error instanceof StixMappingError) return false;
    throw error;
  }
}

export function threatSource(threat: Threat, generation = 0): ObjectSource {
  return { id: stixIdForThreat(threat, generation), iid: null, tid: threat.tid, render: (modified) => toStixThreat(threat, { modified, generation }) };
}

/**
 * A reactivated threat's object is new (its earlier one was revoked, which is final): this
 * `derived-from` relationship (STIX 2.1 §4.x common relationships) tells a SIEM that holds the
 * revoked object which one continues it. Written once, when the threat comes back.
 */
export function reactivationSource(tid: number, generation: number, currentId: string, previousId: string): ObjectSource {
  return {
    id: stixIdForReactivation(tid, generation),
    iid: null,
    tid,
    render: (modified) => ({
      type: 'relationship',
      spec_version: '2.1',
      id: stixIdForReactivation(tid, generation),
      created_by_ref: THREATGATE_IDENTITY.id,
      created: normalizeStixTime(modified),
      modified: normalizeStixTime(modified),
      relationship_type: 'derived-from',
      source_ref: currentId,
      target_ref: previousId,
    }),
  };
}

/**
 * Makes indicator sources one row at a time; undefined for a type without a STIX pattern. Few
 * organizations, many indicators: each identity id is made once per projector.
 */
export function indicatorProjector(): (row: IndicatorRecord) => ObjectSource | undefined {
  const identities = new Map<string, string>();
  const identityOf = (organization: string) => {
    let id = identities.get(organization);
    if (id === undefined) identities.set(organization, (id = stixIdForIdentity(organization)));
    return id;
  };
  return (row) => {
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
  };
}

/** Makes relationship sources one link at a time. Few threats per page: each threat's type and id are made once. */
export function linkProjector(): (row: ThreatLinkRecord) => ObjectSource {
  const targets = new Map<number, { type: string; ref: string }>();
  return (row) => {
    const generation = Number(row.generation ?? 0);
    const link = { iid: Number(row.iid), tid: Number(row.tid), stamp_linked: row.stamp_linked, generation };
    let target = targets.get(link.tid);
    if (target === undefined) {
      const type = threatSdoType(row.category).type;
      targets.set(link.tid, (target = { type, ref: stixIdForThreatRecord(link.tid, type, generation) }));
    }
    const { type: targetType, ref: targetRef } = target;
    const sourceRef = stixIdForIndicator(link.iid);
    const render = (modified: string) => toStixRelationship(link, { modified, sourceRef, targetRef, createdByRef: THREATGATE_IDENTITY.id });
    return { id: stixIdForIndicatorLink(link.iid, link.tid, targetType, generation), iid: link.iid, tid: link.tid, render };
  };
}

/** The sources of indicators with a STIX pattern type, in row order. */
export function indicatorSources(rows: readonly IndicatorRecord[]): ObjectSource[] {
  const project = indicatorProjector();
  const out: ObjectSource[] = [];
  for (const row of rows) {
    const source = project(row);
    if (source !== undefined) out.push(source);
  }
  return out;
}

export function linkSources(rows: readonly ThreatLinkRecord[]): ObjectSource[] {
  return rows.map(linkProjector());
}

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

/** The records a stored version without a body is rendered from, as a listing reads them. */
export type VersionRecord = { kind: 'indicator'; row: IndicatorRecord } | { kind: 'link'; row: ThreatLinkRecord };

/**
 * The serialized version `id` at `modified`, rendered from its records: the bytes the import
 * hashed. Undefined when the records no longer give that object (another id, or no STIX form):
 * the reader leaves it out rather than serve something else under its id.
 */
export function renderStoredVersion(id: string, modified: string, record: VersionRecord | undefined): string | undefined {
  if (record === undefined) return undefined;
  const source = record.kind === 'indicator' ? indicatorProjector()(record.row) : linkProjector()(record.row);
  if (source === undefined || source.id !== id) return undefined;
  try {
    return JSON.stringify(source.render(modified));
  } catch (error) {
    if (error instanceof StixMappingError) return undefined;
    throw error;
  }
}
