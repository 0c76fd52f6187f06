// `feeds add`: a feed's source definition goes into the store, the feed record through the import pipeline.
import { formatStamp, type Clock } from '../clock.js';
import type { Feed } from '../domain.js';
import { importDataset } from '../import/import-file.js';
import type { Store } from '../store/store.js';
import { scheduleFromFeed } from './schedule.js';
import { checkEnv, parseSource, redactedUrl } from './source-definition.js';

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
 * free fid) or updates its `accesslink` (the URL without credentials) and `schedule`, and stores
 * the source as given, placeholders kept. The feed record is an import of one record, so that the
 * feed's STIX identity, aggregates and data version follow as for any other (docs/architecture.md,
 * "one way data gets in"); an unchanged record is not imported again. Throws SourceDefinitionError
 * naming the field, or an unset `${env:NAME}`; returns the fid.
 */
export async function addFeedSource(store: Store, request: FeedSourceRequest, clock: Clock, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const source = parseSource(request.source);
  checkEnv(source, env);
  const now = formatStamp(clock.now());
  const existing = await store.findFeedByName(request.feed, request.organization);
  const accesslink = redactedUrl(source.url);
  // A source without a schedule keeps the feed's own when it parses (DESIGN 7), else `daily`.
  const schedule = scheduleFromFeed(source.schedule ?? existing?.schedule ?? '').text;
  let fid: number;
  if (existing === undefined) {
    fid = await store.nextFeedId();
    const feed = { fid, feed: request.feed, organization: request.organization, schedule, accesslink, stamp_added: now, stamp_updated: now };
    await importDataset(store, { threats: [], feeds: [feed], indicators: [], links: [] }, clock);
  } else {
    fid = existing.fid;
    if (existing.accesslink !== accesslink || existing.schedule !== schedule) {
      const feed: Feed = { ...feedFields(existing), accesslink, schedule, stamp_updated: now };
      await importDataset(store, { threats: [], feeds: [feed], indicators: [], links: [] }, clock);
    }
  }
  // A second statement: if it fails, the feed stands without a source, and running `feeds add` again completes it.
  await store.putFeedSource(fid, JSON.stringify(request.source), now);
  return fid;
}
