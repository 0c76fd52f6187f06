// Conditional TAXII requests: a 304 carries the TAXII media type too (docs/interface.md section 9.3: every TAXII response does).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE, taxiiGet } from './taxii-request.js';

const C = collectionPath(INDICATORS_COLLECTION);

describe('TAXII conditional requests', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  for (const path of ['/taxii2/', '/taxii2/api/', '/taxii2/api/collections/', C, `${C}objects/?limit=3`, `${C}manifest/`]) {
    describe(`GET ${path} › with If-None-Match: *`, () => {
      it(`answers 304 with Content-Type ${TAXII_TYPE} and no body`, async () => {
        const res = await taxiiGet(ctx.app, path, ctx.keys.pro!).set('If-None-Match', '*').expect(304);
        assert.equal(res.headers['content-type'], TAXII_TYPE);
        assert.equal(res.text, '');
      });
    });
  }

  describe(`GET ${C}objects/ › with If-None-Match: * and Cache-Control: no-cache`, () => {
    it('answers the full 200', async () => {
      const res = await taxiiGet(ctx.app, `${C}objects/?limit=1`, ctx.keys.pro!).set('If-None-Match', '*').set('Cache-Control', 'no-cache').expect(200);
      assert.equal(res.headers['content-type'], TAXII_TYPE);
      assert.equal(JSON.parse(res.text).objects.length, 1);
    });
  });

  describe('GET an unknown collection › with If-None-Match: *', () => {
    it('answers the 404 error resource, not a 304', async () => {
      const res = await taxiiGet(ctx.app, collectionPath('00000000-0000-4000-8000-000000000000'), ctx.keys.pro!).set('If-None-Match', '*');
      assertTaxiiError(res, 404);
    });
  });
});
