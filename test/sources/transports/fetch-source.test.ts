// fetchSource against a real local HTTP server: bodies, content codings, conditionals, redirects, statuses, limits while streaming, and no secret in a message; HTTP/1.0 answers from the framing server.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { fetchSource, FetchError, type FetchResult } from '../../../src/sources/transports/fetch-source.js';
import { parseSource, type SourceDefinition } from '../../../src/sources/source-definition.js';
import { startFramingServer, type FramedAnswer } from '../../helpers/framing-server.js';

const CHUNK = Buffer.alloc(64 * 1024, 'a');
const BIG_TOTAL = 64 * 1024 * 1024;
const seen = new Map<string, IncomingHttpHeaders>();
let big = { sent: 0, closed: Promise.resolve() };

async function streamBig(res: ServerResponse): Promise<void> {
  res.writeHead(200);
  while (big.sent < BIG_TOTAL && !res.destroyed) {
    big.sent += CHUNK.length;
    if (!res.write(CHUNK)) await Promise.race([once(res, 'drain'), big.closed]);
  }
  res.end();
}

const CODED_TEXT = 'b'.repeat(5000);
/** Bodies in each content coding (RFC 9110 section 8.4.1), a list of two, and one not known: the coding header and the bytes sent. */
const CODED: Record<string, [string, Buffer]> = {
  '/deflate': ['deflate', deflateSync(CODED_TEXT)],
  // Some servers send "deflate" as raw deflate data, without the zlib wrapper; fetch read it too.
  '/deflate-raw': ['deflate', deflateRawSync(CODED_TEXT)],
  '/br': ['br', brotliCompressSync(CODED_TEXT)],
  '/x-gzip': ['x-gzip', gzipSync(CODED_TEXT)],
  '/gzip-br': ['gzip, br', brotliCompressSync(gzipSync(CODED_TEXT))],
  '/unknown': ['zstd', Buffer.from('as sent')],
};

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  seen.set(path, req.headers);
  const redirect = /^\/r\/(\d+)$/.exec(path);
  if (redirect) {
    const left = Number(redirect[1]);
    if (left === 0) return res.end('arrived');
    return res.writeHead(left % 2 ? 302 : 307, { location: `/r/${left - 1}` }).end();
  }
  if (path === '/plain') return res.end('192.0.2.1\n198.51.100.0/24\n');
  if (path === '/gzip') return res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('a'.repeat(5000)));
  const coded = CODED[path];
  if (coded) return res.writeHead(200, { 'content-encoding': coded[0] }).end(coded[1]);
  if (path === '/cond') {
    if (req.headers['if-none-match'] === '"v1"') return res.writeHead(304).end();
    return res.writeHead(200, { etag: '"v1"', 'last-modified': 'Tue, 01 Apr 2025 00:00:00 GMT' }).end('x\n');
  }
  if (path === '/to-file') return res.writeHead(302, { location: 'file:///etc/passwd' }).end();
  if (path.startsWith('/status/')) return res.writeHead(Number(path.slice(8))).end('nope');
  if (path === '/big') {
    big = { sent: 0, closed: new Promise((resolve) => res.once('close', resolve)) };
    return void streamBig(res);
  }
  if (path === '/stall-headers') return; // never answers
  if (path === '/stall-body') return res.writeHead(200).write('first\n');
  res.end('ok');
});

let base = '';
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function source(url: string, extra: Record<string, unknown> = {}): SourceDefinition {
  return parseSource({ url, format: 'text', timeoutSeconds: 2, ...extra });
}

async function text(result: FetchResult): Promise<string> {
  assert.equal(result.kind, 'body');
  if (result.kind !== 'body') return '';
  let all = '';
  const decoder = new TextDecoder();
  for await (const chunk of result.body) all += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return all;
}

