// Turns validated import records into write batches (store/contract/write-batch.ts): the store's typed
// rows (contract/staging-rows.ts), a batch per INSERT. Pure JavaScript with no database, so a worker
// thread can run it while the import's thread writes the batches before (file-batches.ts).
import { hash } from 'node:crypto';
import type { Indicator, Link, Threat } from '../domain.js';
import { skippedTtpItems } from '../stix/index.js';
import type { ImportCounts } from '../store/contract/commands.js';
import { LINK_KIND, type RelatedReference, type WriteBatch } from '../store/contract/write-batch.js';
import type { FeedUpsertRow, IndicatorUpsertRow, LinkStagingRow, ThreatUpsertRow } from '../store/contract/staging-rows.js';
import { PendingRows } from './pending-rows.js';
import type { FeedImportRecord, ImportRecord } from './record-schemas.js';

/** Rows per INSERT: well under SQLite's 32,766 bound parameters for the widest table. */
const BATCH_ROWS = 400;

export interface PositionedRecord {
  position: string;
  record: ImportRecord;
}

const flagToInt = (flag: boolean | null): number | null => (flag === null ? null : flag ? 1 : 0);

/** Appends a threat's row; returns its content hash (as addFeed and addIndicator). */
function addThreat(rows: ThreatUpsertRow[], t: Threat): string {
  const hashed = contentHash(t);
  rows.push([
    t.tid, t.threat, t.category, t.risk, t.description, t.notes, t.wikisummary, t.wikireference, flagToInt(t.retired), t.stamp_added,
    t.stamp_updated, t.stamp_seen, t.stamp_retired, JSON.stringify(t.othernames), JSON.stringify(t.attributes), JSON.stringify(t.ttps),
    JSON.stringify(t.news), JSON.stringify(t.comments), JSON.stringify(t.related), hashed,
  ]);
  return hashed;
}

function addFeed(rows: FeedUpsertRow[], f: FeedImportRecord): string {
  const hashed = contentHash(f);
  rows.push([
    f.fid, f.feed, f.organization, f.feed.toLowerCase(), f.organization.toLowerCase(), f.category, f.pricing, JSON.stringify(f.contact),
    f.website, f.schedule, f.stamp_added, f.stamp_updated, f.stamp_pulled, f.stamp_modified, f.description, f.accesslink, hashed,
  ]);
  return hashed;
}

function addIndicator(rows: IndicatorUpsertRow[], i: Indicator): string {
  const attributes = JSON.stringify(i.attributes);
  const properties = JSON.stringify(i.properties);
  const hashed = indicatorHash(i, attributes, properties);
  rows.push([i.iid, i.indicator, i.type, i.risk, i.stamp_added, i.stamp_updated, i.stamp_seen, flagToInt(i.retired), attributes, properties, hashed]);
  return hashed;
}

/** The keys of a validated indicator, in the order both validators give them. */
const INDICATOR_KEYS = 'iid,indicator,type,risk,stamp_added,stamp_updated,stamp_seen,retired,attributes,properties';

const jsonText = (value: string | null): string => (value === null ? 'null' : JSON.stringify(value));

/**
 * contentHash(i), with JSON.stringify(i) put together from the attributes and properties already
 * serialized for their columns: a million indicators are not serialized twice. Any other shape
 * (which the validators do not give) is serialized whole.
 */
export function indicatorHash(i: Indicator, attributes: string, properties: string): string {
  if (Object.keys(i).join(',') !== INDICATOR_KEYS) return contentHash(i);
  const json =
    `{"iid":${i.iid},"indicator":${JSON.stringify(i.indicator)},"type":${JSON.stringify(i.type)},"risk":${JSON.stringify(i.risk)},` +
    `"stamp_added":${jsonText(i.stamp_added)},"stamp_updated":${jsonText(i.stamp_updated)},"stamp_seen":${jsonText(i.stamp_seen)},` +
    `"retired":${i.retired},"attributes":${attributes},"properties":${properties}}`;
  return hash('sha256', json);
}

/** SHA-256 of the record's JSON: the content hash an upsert compares (equal hash, nothing to write). */
export function contentHash(value: unknown): string {
  return hash('sha256', JSON.stringify(value));
}

