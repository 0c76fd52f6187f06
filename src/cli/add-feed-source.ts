// `feeds add`: a feed record with its source and descriptive fields goes through the import pipeline, one transaction for all.
import { formatStamp, type Clock } from '../clock.js';
import type { Feed } from '../domain.js';
import { importDataset } from '../import/import-file.js';
import type { Store } from '../store/contract/store.js';
import { scheduleFromFeed } from '../sources/schedule.js';
import { checkEnv, parseSource, redactedUrl } from '../sources/source-definition.js';
import { UsageError } from '../errors.js';
import { FEED_METADATA_FIELDS, type FeedMetadata } from './feed-metadata.js';

export interface FeedSourceRequest {
  feed: string;
  organization: string;
  /** The source object as given (parsed JSON), before validation; left out, an existing feed keeps its own. */
  source?: unknown;
  /** Descriptive fields to set (feed-metadata.ts: checked); those left out keep their values. */
  metadata?: FeedMetadata;
}

/** The Feed fields of a stored feed: its computed aggregates are the store's, not the record's. */
function feedFields({ indicators: _indicators, summary: _summary, ...feed }: Feed & { indicators: unknown; summary: unknown }): Feed {
  return feed;
}

/**
 * Creates the feed (name and organization, case-insensitively, as the lookup API finds it; the next
 * free fid) or updates it, with its source and descriptive fields: the import of one feed record
 * carrying `source`, so the feed's `accesslink` (the URL without credentials), `schedule`, source
 * definition, descriptive fields, STIX identity, aggregates (the threats' summaries list a feed's
 * category and pricing) and data version change together (docs/architecture.md, "one way data gets
 * in"). A change to any of them is the feed's `stamp_updated`; the same source and fields again
 * change nothing. A new feed needs a source. Throws SourceDefinitionError naming the field, or an
 * unset `${env:NAME}`; returns the fid.
 */
export async function addFeedSource(store: Store, request: FeedSourceRequest, clock: Clock, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const source = request.source === undefined ? undefined : parseSource(request.source);
  if (source !== undefined) checkEnv(source, env);
  const metadata = request.metadata ?? {};
  const now = formatStamp(clock.now());
  const existing = await store.findFeedByName(request.feed, request.organization);
  // The import fills in the fields not given (their defaults), and accesslink and schedule from the source.
  let feed: Pick<Feed, 'fid'> & Partial<Feed>;
  if (existing === undefined) {
    if (source === undefined) throw new UsageError(`feeds add: --source is required for a new feed (no feed "${request.feed}" of "${request.organization}" yet)`);
    feed = { fid: await store.nextFeedId(), feed: request.feed, organization: request.organization, ...metadata, stamp_added: now, stamp_updated: now };
  } else {
    feed = { ...feedFields(existing), ...metadata };
    const accesslink = source === undefined ? existing.accesslink : redactedUrl(source.url);
    const schedule = source === undefined ? existing.schedule : scheduleFromFeed(source.schedule ?? existing.schedule).text;
    const described = FEED_METADATA_FIELDS.some((field) => metadata[field] !== undefined && metadata[field] !== existing[field]);
    if (existing.accesslink !== accesslink || existing.schedule !== schedule || described) feed = { ...feed, stamp_updated: now };
  }
  await importDataset(store, { threats: [], feeds: [{ ...feed, ...(request.source === undefined ? {} : { source: request.source }) }], indicators: [], links: [] }, clock);
  return feed.fid;
}
