// `feeds add`: a feed record with its source goes through the import pipeline, one transaction for both.
import { formatStamp, type Clock } from '../clock.js';
import type { Feed } from '../domain.js';
import { importDataset } from '../import/import-file.js';
import type { Store } from '../store/store.js';
import { scheduleFromFeed } from '../sources/schedule.js';
import { checkEnv, parseSource, redactedUrl } from '../sources/source-definition.js';

export interface FeedSourceRequest {
  feed: string;
  organization: string;
  /** The source object as given (parsed JSON), before validation. */
  source: unknown;
}

/** The Feed fields of a stored feed: its computed aggregates are the store's, not the record's. */
function feedFields({ indicators: _indicators, summary: _summary, ...feed }: Feed & { indicators: unknown; summary: unknown }): Feed {
  return feed;
}

/**
 * Creates the feed (name and organization, case-insensitively, as the lookup API finds it; the next
 * free fid) or updates it, with its source: the import of one feed record carrying `source`, so the
 * feed's `accesslink` (the URL without credentials), `schedule`, source definition, STIX identity,
 * aggregates and data version change together (docs/architecture.md, "one way data gets in"). The
 * same source again changes nothing. Throws SourceDefinitionError naming the field, or an unset
 * `${env:NAME}`; returns the fid.
 */
export async function addFeedSource(store: Store, request: FeedSourceRequest, clock: Clock, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const source = parseSource(request.source);
  checkEnv(source, env);
  const now = formatStamp(clock.now());
  const existing = await store.findFeedByName(request.feed, request.organization);
  // The import fills in the fields not given (their defaults), and accesslink and schedule from the source.
  let feed: Pick<Feed, 'fid'> & Partial<Feed>;
  if (existing === undefined) {
    feed = { fid: await store.nextFeedId(), feed: request.feed, organization: request.organization, stamp_added: now, stamp_updated: now };
  } else {
    feed = feedFields(existing);
    const accesslink = redactedUrl(source.url);
    const schedule = scheduleFromFeed(source.schedule ?? existing.schedule).text;
    if (existing.accesslink !== accesslink || existing.schedule !== schedule) feed = { ...feed, stamp_updated: now };
  }
  await importDataset(store, { threats: [], feeds: [{ ...feed, source: request.source }], indicators: [], links: [] }, clock);
  return feed.fid;
}
