// The `misp` transport (docs/feeds.md, "Structured sources"): a MISP feed directory's `manifest.json`, then its event files, fetched a few ahead.
import { fetchSource, FetchError, type FetchOptions } from './fetch-source.js';
import type { CommonSource } from '../formats/source-fields.js';
import { readJsonDocument } from '../parsers/json-document.js';

/** Event files fetched ahead of the one being read, unless told otherwise. */
const DEFAULT_CONCURRENCY = 4;

export interface MispFilesOptions {
  /** Every request's options; `displayUrl` is the configured feed URL, redacted: messages name the manifest and event files under it. */
  fetch: FetchOptions & { displayUrl: string };
  /** Event files fetched ahead of the one being read; default 4. */
  concurrency?: number;
}

export interface MispFiles {
  /** `manifest.json`, parsed. */
  manifest(): Promise<unknown>;
  /** The event files of these uuids, parsed, in this order; leaving early abandons the rest. */
  events(uuids: readonly string[]): AsyncGenerator<{ uuid: string; document: unknown }>;
}

/**
 * The files of a MISP feed: `manifest.json` under the source URL (the feed's directory; a URL naming
 * `manifest.json` itself is taken as its directory), and `<uuid>.json` per event. Each is one
 * request with fetchSource's limits; a file that cannot be fetched or is not JSON throws.
 */
export function mispFiles(source: CommonSource, options: MispFilesOptions): MispFiles {
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  const base = feedDirectory(source.url);
  const displayBase = displayDirectory(options.fetch.displayUrl);
  const outer = options.fetch.signal;

  async function fetchDocument(name: string, signal: AbortSignal | undefined): Promise<unknown> {
    const displayUrl = `${displayBase}${name}`;
    const fetched = await fetchSource({ ...source, url: new URL(name, base).href }, {}, { ...options.fetch, displayUrl, ...(signal ? { signal } : {}) });
    // No validators are sent, so a 304 is the server's mistake.
    if (fetched.kind !== 'body') throw new FetchError(displayUrl, 'HTTP status 304 without a conditional request', 304);
    return readJsonDocument(fetched.body, name);
  }

  async function* events(uuids: readonly string[]): AsyncGenerator<{ uuid: string; document: unknown }> {
    // Event files are fetched a few ahead, and read in order; leaving early abandons the rest.
    const stop = new AbortController();
    const signal = outer ? AbortSignal.any([outer, stop.signal]) : stop.signal;
    const ahead: Promise<unknown>[] = [];
    let started = 0;
    const startNext = () => {
      const document = fetchDocument(`${uuids[started++]!}.json`, signal);
      // Awaited in turn below; until then a failure must not count as unhandled.
      document.catch(() => {});
      ahead.push(document);
    };
    try {
      while (started < uuids.length && ahead.length < concurrency) startNext();
      for (const uuid of uuids) {
        const document = await ahead.shift()!;
        if (started < uuids.length) startNext();
        yield { uuid, document };
      }
    } finally {
      stop.abort();
    }
  }

  return { manifest: () => fetchDocument('manifest.json', outer), events };
}

/** The directory URL of the feed, ending with `/`; its query string and fragment are not part of it. */
function feedDirectory(url: string): URL {
  const directory = new URL(url);
  directory.search = '';
  directory.hash = '';
  if (directory.pathname.endsWith('/manifest.json')) directory.pathname = directory.pathname.slice(0, -'manifest.json'.length);
  else if (!directory.pathname.endsWith('/')) directory.pathname += '/';
  return directory;
}

/** As feedDirectory, on the text of the display URL: `new URL` would percent-encode its `${env:NAME}` placeholders. */
function displayDirectory(url: string): string {
  const path = url.replace(/[?#].*$/s, '');
  if (path.endsWith('/manifest.json')) return path.slice(0, -'manifest.json'.length);
  return path.endsWith('/') ? path : `${path}/`;
}

