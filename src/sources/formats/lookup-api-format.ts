// The `lookup-api` format (docs/feeds.md, "Structured sources"): another Pulsedive-style service, its links pages read by lookup-api-pages.ts and lookup-api-page.ts.
import { z } from 'zod';
import type { FeedBatch } from '../parsers/feed-entry.js';
import { linksPageBatch, upstreamFeed, type UpstreamFeed } from '../parsers/lookup-api-page.js';
import type { FetchOptions } from '../transports/fetch-source.js';
import { lookupApiPages } from '../transports/lookup-api-pages.js';
import { RateLimitWaits } from '../transports/rate-limit-waits.js';
import type { FormatEntry } from './format-entry.js';
import { missingFor, sourceSchema, text } from './source-fields.js';

const schema = sourceSchema('lookup-api', {
  /** The upstream feed's id. */
  fid: z.number({ error: missingFor('lookup-api') }).int('must be a whole number').positive('must be positive'),
  key: z.string({ error: missingFor('lookup-api') }).pipe(text),
}).superRefine((source, ctx) => {
  if (!/^https?:\/\//i.test(source.url)) ctx.addIssue({ code: 'custom', path: ['url'], message: 'must be an http:// or https:// URL for format lookup-api' });
});
export type LookupApiSource = z.output<typeof schema>;

export type LookupApiOptions = Omit<FetchOptions, 'displayUrl'> & {
  /** The configured base URL, redacted (`redactedUrl`). */
  displayUrl: string;
  /** Hears the one warning a read can give: the upstream's page limit ended it. Never given the key. */
  warn: (message: string, fields: Record<string, unknown>) => void;
  /** The pull's rate-limit budget; default: one of its own, with `sleep` and `maxWaitSeconds`. */
  waits?: RateLimitWaits;
  sleep?: (ms: number) => Promise<void>;
  maxWaitSeconds?: number;
};

export interface LookupApiRead {
  /** One batch per links page. */
  batches: AsyncIterable<FeedBatch>;
  /**
   * The upstream feed record's description, website, category and pricing, fetched on the first
   * call only, so a pull that needs nothing from it spends no request. Rejects as a page request would.
   */
  feed(): Promise<UpstreamFeed | undefined>;
}

/** The links of upstream feed `source.fid`, read with `source.key` (lookupApiPages), each page a batch (linksPageBatch). */
export function readLookupApi(source: LookupApiSource, options: LookupApiOptions): LookupApiRead {
  const { displayUrl, signal, resolveHost, sleep, maxWaitSeconds } = options;
  const fetch = { displayUrl, ...(signal ? { signal } : {}), ...(resolveHost ? { resolveHost } : {}) };
  const waits = options.waits ?? new RateLimitWaits({ ...(signal ? { signal } : {}), ...(sleep ? { sleep } : {}), ...(maxWaitSeconds === undefined ? {} : { maxWaitSeconds }) });
  let read = 0;
  const upstream = lookupApiPages(source, source.fid, source.key, { fetch, waits, warn: (message, fields) => options.warn(message, { ...fields, values: read }) });
  async function* batches(): AsyncGenerator<FeedBatch> {
    for await (const { where, document } of upstream.pages()) {
      const batch = linksPageBatch(document, where);
      read += batch.entries.length + (batch.withdrawn?.length ?? 0);
      yield batch;
    }
  }
  let record: Promise<UpstreamFeed | undefined> | undefined;
  return {
    batches: { [Symbol.asyncIterator]: () => batches() },
    feed: () => (record ??= upstream.feedRecord().then(upstreamFeed)),
  };
}

export const lookupApiFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: false,
  paged: true,
  open: async (source, context) => {
    const read = readLookupApi(source, { ...context.fetch, waits: context.waits, warn: context.warn });
    // The upstream feed's description fills the local feed's empty fields on the first pull only.
    return { rows: read.batches, etag: null, lastModified: null, ...(context.state.stamp_pulled === null ? { describe: () => read.feed() } : {}) };
  },
};
