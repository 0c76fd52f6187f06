// The records an object version is rendered from (src/stix/project-records.ts), as stored rows give
// them: one set of columns and one reading of them, for the write that renders a version and for the
// TAXII read that renders one left unstored, so both render the same bytes.
import { sql, type RawBuilder } from 'kysely';
import type { IndicatorRecord, ThreatLinkRecord, VersionRecord } from '../../stix/project-records.js';

/**
 * The organization of the indicator's lowest-numbered feed, which becomes its created_by_ref: the
 * one place this rule is written.
 */
export function organizationOf(iid: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`(select f.organization from feeds f where f.fid = (select min(fl.fid) from feed_links fl where fl.iid = ${iid}))`;
}

/** An IndicatorRecord's columns of `indicators i`, each named `prefix` + its field. */
export function indicatorRecordColumns(prefix = ''): RawBuilder<unknown> {
  const as = (field: keyof IndicatorRecord) => sql.id(`${prefix}${field}`);
  return sql`i.iid as ${as('iid')}, i.value as ${as('value')}, i.type as ${as('type')}, i.risk as ${as('risk')},
    i.stamp_added as ${as('stamp_added')}, i.retired as ${as('retired')}, i.attributes as ${as('attributes')},
    case when i.iid is not null then ${organizationOf(sql.ref('i.iid'))} end as ${as('organization')}`;
}

/** A ThreatLinkRecord's columns of `threat_links tl` joined to `threats t`, each named `prefix` + its field. */
export function linkRecordColumns(prefix = ''): RawBuilder<unknown> {
  const as = (field: keyof ThreatLinkRecord) => sql.id(`${prefix}${field}`);
  return sql`tl.iid as ${as('iid')}, tl.tid as ${as('tid')}, tl.stamp_linked as ${as('stamp_linked')}, t.category as ${as('category')},
    t.stix_generation as ${as('generation')}`;
}

type Prefixed<P extends string, T> = { [K in keyof T & string as `${P}${K}`]: T[K] | null };

/** A row holding indicatorRecordColumns('i_') and linkRecordColumns('l_'), either side null when absent. */
export type RecordColumns = Prefixed<'i_', IndicatorRecord> & Prefixed<'l_', ThreatLinkRecord>;

/** The record an object of `type` renders from, read from those columns; undefined when its row is gone. */
export function versionRecordOf(type: string, row: RecordColumns): VersionRecord | undefined {
  if (type === 'indicator' && row.i_value !== null) {
    return {
      kind: 'indicator',
      row: {
        iid: Number(row.i_iid), value: row.i_value, type: row.i_type!, risk: row.i_risk!, stamp_added: row.i_stamp_added,
        retired: row.i_retired, attributes: row.i_attributes!, organization: row.i_organization,
      },
    };
  }
  if (type === 'relationship' && row.l_stamp_linked !== null) {
    return {
      kind: 'link',
      row: { iid: Number(row.l_iid), tid: Number(row.l_tid), stamp_linked: row.l_stamp_linked, category: row.l_category!, generation: Number(row.l_generation ?? 0) },
    };
  }
  return undefined;
}
