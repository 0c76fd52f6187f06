// Strict-Transport-Security only over HTTPS (RFC 6797 section 7.2, 8.1): req.secure, which honours trustProxy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, type TestContext } from '../helpers/test-app.js';
import { basicAuth, TAXII_TYPE } from '../taxii/taxii-request.js';

describe('Strict-Transport-Security', () => {
  describe('with the default config (trustProxy false)', () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext();
    });
    after(() => ctx.close());

    describe('GET /healthz › over plain HTTP', () => {
      it('is not sent', async () => {
        const res = await request(ctx.app).get('/healthz').expect(200);
        assert.equal(res.headers['strict-transport-security'], undefined);
      });

      it('keeps the other security headers', async () => {
        const res = await request(ctx.app).get('/healthz').expect(200);
        assert.equal(res.headers['content-security-policy'], "default-src 'none';frame-ancestors 'none'");
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.equal(res.headers['referrer-policy'], 'no-referrer');
      });
    });

    describe('GET /healthz › with X-Forwarded-Proto: https from a peer that is not trusted', () => {
      it('is not sent: the header could be forged by any client', async () => {
        const res = await request(ctx.app).get('/healthz').set('X-Forwarded-Proto', 'https').expect(200);
        assert.equal(res.headers['strict-transport-security'], undefined);
      });
    });
  });

  describe('behind one trusted proxy (trustProxy 1, as deploy/threatgate.json sets)', () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext({ overrides: { trustProxy: 1 } });
    });
    after(() => ctx.close());

    describe('GET /healthz › forwarded from HTTPS (X-Forwarded-Proto: https)', () => {
      it("is sent with helmet's default policy", async () => {
        const res = await request(ctx.app).get('/healthz').set('X-Forwarded-Proto', 'https').expect(200);
        assert.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
      });
    });

    describe('GET /api/threat.php and GET /taxii2/ › forwarded from HTTPS', () => {
      it('is sent on both surfaces, errors included', async () => {
        const api = await request(ctx.app).get('/api/threat.php').set('X-Forwarded-Proto', 'https').expect(400);
        assert.equal(api.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
        const taxii = await request(ctx.app).get('/taxii2/').set('X-Forwarded-Proto', 'https').set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);
        assert.equal(taxii.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
      });
    });

    describe('GET /healthz › forwarded from plain HTTP, or without X-Forwarded-Proto', () => {
      it('is not sent', async () => {
        for (const proto of ['http', undefined]) {
          const req = request(ctx.app).get('/healthz');
          const res = await (proto ? req.set('X-Forwarded-Proto', proto) : req).expect(200);
          assert.equal(res.headers['strict-transport-security'], undefined, `X-Forwarded-Proto: ${proto}`);
        }
      });
    });
  });
});
