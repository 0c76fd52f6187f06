// A local HTTP server that publishes source feeds for pull tests: the fixture files (or any text) per path, with
// ETags and 304s, content that can change between pulls, and failure modes switched on per path.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a path answers instead of its content. */
export type Failure =
  /** That status, with this body (default `error`) and, for a redirect, a Location. */
  | { kind: 'status'; status: number; body?: string; location?: string }
  /** 200 and `lines` lines of distinct addresses at once (none by default), then nothing: the pull's timeout ends it. */
  | { kind: 'stall'; lines?: number }
  /** 200 and `bytes` bytes of lines of distinct addresses, streamed: larger than the source's maxMegabytes. */
  | { kind: 'oversize'; bytes: number }
  /** 200 with this body instead (garbage, or an empty list), with an ETag of its own when the path sends ETags. */
  | { kind: 'body'; body: string };

export interface Published {
  body: string;
  /** Send a strong ETag (a hash of the body) and answer a matching If-None-Match with 304. */
  etag: boolean;
  contentType: string;
  failure?: Failure;
}

export interface ServedRequest {
  path: string;
  /** The path with its query string, as the client asked for it. */
  url: string;
  headers: IncomingHttpHeaders;
  status: number;
}

export interface FeedServer {
  /** `http://HOST:PORT`, the host it was started on (127.0.0.1 by default) */
  readonly base: string;
  /** Publishes `body` at `path` (replacing what was there, failure mode cleared). */
  publish(path: string, body: string, options?: { etag?: boolean; contentType?: string }): void;
  /** Publishes a file of test/fixtures/feeds/ at `/NAME`. */
  publishFixture(name: string, options?: { etag?: boolean; contentType?: string }): void;
  /** Switches a failure mode on for `path`, or off with `undefined`; the content stays. */
  fail(path: string, failure: Failure | undefined): void;
  /** Every request answered so far, oldest first. */
  readonly requests: ServedRequest[];
  /** The requests for one path. */
  requestsFor(path: string): ServedRequest[];
  /** Closes the kept-alive connections, so that the next request opens (and resolves) a new one. */
  closeIdleConnections(): void;
  close(): Promise<void>;
}

const FIXTURES = new URL('../fixtures/feeds/', import.meta.url);

/** The text of a fixture file in test/fixtures/feeds/. */
export function fixtureFeed(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

export const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('hex').slice(0, 20)}"`;

const contentTypeFor = (path: string) =>
  path.endsWith('.csv') ? 'text/csv; charset=utf-8' : path.endsWith('.json') ? 'application/json' : 'text/plain; charset=utf-8';

/** Lines `from` to `from + count - 1` of a list of distinct addresses in 198.18.0.0/15 (RFC 2544, not allowlisted). */
export function addressLines(from: number, count: number): string {
  let text = '';
  for (let i = from; i < from + count; i++) text += `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}\n`;
  return text;
}

/** Streams `total` bytes of address lines, waiting for drain, until done or the client goes away. */
async function streamLines(res: ServerResponse, total: number): Promise<void> {
  const closed = once(res, 'close');
  res.writeHead(200, { 'content-type': 'text/plain' });
  for (let sent = 0, line = 0; sent < total && !res.destroyed; line += 4096) {
    const chunk = addressLines(line, 4096);
    sent += chunk.length;
    if (!res.write(chunk)) await Promise.race([once(res, 'drain'), closed]);
  }
  res.end();
}

export async function startFeedServer(host = '127.0.0.1'): Promise<FeedServer> {
  const published = new Map<string, Published>();
  const requests: ServedRequest[] = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const path = new URL(url, 'http://x').pathname;
    const entry = published.get(path);
    const answer = (status: number) => requests.push({ path, url, headers: req.headers, status });
    if (entry === undefined) {
      answer(404);
      return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
    const failure = entry.failure;
    if (failure?.kind === 'status') {
      answer(failure.status);
      const headers = { 'content-type': 'text/plain', ...(failure.location === undefined ? {} : { location: failure.location }) };
      return res.writeHead(failure.status, headers).end(failure.body ?? 'error');
    }
    if (failure?.kind === 'stall') {
      answer(200);
      res.writeHead(200, { 'content-type': entry.contentType });
      // The rest never comes; the client's timeout closes the connection.
      return void res.write(addressLines(0, failure.lines ?? 0));
    }
    if (failure?.kind === 'oversize') {
      answer(200);
      return void streamLines(res, failure.bytes);
    }
    const body = failure?.kind === 'body' ? failure.body : entry.body;
    const headers: Record<string, string> = { 'content-type': entry.contentType };
    if (entry.etag) {
      const tag = etagOf(body);
      headers.etag = tag;
      const asked = req.headers['if-none-match'];
      if (asked !== undefined && asked.split(',').some((t) => t.trim() === tag)) {
        answer(304);
        return res.writeHead(304, { etag: tag }).end();
      }
    }
    answer(200);
    res.writeHead(200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;

  const publish = (path: string, body: string, options: { etag?: boolean; contentType?: string } = {}) => {
    published.set(path, { body, etag: options.etag ?? true, contentType: options.contentType ?? contentTypeFor(path) });
  };
  return {
    base,
    publish,
    publishFixture: (name, options) => publish(`/${name}`, fixtureFeed(name), options),
    fail(path, failure) {
      const entry = published.get(path);
      if (entry === undefined) throw new Error(`nothing is published at ${path}`);
      if (failure === undefined) delete entry.failure;
      else entry.failure = failure;
    },
    requests,
    requestsFor: (path) => requests.filter((r) => r.path === path),
    closeIdleConnections: () => server.closeIdleConnections(),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
