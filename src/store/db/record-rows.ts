// A threat's or a feed's stored row read as the record the application sees (contract/records.ts):
// JSON columns parsed, integer flags as booleans.
import type { Selectable } from 'kysely';
import type { Risk } from '../../domain.js';
import type { FeedRecord, ThreatRecord } from '../contract/records.js';
import type { FeedTable, ThreatTable } from './schema.js';

const intToFlag = (value: number | null): boolean | null => (value === null ? null : Number(value) === 1);

export function toThreatRecord(row: Selectable<ThreatTable>): ThreatRecord {
  return {
    tid: Number(row.tid),
    threat: row.name,
    category: row.category,
    risk: row.risk as Risk,
    othernames: JSON.parse(row.othernames),
    description: row.description,
    notes: row.notes,
    wikisummary: row.wikisummary,
    wikireference: row.wikireference,
    retired: intToFlag(row.retired),
    stamp_added: row.stamp_added,
    stamp_updated: row.stamp_updated,
    stamp_seen: row.stamp_seen,
    stamp_retired: row.stamp_retired,
    attributes: JSON.parse(row.attributes),
    ttps: JSON.parse(row.ttps),
    news: JSON.parse(row.news),
    comments: JSON.parse(row.comments),
    related: JSON.parse(row.related),
    updated_last_domain: row.updated_last_domain,
    summary: JSON.parse(row.summary),
  };
}

export function toFeedRecord(row: Selectable<FeedTable>): FeedRecord {
  return {
    fid: Number(row.fid),
    feed: row.name,
    organization: row.organization,
    category: row.category,
    pricing: row.pricing,
    contact: JSON.parse(row.contact),
    website: row.website,
    schedule: row.schedule,
    stamp_added: row.stamp_added,
    stamp_updated: row.stamp_updated,
    stamp_pulled: row.stamp_pulled,
    stamp_modified: row.stamp_modified,
    description: row.description,
    accesslink: row.accesslink,
    indicators: JSON.parse(row.indicators),
    summary: JSON.parse(row.summary),
  };
}
