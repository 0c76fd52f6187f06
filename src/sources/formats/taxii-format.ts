// The `taxii` format (docs/feeds.md, "Structured sources"): a TAXII 2.1 collection's objects URL, walked by taxii-walk.ts and mapped as `stix` bundles are.
import { hasContent, type FeedBatch } from '../parsers/feed-entry.js';
import { StixObjectMapper } from '../parsers/read-stix.js';
import { redactedUrl } from '../redacted-url.js';
import type { FetchOptions } from '../transports/fetch-source.js';
import { RateLimitWaits } from '../transports/rate-limit-waits.js';
import { walkTaxii, type TaxiiWalkOptions } from '../transports/taxii-walk.js';
import type { FormatEntry } from './format-entry.js';
import { ENV_REFERENCE, sourceSchema } from './source-fields.js';
import type { z } from 'zod';

const schema = sourceSchema('taxii', {}).superRefine((source, ctx) => {
  const wrong = taxiiUrlProblem(source.url);
  if (wrong !== undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: wrong });
});
export type TaxiiSource = z.output<typeof schema>;

/**
 * Why a `taxii` source's URL is not a collection's objects endpoint (TAXII 2.1 section 5.3,
 * `{api-root}/collections/{id}/objects/`), naming the URL it should be when that can be told; a
 * discovery URL, an API root or a collection URL reads no objects and every pull would list nothing.
 */
export function taxiiUrlProblem(url: string): string | undefined {
  const probe = url.replace(ENV_REFERENCE, 'x');
  if (!URL.canParse(probe)) return undefined;
  const { pathname } = new URL(probe);
  if (/\/collections\/[^/]+\/objects\/?$/.test(pathname)) return undefined;
  const bare = url.replace(/[?#].*$/s, '');
  if (/\/collections\/[^/]+\/?$/.test(pathname)) {
    return `is a TAXII collection, not its objects: use ${redactedUrl(bare.endsWith('/') ? bare : `${bare}/`)}objects/`;
  }
  return 'is not a TAXII collection\'s objects URL: give {api-root}/collections/{id}/objects/ (GET {api-root}/collections/ lists the ids)';
}

export interface TaxiiRead {
  batches: AsyncIterable<FeedBatch>;
  /** See TaxiiWalk.cursor. */
  cursor(): string | null;
}

/** What readTaxiiCollection needs besides the source: the walk's options, and the time `valid_until` is compared with. */
export type TaxiiReadOptions = Omit<TaxiiWalkOptions, 'fetch' | 'waits'> &
  Omit<FetchOptions, 'displayUrl'> & {
    displayUrl: string;
    /** The pull's rate-limit budget; default: one of its own, with `sleep` and `maxRetryWaitSeconds`. */
    waits?: RateLimitWaits;
    sleep?: (ms: number) => Promise<void>;
    maxRetryWaitSeconds?: number;
    /** ms since the epoch, read once when the walk starts; default Date.now. */
    now?: () => number;
  };

/**
 * The collection walked (walkTaxii) and its objects mapped by one StixObjectMapper, a batch per
 * page that gives something; then the threat SDOs that `indicates` relationships point to but the
 * walk did not list (an incremental pull lists a new relationship, not the malware added before),
 * asked for by id and mapped too.
 */
export function readTaxiiCollection(source: TaxiiSource, cursor: string | null, options: TaxiiReadOptions): TaxiiRead {
  const { displayUrl, signal, resolveHost, sleep, maxRetryWaitSeconds } = options;
  const fetch = { displayUrl, ...(signal ? { signal } : {}), ...(resolveHost ? { resolveHost } : {}) };
  const waits =
    options.waits ?? new RateLimitWaits({ ...(signal ? { signal } : {}), ...(sleep ? { sleep } : {}), ...(maxRetryWaitSeconds === undefined ? {} : { maxWaitSeconds: maxRetryWaitSeconds }) });
  const walk = walkTaxii(source, cursor, { fetch, waits, ...(options.limit === undefined ? {} : { limit: options.limit }), ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
  let finished = false;
  async function* batches(): AsyncGenerator<FeedBatch> {
    const mapper = new StixObjectMapper((options.now ?? Date.now)());
    for await (const page of walk.pages()) {
      const batch = mapper.map(page);
      if (hasContent(batch)) yield batch;
    }
    for await (const page of walk.objectsById(mapper.unresolvedTargets())) {
      const batch = mapper.map(page);
      if (hasContent(batch)) yield batch;
    }
    if (mapper.unresolvedRelations > 0) {
      options.onWarning?.(`${mapper.unresolvedRelations} "indicates" relationships point to threats the collection does not give; they link nothing`);
    }
    finished = true;
  }
  return { batches: batches(), cursor: () => (finished ? walk.cursor() : cursor) };
}

export const taxiiFormat: FormatEntry<typeof schema> = {
  schema,
  incremental: true,
  paged: true,
  open: async (source, context) => {
    const read = readTaxiiCollection(source, context.state.cursor, {
      ...context.fetch,
      waits: context.waits,
      now: () => context.now,
      onWarning: (message) => context.warn('pull: upstream TAXII server', { message }),
    });
    return { rows: read.batches, etag: null, lastModified: null, cursor: () => read.cursor() };
  },
};
