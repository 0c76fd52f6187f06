// What a Pulsedive-style service's pages mean (docs/interface.md sections 4.2 and 5): a links page as a batch of entries, the feed record as the upstream feed's description.
import { FeedFormatError, type FeedBatch, type FeedEntry } from './feed-entry.js';
import { field, isObject, textField } from './json-document.js';

/** The descriptive fields of the upstream feed record that a local feed may take over when its own are empty. */
export interface UpstreamFeed {
  description?: string;
  website?: string;
  category?: string;
  pricing?: string;
}

const DESCRIPTIVE_FIELDS = ['description', 'website', 'category', 'pricing'] as const;
/** The risk an upstream threatgate gives an indicator it aged out (docs/interface.md section 3). */
const RETIRED = 'retired';

/**
 * A links page's rows: each an entry, `indicator` its value, with the row's `type` and `risk`
 * (which the pull keeps over the source's); rows without an indicator are counted as skipped. A
 * row of risk `retired` (the upstream aged it out, docs/interface.md section 3) is withdrawn, not an entry (FeedBatch
 * `withdrawn`; docs/interface.md section 10, "Withdrawn values"). Position: `page N row M` (rows from 1).
 */
export function linksPageBatch(document: unknown, where: string): FeedBatch {
  if (!isObject(document) || !Array.isArray(document.results)) throw new FeedFormatError(where, 'not a links page: no "results" array');
  const batch: FeedBatch = { entries: [], skipped: 0 };
  document.results.forEach((row, i) => {
    const entry = toEntry(row, `${where} row ${i + 1}`);
    if (entry === undefined) batch.skipped++;
    else if (entry.risk?.toLowerCase() === RETIRED) (batch.withdrawn ??= []).push(entry);
    else batch.entries.push(entry);
  });
  return batch;
}

/** The feed record's description, website, category and pricing (those that are non-empty strings; undefined when none is). */
export function upstreamFeed(document: unknown): UpstreamFeed | undefined {
  if (!isObject(document)) throw new FeedFormatError('feed record', 'not a feed object');
  const upstream: UpstreamFeed = {};
  for (const name of DESCRIPTIVE_FIELDS) {
    const value = field(document, name);
    if (typeof value === 'string' && value.trim() !== '') upstream[name] = value.trim();
  }
  return Object.keys(upstream).length > 0 ? upstream : undefined;
}

function toEntry(row: unknown, position: string): FeedEntry | undefined {
  const value = textField(row, 'indicator');
  if (value === undefined) return undefined;
  const entry: FeedEntry = { value, position };
  const type = textField(row, 'type');
  const risk = textField(row, 'risk');
  if (type !== undefined) entry.type = type;
  if (risk !== undefined) entry.risk = risk;
  return entry;
}
