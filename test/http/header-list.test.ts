// HeaderList: headers gathered for the fast path are written in the order, spelling and values node would send them.
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { HeaderList } from '../../src/http/header-list.js';

/** The raw header lines (Date, Connection and Keep-Alive aside) of the answer `respond` writes. */
async function rawHeaders(respond: (res: ServerResponse) => void): Promise<string[]> {
  const server = createServer((_req, res) => respond(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const answer = await new Promise<IncomingMessage>((resolve, reject) => request({ port, host: '127.0.0.1', agent: false }, resolve).on('error', reject).end());
    answer.resume();
    const lines: string[] = [];
    for (let i = 0; i < answer.rawHeaders.length; i += 2) lines.push(`${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}`);
    return lines.filter((line) => !/^(date|connection|keep-alive):/i.test(line));
  } finally {
    server.close();
  }
}

/** The same calls, made on a HeaderList written in one writeHead, and on the response itself. */
function both(calls: (target: { setHeader(name: string, value: string | number | string[]): unknown; removeHeader(name: string): void }) => void) {
  return Promise.all([
    rawHeaders((res) => {
      const list = new HeaderList();
      calls(list);
      list.writeHead(res, 200);
      res.end('x');
    }),
    rawHeaders((res) => {
      calls(res);
      res.statusCode = 200;
      res.end('x');
    }),
  ]);
}

describe('HeaderList', () => {
  it('sends what setHeader on the response sends: a name set again keeps its place, with the spelling it was set with last', async () => {
    const [listed, direct] = await both((target) => {
      target.setHeader('Content-Type', 'text/plain');
      target.setHeader('X-One', '1');
      target.setHeader('RateLimit', ['"second"; r=1', '"day"; r=2']);
      target.setHeader('content-type', 'application/json');
      target.setHeader('Content-Length', 1);
    });
    assert.deepEqual(listed, direct);
    assert.deepEqual(listed, ['content-type: application/json', 'X-One: 1', 'RateLimit: "second"; r=1', 'RateLimit: "day"; r=2', 'Content-Length: 1']);
  });

  it('a header removed is not sent, and set again it goes last', async () => {
    const [listed, direct] = await both((target) => {
      target.setHeader('X-Powered-By', 'x');
      target.setHeader('A', 'a');
      target.removeHeader('x-powered-by');
      target.setHeader('B', 'b');
      target.removeHeader('A');
      target.setHeader('A', 'again');
      target.removeHeader('Not-Set');
      target.setHeader('Content-Length', 1);
    });
    assert.deepEqual(listed, direct);
    assert.deepEqual(listed, ['B: b', 'A: again', 'Content-Length: 1']);
  });

  it('on a response that already holds headers, puts its own after them and writes as the response would', async () => {
    const lines = await rawHeaders((res) => {
      res.setHeader('X-Early', 'e');
      const list = new HeaderList().setHeader('X-Late', 'l').setHeader('Content-Length', 1);
      list.writeHead(res, 201);
      res.end('x');
    });
    assert.deepEqual(lines, ['X-Early: e', 'X-Late: l', 'Content-Length: 1']);
  });
});
