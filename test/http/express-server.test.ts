// The server's request and response classes: inheriting from the app's prototypes, which stay Express's own, and answering exactly as node's.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { expressMessageClasses } from '../../src/http/express-server.js';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';

/** Headers that differ between two identical requests: the clock and the rate-limit counters. */
const VARYING = /^(date|ratelimit|x-requests-remaining-.*)$/;

function comparable(res: request.Response) {
  const headers = Object.fromEntries(Object.entries(res.headers).filter(([name]) => !VARYING.test(name)));
  return { status: res.status, headers, body: res.text };
}

describe('the Express server classes', () => {
  let ctx: TestContext;
  let plain: Server;
  let born: Server;
  /** Before Express sees them: do the request and response inherit from the app's prototypes? */
  const bornWith: { request: boolean; response: boolean }[] = [];

  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    born = createServer(expressMessageClasses(ctx.app), (req, res) => {
      bornWith.push({ request: ctx.app.request.isPrototypeOf(req), response: ctx.app.response.isPrototypeOf(res) });
      ctx.app(req, res);
    });
    plain = createServer(ctx.app);
  });
  after(() => ctx.close());

  it('builds requests and responses that inherit from the app\'s prototypes, and leaves those as Express made them', async () => {
    const res = await request(born).get('/api/threat.php?tid=1').expect(200);
    assert.deepEqual(bornWith, [{ request: true, response: true }]);
    assert.equal(JSON.parse(res.text).tid, 1);
    // Express's own: the app, inheriting every member from Express's request and response.
    assert.deepEqual(Object.getOwnPropertyNames(ctx.app.request), ['app']);
    assert.deepEqual(Object.getOwnPropertyNames(ctx.app.response), ['app']);
  });

  it('answers every kind of request exactly like a plain node:http server', async () => {
    const basic = `Basic ${Buffer.from(`taxii2:${ctx.keys.pro}`).toString('base64')}`;
    const taxii = { Authorization: basic, Accept: 'application/taxii+json;version=2.1' };
    const cases: { method: 'get' | 'post' | 'head'; path: string; headers?: Record<string, string> }[] = [
      { method: 'get', path: '/api/threat.php?tid=1' },
      { method: 'get', path: `/api/threat.php?tid=1&key=${ctx.keys.business}&pretty=1` },
      { method: 'head', path: '/api/threat.php?tid=1' },
      { method: 'get', path: '/api/threat.php?tid=999999' },
      { method: 'get', path: '/api/threat.php?tid=abc' },
      { method: 'post', path: '/api/feed.php?fid=1' },
      { method: 'get', path: '/api/feed.php?fid=1&get=links&page=0' },
      { method: 'get', path: '/taxii2/', headers: taxii },
      { method: 'get', path: '/taxii2/api/collections/', headers: taxii },
      { method: 'get', path: '/taxii2/', headers: { Accept: 'application/json' } },
      { method: 'get', path: '/nowhere' },
      { method: 'get', path: '/healthz' },
      { method: 'get', path: '/api/threat.php?tid=1', headers: { 'If-None-Match': '*' } },
      { method: 'get', path: '/taxii2/', headers: { ...taxii, 'If-Modified-Since': 'Sun, 22 Nov 2026 00:00:00 GMT' } },
    ];
    for (const c of cases) {
      const viaBorn = await request(born)[c.method](c.path).set(c.headers ?? {});
      const viaPlain = await request(plain)[c.method](c.path).set(c.headers ?? {});
      assert.deepEqual(comparable(viaBorn), comparable(viaPlain), `${c.method.toUpperCase()} ${c.path}`);
    }
  });
});
