// One source format as a pull sees it (docs/interface.md section 10, "Feed sources"): its schema, and how a pull opens it, its transport feeding its parser.
import type { z } from 'zod';
import type { FeedSourceState } from '../../store/contract/records.js';
import type { FeedBatch } from '../parsers/feed-entry.js';
import type { UpstreamFeed } from '../parsers/lookup-api-page.js';
import type { FetchOptions } from '../transports/fetch-source.js';
import type { RateLimitWaits } from '../transports/rate-limit-waits.js';

/** What a format's `open` is given besides its source: the feed's pull state and the pull's means and bounds. */
export interface OpenContext {
  state: FeedSourceState;
  /** Every request's options: the display URL (redacted configured URL), the pull's signal, test hooks. */
  fetch: FetchOptions & { displayUrl: string };
  /** The pull's one rate-limit budget, shared by every request of a paged source. */
  waits: RateLimitWaits;
  /** The pull's start (ms since the epoch): a STIX `valid_until` before it is past. */
  now: number;
  /** `feeds pull --force`: an HTML body is read as the list it claims to be, this once. */
  force: boolean;
  /** Logs what the upstream did that the pull survives (a page limit, a TAXII server paging badly); never a secret. */
  warn(message: string, fields: Record<string, unknown>): void;
}

/** What a source gives for one pull: its rows (none for a 304 or an unchanged body), and what the pull records after reading them. */
export interface SourceRead {
  rows: AsyncIterable<FeedBatch> | undefined;
  etag: string | null;
  lastModified: string | null;
  /** Where the next pull resumes (taxii, misp), known once the rows are read. */
  cursor?: () => string | null;
  /** The upstream feed's description (lookup-api, first pull only), fetched after the rows. */
  describe?: () => Promise<UpstreamFeed | undefined>;
  /** SHA-256 of a one-body source's body, kept to recognize the same body next time. */
  bodyHash?: string | null;
  /** The size of that body, for the sanity gate's first-pull check. */
  bodyBytes?: number;
  /** Frees what reading the source held (its spooled body), after the pull. */
  done?: () => Promise<void>;
}

/**
 * A format: adding one is one file exporting one of these, listed in format-registry.ts. `schema`
 * is the whole source object of that format (sourceSchema of source-fields.ts, its own checks
 * included), so `open` is given a source whose fields are already what the schema says.
 */
export interface FormatEntry<S extends z.ZodObject = z.ZodObject> {
  schema: S;
  /** The source lists only what is new since its cursor: a value left out is not dropped, and the sanity gate does not apply. */
  incremental: boolean;
  /** The rows come page by page from the upstream: read into a spool before the pull's transaction (spool-batches.ts). */
  paged: boolean;
  /** Starts reading the source (env-resolved, so never logged). */
  open(source: z.output<S>, context: OpenContext): Promise<SourceRead>;
}
