// The `misp` format (docs/feeds.md, "Structured sources"): a MISP feed directory, its files fetched by misp-files.ts and read by misp-event.ts.
import { z } from 'zod';
import type { FeedBatch } from '../parsers/feed-entry.js';
import { FeedFormatError } from '../parsers/feed-entry.js';
import { newEvents, readEvent } from '../parsers/misp-event.js';
import type { FetchOptions } from '../transports/fetch-source.js';
import { mispFiles } from '../transports/misp-files.js';
import type { FormatEntry } from './format-entry.js';
import { sourceSchema } from './source-fields.js';

const schema = sourceSchema('misp', {
  misp: z.strictObject({ onlyIds: z.boolean().default(true) }).optional(),
});
export type MispSource = z.output<typeof schema>;

export type MispReadOptions = Omit<FetchOptions, 'displayUrl'> & {
  /** The configured feed URL, redacted (`redactedUrl`). */
  displayUrl: string;
  /** Read only attributes marked `to_ids` (the source's `misp.onlyIds`); default: the source's, else true. */
  onlyIds?: boolean;
  /** Event files fetched ahead of the one being read; default 4. */
  concurrency?: number;
};

export interface MispRead {
  /** One batch per event read, oldest event first; a manifest or event that cannot be fetched or read throws. */
  batches: AsyncIterable<FeedBatch>;
  /**
   * The newest event time read so far (decimal Unix seconds), or the cursor given when no newer
   * event was read. Keep it for the next pull only when this pull is kept.
   */
  cursor(): string | null;
}

/**
 * Reads a MISP feed: `manifest.json` under the source URL (the feed's directory; a URL naming
 * `manifest.json` itself is taken as its directory), then the events whose time is after `cursor`,
 * oldest first. An event's time is the later of its manifest `timestamp` (last change) and
 * `publish_timestamp` when given, so an event published after the last pull is read even if it
 * was last changed before it.
 *
 * Each attribute of a value-giving type (ATTRIBUTE_TYPES), in `Event.Attribute` or an object's
 * `Attribute`, is an entry whose `ref` is the event's uuid. Withdrawn instead (FeedBatch
 * `withdrawn`: the feed no longer asserts the value; docs/interface.md section 10, "Withdrawn values"): such an attribute marked `deleted`,
 * or in an object or event marked `deleted`, or not marked `to_ids` (unless `onlyIds` is false).
 * Not read, and counted in `skipped`: attributes of other types, and manifest keys that are not
 * uuids (never fetched: with a `file://` feed they could name any path).
 *
 * The event's threat-actor and malware clusters (GALAXY_CATEGORIES), given as `Galaxy` /
 * `GalaxyCluster` entries or as `misp-galaxy:TYPE="NAME"` tags, are relations of the event's uuid;
 * a cluster's `meta.synonyms` are the threat's aliases. An attribute with clusters of its own gets
 * the ref `EVENT_UUID/ATTRIBUTE_UUID`, related to the event's threats and its own, so its own
 * threats are not given to the rest of the event. Relations are given only for refs that have entries.
 */
export function readMispFeed(source: MispSource, cursor: string | null, options: MispReadOptions): MispRead {
  const since = cursor !== null && /^\d+$/.test(cursor) ? Number(cursor) : undefined;
  let newest = since;
  const onlyIds = options.onlyIds ?? source.misp?.onlyIds ?? true;
  const { displayUrl, signal, resolveHost } = options;
  const fetch = { displayUrl, ...(signal ? { signal } : {}), ...(resolveHost ? { resolveHost } : {}) };
  const files = mispFiles(source, { fetch, ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }) });

  async function* batches(): AsyncGenerator<FeedBatch> {
    const { events, skipped } = newEvents(await files.manifest(), since);
    // Each event is a file to fetch: a manifest listing more than maxPages of them is refused before the first.
    if (events.length > source.maxPages) {
      throw new FeedFormatError('manifest.json', `${events.length} events to read, more than maxPages (${source.maxPages}) in one pull`);
    }
    if (skipped > 0) yield { entries: [], skipped };
    let at = 0;
    for await (const { uuid, document } of files.events(events.map((event) => event.uuid))) {
      const stamp = events[at++]!.stamp;
      const batch = readEvent(document, uuid, onlyIds);
      if (stamp !== undefined && (newest === undefined || stamp > newest)) newest = stamp;
      yield batch;
    }
  }

  return {
    batches: { [Symbol.asyncIterator]: () => batches() },
    cursor: () => (newest === undefined ? cursor : String(newest)),
  };
}

export const mispFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: true,
  paged: true,
  open: async (source, context) => {
    const read = readMispFeed(source, context.state.cursor, context.fetch);
    return { rows: read.batches, etag: null, lastModified: null, cursor: () => read.cursor() };
  },
};
