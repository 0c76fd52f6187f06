// The error model outside the handlers: 405 with Allow, JSON 404s, security headers, no internals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';

describe('the HTTP surface of the lookup API', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  for (const method of ['post', 'put', 'delete', 'patch'] as const) {
    it(`answers ${method.toUpperCase()} /api/threat.php with 405 and Allow: GET, HEAD`, async () => {
      const res = await request(ctx.app)[method]('/api/threat.php?tid=1').expect(405);
      assert.equal(res.headers.allow, 'GET, HEAD');
      assert.match(res.body.error, new RegExp(`Method ${method.toUpperCase()} is not allowed`));
    });
  }

  it('answers an unknown path under /api with a JSON 404', async () => {
    const res = await request(ctx.app).get('/api/no-such-endpoint.php').expect(404);
    assert.deepEqual(res.body, { error: 'Not found.' });
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  });

  it('answers an unknown path anywhere with a JSON 404', async () => {
    const res = await request(ctx.app).get('/wp-admin').expect(404);
    assert.deepEqual(res.body, { error: 'Not found.' });
  });

  it('answers a malformed percent-encoding with a 400, not a stack trace', async () => {
    const res = await request(ctx.app).get('/api/threat.php?tid=%E0%A4%A').expect((r) => assert.ok(r.status >= 400 && r.status < 500));
    assert.equal(res.text.includes('at '), false);
  });

  it('answers conditional requests as Express does: If-None-Match: * is 304 with no body, a date alone is a full 200', async () => {
    const notModified = await request(ctx.app).get('/api/threat.php?tid=1').set('If-None-Match', '*').expect(304);
    assert.equal(notModified.text, '');
    assert.equal(notModified.headers['content-type'], undefined);
    const noCache = await request(ctx.app).get('/api/threat.php?tid=1').set('If-None-Match', '*').set('Cache-Control', 'no-cache').expect(200);
    assert.equal(noCache.body.tid, 1);
    const dated = await request(ctx.app).get('/api/threat.php?tid=1').set('If-Modified-Since', new Date().toUTCString()).expect(200);
    assert.equal(dated.headers['content-length'], String(Buffer.byteLength(dated.text)));
  });

  it('sends security headers for a JSON API and no X-Powered-By', async () => {
    const res = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
    assert.equal(res.headers['x-powered-by'], undefined);
    assert.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'");
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
  });

  it('hides internal errors behind a plain 500', async () => {
    const broken = { ...ctx.store, findThreat: async () => { throw new Error('SQLITE_CORRUPT: secret detail'); } };
    const { createApp } = await import('../../src/app.js');
    const app = createApp(ctx.config, { store: broken });
    const res = await request(app).get('/api/threat.php?tid=1').expect(500);
    assert.deepEqual(res.body, { error: 'Internal server error.' });
  });

  it('answers /healthz and /readyz without a key', async () => {
    await request(ctx.app).get('/healthz').expect(200, { status: 'ok' });
    await request(ctx.app).get('/readyz').expect(200, { status: 'ready', puller: 'off' });
  });
});
