// The HTTP bench's least-work server (bench/bare-server.ts --least-work), over a real socket: it counts
// each key's windows and writes their values, replays everything else as recorded, and logs a line per request.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { leastWorkHandler, type Reply } from '../../bench/bare-server.js';

const KEY = 'Abcdefghijklmnopqrstuvwxyz0123456789_-ABCDE';
const LOOKUP = `/api/threat.php?tid=1&key=${KEY}`;
const TAXII = '/taxii2/';

/**
 * Recorded as threatgate answers a key of a plan with 10/100/1000 requests an hour/day/month (an
 * hour rather than a second, so that no window ends between two requests of a test).
 */
function recorded(body: string): Reply {
  return {
    status: 200,
    headers: [
      'X-Frame-Options', 'SAMEORIGIN',
      'RateLimit', '"hour"; r=9; t=5',
      'RateLimit', '"day"; r=99; t=5',
      'RateLimit', '"month"; r=999; t=5',
      'RateLimit-Policy', '"hour"; q=10; w=3600; pk=:MTIzNDU2Nzg5MGFi:',
      'RateLimit-Policy', '"day"; q=100; w=86400; pk=:MTIzNDU2Nzg5MGFi:',
      'RateLimit-Policy', '"month"; q=1000; w=2592000; pk=:MTIzNDU2Nzg5MGFi:',
      'X-Requests-Remaining-Hour', '9',
      'X-Requests-Remaining-Day', '99',
      'X-Requests-Remaining-Month', '999',
      'Content-Type', 'application/json; charset=utf-8',
      'Content-Length', String(body.length),
    ],
    body: Buffer.from(body),
  };
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; rawHeaders: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, rawHeaders: res.rawHeaders, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the least-work server', () => {
  const logged: string[] = [];
  let server: Server;
  let port: number;

  before(async () => {
    const replies = new Map([
      [LOOKUP, recorded('{"tid":1}')],
      [TAXII, recorded('{"title":"t"}')],
    ]);
    server = createServer(leastWorkHandler(replies, (text) => logged.push(text)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('counts a key given in the query in each window, and writes what remains', async () => {
    const first = await get(port, LOOKUP);
    const second = await get(port, LOOKUP);
    assert.equal(first.status, 200);
    assert.equal(first.body, '{"tid":1}');
    assert.equal(second.headers['x-requests-remaining-hour'], '8');
    assert.equal(second.headers['x-requests-remaining-day'], '98');
    assert.equal(second.headers['x-requests-remaining-month'], '998');
    const limits = second.rawHeaders.filter((_, i) => i % 2 === 1 && second.rawHeaders[i - 1] === 'RateLimit');
    assert.equal(limits.length, 3);
    assert.match(limits[0]!, /^"hour"; r=8; t=\d+$/);
    assert.match(limits[1]!, /^"day"; r=98; t=\d+$/);
    assert.match(limits[2]!, /^"month"; r=998; t=\d+$/);
  });

  it('counts a key given by HTTP Basic apart, and keeps the recorded header order', async () => {
    const res = await get(port, TAXII, { authorization: `Basic ${Buffer.from('taxii2:another-key-0123456789').toString('base64')}` });
    assert.equal(res.headers['x-requests-remaining-hour'], '9');
    const names = res.rawHeaders.filter((_, i) => i % 2 === 0 && !['Date', 'Connection', 'Keep-Alive'].includes(res.rawHeaders[i]!));
    assert.deepEqual(names, recorded('').headers.filter((_, i) => i % 2 === 0));
  });

  it('replays as recorded without a key, and answers 404 to a path it has no answer for', async () => {
    const res = await get(port, TAXII);
    assert.equal(res.headers['x-requests-remaining-day'], '99');
    assert.equal((await get(port, '/nothing')).status, 404);
  });

  it('logs a line per request with the key redacted', async () => {
    const before = logged.length;
    await get(port, LOOKUP);
    // Lines are written once per turn of the event loop.
    for (let i = 0; i < 100 && logged.length === before; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const lines = logged.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const last = lines.at(-1)!;
    assert.equal(last.msg, 'request');
    assert.equal(last.url, '/api/threat.php?tid=1&key=[redacted]');
    assert.equal(last.status, 200);
    assert.match(String(last.client), /^k_/);
    assert.ok(!logged.join('').includes(KEY));
  });
});
