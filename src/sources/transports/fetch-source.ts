// Fetches a source's body for a pull (docs/sources.md, "How a pull fetches"): limits enforced while streaming, redirects and conditionals by hand, no secret in an error.
import { createReadStream } from 'node:fs';
import { ThreatgateError } from '../../errors.js';
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FeedBody } from '../parsers/feed-body.js';
import { agentFor, ConnectionRefused, type ResolveHost } from './guarded-agent.js';
import { httpGet } from './http-get.js';
import { sourceReach } from './network-policy.js';
import type { CommonSource } from '../formats/source-fields.js';
import { redactedUrl } from '../redacted-url.js';

/** At most 5 redirects; the 6th fails the pull (docs/sources.md, "How a pull fetches"). */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** What a body's transfer ending early reads as, with the code of what ended it (ECONNRESET, ERR_STREAM_PREMATURE_CLOSE). */
const BODY_CUT_SHORT = 'connection closed before the body ended';
/** `maxMegabytes` counts mebibytes, as MAX_MEGABYTES (4096 = 4 GiB) does. */
const BYTES_PER_MEGABYTE = 1024 * 1024;

/**
 * A pull's fetch failed: network error, timeout, status, redirect, size or file. The message is
 * `URL: reason`, where URL is the display URL: no userinfo, no query string (`?key=SECRET` is how
 * many feeds take their key) and no fragment. Header values and the underlying error are never
 * included, nor kept as `cause`: a logged cause would print what the message leaves out.
 */
export class FetchError extends ThreatgateError {
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly status?: number,
    /** Seconds a 429 or 503 asked to wait (`Retry-After`, as seconds or an HTTP date), when it said. */
    readonly retryAfter?: number,
  ) {
    super(`${url}: ${reason}`);
  }
}

/** `Retry-After` as seconds from now (RFC 9110 §10.2.3: delay-seconds or an HTTP-date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

export type FetchResult =
  | { kind: 'not-modified' }
  | { kind: 'body'; body: FeedBody; etag: string | null; lastModified: string | null; headers: Headers };

export interface FetchOptions {
  /** Aborts the pull from outside (shutdown, a lost lease); the timeout is added to it. */
  signal?: AbortSignal;
  /**
   * The URL for messages: pass `redactedUrl` of the configured URL, so a secret substituted into the
   * path stays a `${env:NAME}` placeholder. Default: the resolved URL's origin and path.
   */
  displayUrl?: string;
  /** Resolves host names (tests control DNS with it); default: the system resolver. */
  resolveHost?: ResolveHost;
  /** Hears every response's status and counts the body bytes read, over all requests of a pull (its run, docs/interface.md section 12). */
  meter?: TransferMeter;
}

/** What a pull's requests did, for its run: the last response's status (null: none, or a file) and the body bytes read. */
export interface TransferMeter {
  httpStatus: number | null;
  bytes: number;
}

/**
 * Starts fetching `source` (already env-resolved, so never logged) and resolves once the headers
 * are in. The timeout covers the headers and the whole body: the returned body throws a FetchError
 * when it runs out, or when the body grows past `maxMegabytes`, and stops the transfer then.
 */
export async function fetchSource(
  source: CommonSource,
  previous: { etag?: string | null; lastModified?: string | null },
  options: FetchOptions = {},
): Promise<FetchResult> {
  const display = stripForDisplay(options.displayUrl ?? source.url);
  const timeout = AbortSignal.timeout(source.timeoutSeconds * 1000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const limit = bodyLimit(source);
  const fail = (reason: string, status?: number) => new FetchError(display, reason, status);
  const failure = (error: unknown, what = 'connection failed'): FetchError => {
    if (error instanceof FetchError) return error;
    const refused = error instanceof Error && error.cause instanceof ConnectionRefused ? error.cause : error instanceof ConnectionRefused ? error : undefined;
    if (refused !== undefined) return fail(refused.message);
    if (timeout.aborted) return fail(`timed out after ${source.timeoutSeconds} s`);
    if (signal.aborted) return fail('aborted');
    const code = errorCode(error);
    return fail(`${code.startsWith('HPE_') ? 'the response is not valid HTTP' : what} (${code})`);
  };
  const tooLarge = () => bodyTooLarge(source, options);
  const limited = (chunks: AsyncIterable<Uint8Array>, what = BODY_CUT_SHORT) => limitBody(chunks, limit, tooLarge, (error) => failure(error, bodyFailure(error, what)), options.meter);

  let url = new URL(source.url);
  if (url.protocol === 'file:') {
    // No conditional for files: reading a local file costs little, and an mtime with one-second
    // resolution can miss a rewrite within that second. The pull sees an identical body instead.
    const handle = await open(fileURLToPath(url), 'r').catch((error: unknown) => {
      throw errorCode(error) === 'ENOENT' ? fail('file not found') : failure(error, 'cannot read the file');
    });
    const stream = createReadStream('', { fd: handle, signal });
    return { kind: 'body', body: limited(stream, 'cannot read the file'), etag: null, lastModified: null, headers: new Headers() };
  }

  // Every connection, the first and each redirect's, goes through an agent that checks its address
  // against what the source may reach (network-policy.ts): a redirect never reaches further in.
  const reach = sourceReach(source.url, source.network, false);
  let headers = requestHeaders(source, url, previous);
  for (let redirects = 0; ; redirects++) {
    // Userinfo is moved into Authorization by requestHeaders: it never travels in the request line.
    url.username = '';
    url.password = '';
    // Redirects are followed here, never by the transport, to count them and to check each target's scheme.
    const agent = agentFor(reach, url.protocol, options.resolveHost);
    const response = await httpGet(url, headers, { agent, signal }).catch((error: unknown) => {
      throw failure(error);
    });
    if (options.meter) options.meter.httpStatus = response.status;
    if (response.status === 304) {
      response.discard();
      return { kind: 'not-modified' };
    }
    if (response.status >= 200 && response.status < 300) {
      return {
        kind: 'body',
        body: limited(response.body),
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
        headers: response.headers,
      };
    }
    response.discard();
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null) {
      const wait = response.status === 429 || response.status === 503 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined;
      throw new FetchError(display, `HTTP status ${response.status}`, response.status, wait);
    }
    if (redirects === MAX_REDIRECTS) throw fail(`more than ${MAX_REDIRECTS} redirects`);
    const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
    if (next === undefined) throw fail('redirect to an invalid URL');
    // Never from http(s) to file: or any other scheme: a feed server must not make us read local files.
    if (next.protocol !== 'http:' && next.protocol !== 'https:') throw fail(`redirect to scheme "${next.protocol.slice(0, -1)}" refused`);
    // The credentials and configured headers were given for the source's origin, not another one.
    if (next.origin !== url.origin) headers = conditionalHeaders(previous);
    url = next;
  }
}