/** A staged link: its kind, owner, iid, stamp, ordinal in the file and position. */
function linkRow({ link, ordinal, position }: { link: Link; ordinal: number; position: string }): LinkStagingRow {
  if ('fid' in link) return [LINK_KIND.feed, link.fid, link.iid, link.stamp_linked, ordinal, position];
  return [LINK_KIND.threat, link.tid, link.iid, link.stamp_linked, ordinal, position];
}

/** A threat's lower-cased name and other names, each once: what finds it by name. */
function nameKeys(t: Threat): string[] {
  return [...new Set([t.threat, ...t.othernames].map((n) => n.toLowerCase()))];
}

/**
 * Batches the records by kind, in file order within each kind. A tid, fid or iid given again must
 * come with the same content (pending-rows.ts, and the store's staged keys): the same record is written once, another one
 * is refused. Links are keyed by owner and iid, and a later stamp_linked replaces an earlier one.
 */
export async function* prepareBatches(records: AsyncIterable<readonly PositionedRecord[]>): AsyncGenerator<WriteBatch> {
  const read: ImportCounts = { threats: 0, feeds: 0, indicators: 0, links: 0 };
  let skippedTtps = 0;
  let ordinal = 0;
  const threats = new PendingRows<Threat>('threat');
  const feeds = new PendingRows<FeedImportRecord>('feed');
  // The sources of the file's feeds, by fid: written after the feeds (write-batch.ts, `sources`).
  const sources = new Map<number, string>();
  const indicators = new PendingRows<Indicator>('indicator');
  const links = new Map<string, { link: Link; ordinal: number; position: string }>();
  // Each related tid once, at its first mention: as many as there are threats named, a few thousand.
  const related = new Map<number, RelatedReference>();

  function threatBatch(): WriteBatch {
    const names: [number, string[]][] = [];
    const rows = threats.take((list: ThreatUpsertRow[], t) => {
      names.push([t.tid, nameKeys(t)]);
      return addThreat(list, t);
    });
    return { kind: 'threats', ...rows, records: ordinal, names };
  }
  const feedBatch = (): WriteBatch => ({ kind: 'feeds', ...feeds.take(addFeed), records: ordinal });
  const indicatorBatch = (): WriteBatch => ({ kind: 'indicators', ...indicators.take(addIndicator), records: ordinal });
  function linkBatch(): WriteBatch {
    const batch: WriteBatch = { kind: 'links', rows: [...links.values()].map(linkRow), records: ordinal };
    links.clear();
    return batch;
  }

  for await (const list of records) for (const { position, record } of list) {
    ordinal++;
    switch (record.kind) {
      case 'threat':
        read.threats++;
        skippedTtps += skippedTtpItems(record.value.ttps);
        threats.add(record.value.tid, record.value, ordinal, position);
        for (const tid of record.value.related) if (!related.has(tid)) related.set(tid, { tid, ordinal, position });
        if (threats.size >= BATCH_ROWS / 2) yield threatBatch();
        break;
      case 'feed':
        read.feeds++;
        feeds.add(record.value.fid, record.value, ordinal, position);
        if (record.value.source !== undefined) sources.set(record.value.fid, record.value.source);
        if (feeds.size >= BATCH_ROWS) yield feedBatch();
        break;
      case 'indicator':
        read.indicators++;
        indicators.add(record.value.iid, record.value, ordinal, position);
        if (indicators.size >= BATCH_ROWS) yield indicatorBatch();
        break;
      case 'link': {
        read.links++;
        const link = record.value;
        const key = 'fid' in link ? `f${link.fid}:${link.iid}` : `t${link.tid}:${link.iid}`;
        links.set(key, { link, ordinal, position });
        if (links.size >= BATCH_ROWS * 2) yield linkBatch();
        break;
      }
    }
  }
  if (threats.size > 0) yield threatBatch();
  if (feeds.size > 0) yield feedBatch();
  if (indicators.size > 0) yield indicatorBatch();
  if (links.size > 0) yield linkBatch();
  if (sources.size > 0) yield { kind: 'sources', rows: [...sources], records: ordinal };
  yield { kind: 'end', records: ordinal, read, related: [...related.values()], skippedTtps };
}
