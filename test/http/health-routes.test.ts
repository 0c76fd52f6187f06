// /healthz and /readyz: GET and HEAD answer; other methods get the lookup API's 405 (RFC 9110 section 15.5.6).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, type TestContext } from '../helpers/test-app.js';

describe('the health probes', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext();
  });
  after(() => ctx.close());

  for (const [path, body] of [
    ['/healthz', { status: 'ok' }],
    ['/readyz', { status: 'ready', puller: 'off' }],
  ] as const) {
    describe(`GET ${path}`, () => {
      it('answers 200 JSON, not cached', async () => {
        const res = await request(ctx.app).get(path).expect(200, body);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(res.headers['cache-control'], 'no-store');
      });
    });

    describe(`HEAD ${path}`, () => {
      it('answers 200 with the headers of GET and no body', async () => {
        const res = await request(ctx.app).head(path).expect(200);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(res.text, undefined);
      });
    });

    for (const method of ['options', 'post', 'put', 'delete'] as const) {
      describe(`${method.toUpperCase()} ${path}`, () => {
        it('answers 405 with Allow: GET, HEAD and the JSON error body of the lookup API', async () => {
          const res = await request(ctx.app)[method](path).expect(405);
          assert.equal(res.headers.allow, 'GET, HEAD');
          assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
          assert.deepEqual(res.body, { error: `Method ${method.toUpperCase()} is not allowed here; use GET, HEAD.` });
        });
      });
    }
  }

  describe('OPTIONS on a probe and on the lookup API', () => {
    it('answer alike', async () => {
      const probe = await request(ctx.app).options('/healthz');
      const api = await request(ctx.app).options('/api/threat.php');
      assert.deepEqual([probe.status, probe.headers.allow, probe.headers['content-type']], [api.status, api.headers.allow, api.headers['content-type']]);
      assert.deepEqual(probe.body, api.body);
    });
  });
});