/** The most bytes a body of `source` may hold: its `maxMegabytes`, counted on the bytes its parser reads. */
export function bodyLimit(source: CommonSource): number {
  return Math.floor(source.maxMegabytes * BYTES_PER_MEGABYTE);
}

/**
 * The failure of a body past `maxMegabytes`: one wording whether the bytes came off the wire or out
 * of a decompressor (decompress-body.ts), so a gzip or zip bomb reads as any other oversized body.
 */
export function bodyTooLarge(source: CommonSource, options: Pick<FetchOptions, 'displayUrl'> = {}): FetchError {
  return new FetchError(stripForDisplay(options.displayUrl ?? source.url), `body larger than maxMegabytes (${source.maxMegabytes})`);
}

function conditionalHeaders(previous: { etag?: string | null; lastModified?: string | null }): Headers {
  // gzip only: every server has it, the transport undoes it (content-coding.ts), and the size limit counts decoded bytes.
  const headers = new Headers({ 'accept-encoding': 'gzip' });
  if (previous.etag) headers.set('if-none-match', previous.etag);
  if (previous.lastModified) headers.set('if-modified-since', previous.lastModified);
  return headers;
}

function requestHeaders(source: CommonSource, url: URL, previous: { etag?: string | null; lastModified?: string | null }): Headers {
  const headers = conditionalHeaders(previous);
  for (const [name, value] of Object.entries(source.headers ?? {})) headers.set(name, value);
  // username/password win over userinfo in the URL; both are sent as Basic (RFC 7617).
  const username = source.username ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const password = source.username !== undefined ? (source.password ?? '') : decodeURIComponent(url.password);
  if (username !== undefined) headers.set('authorization', `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`);
  return headers;
}

/**
 * The chunks, failing once more than `limit` bytes have arrived. The limit counts decompressed
 * bytes: that is what memory holds, and it stops a gzip bomb. Leaving the loop (a throw, or the
 * consumer stopping) cancels the stream, which closes the connection or the file.
 */
async function* limitBody(
  chunks: AsyncIterable<Uint8Array>,
  limit: number,
  tooLarge: () => FetchError,
  failure: (error: unknown) => FetchError,
  meter: TransferMeter | undefined,
): FeedBody {
  let total = 0;
  try {
    for await (const chunk of chunks) {
      total += chunk.byteLength;
      if (meter) meter.bytes += chunk.byteLength;
      if (total > limit) throw tooLarge();
      yield chunk;
    }
  } catch (error) {
    throw failure(error);
  }
}

/** Why a body ended before its end, by the error's code: the connection, a malformed answer, or a coding that does not decode. */
function bodyFailure(error: unknown, what: string): string {
  const code = errorCode(error);
  if (code.startsWith('Z_') || code === 'ERR_TOO_MANY_CODINGS') return 'the body\'s content coding cannot be undone';
  return what;
}

function errorCode(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  // Codes only (ECONNREFUSED, ENOTFOUND, ECONNRESET, HPE_INVALID_CHUNK_SIZE): messages of lower layers may quote the URL.
  return typeof code === 'string' ? code : cause instanceof Error ? cause.name : 'unknown error';
}

/** The URL without userinfo (redactedUrl), query string and fragment. */
function stripForDisplay(url: string): string {
  return redactedUrl(url).replace(/[?#].*$/s, '');
}
