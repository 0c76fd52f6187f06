// Test helper for the compressed-body pulls (docs/sources.md, "Compressed bodies"): a local HTTP server answering each path with bytes and headers
// set by the test (a gzip or zip body, a Content-Type or Content-Encoding of its choosing), and the fixtures it packs.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';

export interface BinaryFeedServer {
  /** `http://127.0.0.1:PORT` */
  readonly base: string;
  /** Answers GET `path` with 200, `body` and `headers` (replacing what was there). */
  publish(path: string, body: Buffer | string, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

export async function startBinaryFeedServer(): Promise<BinaryFeedServer> {
  const published = new Map<string, { body: Buffer; headers: Record<string, string> }>();
  const server = createServer((req, res) => {
    const entry = published.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (entry === undefined) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    res.writeHead(200, { 'content-length': String(entry.body.length), ...entry.headers }).end(entry.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    publish: (path, body, headers = {}) => void published.set(path, { body: Buffer.from(body), headers }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const COMPRESSED_FIXTURES = new URL('../fixtures/feeds-compressed/', import.meta.url);

/** The text of a file of test/fixtures/feeds-compressed/. */
export const compressedFixture = (name: string) => readFileSync(new URL(name, COMPRESSED_FIXTURES), 'utf8');

/** The pull folders this process has in the temporary directory (pull-temp.ts names them after it). */
export const pullDirsOfThisProcess = () => readdirSync(tmpdir()).filter((name) => name.startsWith(`threatgate-pull-${process.pid}-`));