async function fetchError(promise: Promise<unknown>): Promise<FetchError> {
  try {
    const result = await promise;
    if (result && typeof result === 'object' && 'body' in result) await text(result as FetchResult);
  } catch (error) {
    assert.ok(error instanceof FetchError, `expected a FetchError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a FetchError');
}

describe('fetchSource', () => {
  describe('over HTTP', () => {
    it('reads a plain 200 body fully and asks for gzip', async () => {
      assert.equal(await text(await fetchSource(source(`${base}/plain`), {})), '192.0.2.1\n198.51.100.0/24\n');
      assert.equal(seen.get('/plain')?.['accept-encoding'], 'gzip');
    });

    it('decompresses a gzip-encoded body', async () => {
      assert.equal(await text(await fetchSource(source(`${base}/gzip`), {})), 'a'.repeat(5000));
    });

    it('undoes deflate (zlib or raw), br, x-gzip and a list of codings, and gives a body in a coding it does not know as it is', async () => {
      for (const path of ['/deflate', '/deflate-raw', '/br', '/x-gzip', '/gzip-br']) assert.equal(await text(await fetchSource(source(`${base}${path}`), {})), CODED_TEXT, path);
      const unknown = await fetchSource(source(`${base}/unknown`), {});
      assert.ok(unknown.kind === 'body');
      assert.equal(unknown.headers.get('content-encoding'), 'zstd');
      assert.equal(await text(unknown), 'as sent');
    });

    it('reads HTTP/1.0 answers that end at the close (python3 -m http.server): a redirect, then the body, then a 304', async () => {
      const framing = await startFramingServer({
        framing: 'http10-close',
        answer: (request): FramedAnswer => {
          if (request.path === '/old') return { status: 302, headers: { Location: '/list.txt' }, body: 'moved' };
          if (request.headers['if-none-match'] === '"v1"') return { status: 304, body: '' };
          return { headers: { ETag: '"v1"' }, body: '203.0.113.9\n' };
        },
      });
      try {
        const first = await fetchSource(source(`${framing.base}/old`), {});
        assert.ok(first.kind === 'body');
        assert.equal(first.etag, '"v1"');
        assert.equal(await text(first), '203.0.113.9\n');
        assert.deepEqual(await fetchSource(source(`${framing.base}/list.txt`), { etag: '"v1"' }), { kind: 'not-modified' });
        assert.deepEqual(framing.requests.map((r) => r.path), ['/old', '/list.txt', '/list.txt']);
      } finally {
        await framing.close();
      }
    });

    it('returns ETag and Last-Modified, and answers not-modified when the server says 304 to them', async () => {
      const first = await fetchSource(source(`${base}/cond`), {});
      assert.ok(first.kind === 'body');
      assert.deepEqual([first.etag, first.lastModified], ['"v1"', 'Tue, 01 Apr 2025 00:00:00 GMT']);
      await text(first);
      const second = await fetchSource(source(`${base}/cond`), { etag: first.etag, lastModified: first.lastModified });
      assert.deepEqual(second, { kind: 'not-modified' });
      assert.equal(seen.get('/cond')?.['if-modified-since'], 'Tue, 01 Apr 2025 00:00:00 GMT');
    });

    it('sends Basic auth from username/password and the configured headers', async () => {
      await text(await fetchSource(source(`${base}/echo`, { username: 'alice', password: 's3cret', headers: { 'X-Api-Key': 'k-123' } }), {}));
      assert.equal(seen.get('/echo')?.authorization, `Basic ${Buffer.from('alice:s3cret').toString('base64')}`);
      assert.equal(seen.get('/echo')?.['x-api-key'], 'k-123');
    });

    it('turns userinfo in the URL into Basic auth, never sending it in the request line', async () => {
      await text(await fetchSource(source(`http://bob:pw@${base.slice(7)}/echo`), {}));
      assert.equal(seen.get('/echo')?.authorization, `Basic ${Buffer.from('bob:pw').toString('base64')}`);
    });
  });

  describe('redirects', () => {
    it('follows 5 redirects', async () => {
      assert.equal(await text(await fetchSource(source(`${base}/r/5`), {})), 'arrived');
    });

    it('refuses a 6th redirect', async () => {
      assert.match((await fetchError(fetchSource(source(`${base}/r/6`), {}))).message, /: more than 5 redirects$/);
    });

    it('refuses a redirect to file://', async () => {
      assert.match((await fetchError(fetchSource(source(`${base}/to-file`), {}))).message, /redirect to scheme "file" refused/);
    });
  });

  describe('failures', () => {
    for (const status of [404, 500]) {
      it(`fails on HTTP ${status}, naming the status`, async () => {
        const error = await fetchError(fetchSource(source(`${base}/status/${status}`), {}));
        assert.equal(error.message, `${base}/status/${status}: HTTP status ${status}`);
        assert.equal(error.status, status);
      });
    }

    it('fails while streaming a body over maxMegabytes, closing the connection early', async () => {
      const error = await fetchError(fetchSource(source(`${base}/big`, { maxMegabytes: 0.5 }), {}));
      assert.match(error.message, /body larger than maxMegabytes \(0\.5\)/);
      await big.closed;
      assert.ok(big.sent < BIG_TOTAL / 4, `the server sent ${big.sent} bytes`);
    });

    for (const stall of ['headers', 'body']) {
      it(`times out when the server stalls on the ${stall}`, async () => {
        const started = Date.now();
        const error = await fetchError(fetchSource(source(`${base}/stall-${stall}`, { timeoutSeconds: 0.3 }), {}));
        assert.match(error.message, /timed out after 0\.3 s$/);
        assert.ok(Date.now() - started < 2000);
      });
    }

    it('names neither the password nor the query string of the URL', async () => {
      const port = base.split(':')[2];
      // The server speaks plain HTTP, so the TLS handshake fails.
      const error = await fetchError(fetchSource(source(`https://user:pass@127.0.0.1:${port}/x?key=SECRET`), {}));
      assert.match(error.message, /^https:\/\/127\.0\.0\.1:\d+\/x: connection failed \(/);
      assert.doesNotMatch(`${error.message} ${error.stack}`, /pass|SECRET/);
      const status = await fetchError(fetchSource(source(`${base}/status/403?key=SECRET`, { headers: { 'X-Key': 'SECRET' } }), {}));
      assert.equal(status.message, `${base}/status/403: HTTP status 403`);
    });

    it('names the display URL given, keeping placeholders', async () => {
      const error = await fetchError(fetchSource(source(`${base}/status/404`), {}, { displayUrl: 'http://feeds.example/${env:TOKEN}/drop.txt' }));
      assert.equal(error.message, 'http://feeds.example/${env:TOKEN}/drop.txt: HTTP status 404');
    });
  });

  describe('file://', () => {
    let dir = '';
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'fetch-source-'));
      await writeFile(join(dir, 'drop.txt'), '203.0.113.7\n');
      await writeFile(join(dir, 'big.txt'), Buffer.alloc(4096, 'b'));
    });
    after(() => rm(dir, { recursive: true }));

    it('reads the file from disk, with no validators', async () => {
      const result = await fetchSource(source(pathToFileURL(join(dir, 'drop.txt')).href), { etag: '"x"' });
      assert.ok(result.kind === 'body');
      assert.deepEqual([result.etag, result.lastModified], [null, null]);
      assert.equal(await text(result), '203.0.113.7\n');
    });

    it('fails on a missing file', async () => {
      const error = await fetchError(fetchSource(source(pathToFileURL(join(dir, 'none.txt')).href), {}));
      assert.match(error.message, /none\.txt: file not found$/);
    });

    it('applies maxMegabytes to a file too', async () => {
      const error = await fetchError(fetchSource(source(pathToFileURL(join(dir, 'big.txt')).href, { maxMegabytes: 0.001 }), {}));
      assert.match(error.message, /body larger than maxMegabytes \(0\.001\)$/);
    });
  });
});
