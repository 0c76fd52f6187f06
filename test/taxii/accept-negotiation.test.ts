// Accept values and their outcomes on the gateway, in the header and in the `accept` query parameter.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE, taxiiGet } from './taxii-request.js';

/** [Accept, expected status]; null sends no Accept at all. */
const ACCEPT_TABLE: [string | null, 200 | 406][] = [
  ['application/taxii+json;version=2.1', 200],
  ['application/taxii+json', 200],
  ['application/taxii+json; version=2.1', 200],
  ['application/taxii+json;version="2.1"', 200],
  ['Application/TAXII+JSON;Version=2.1', 200],
  ['*/*', 200],
  ['application/*', 200],
  ['text/html, application/taxii+json;version=2.1;q=0.5', 200],
  ['application/taxii+json;version=2.0, */*;q=0.1', 200],
  ['application/json', 406],
  ['application/stix+json;version=2.1', 406],
  ['application/taxii+json;version=2.0', 406],
  ['application/taxii+json;version=2.1;q=0', 406],
  ['application/taxii+json;q=0', 406],
  ['*/*;q=0', 406],
  ['application/taxii+json;version=2.1;q=0, */*', 406],
  ['text/*', 406],
  ['', 406],
  ['not a media type', 406],
  [null, 406],
];

describe('TAXII content negotiation', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  const objects = `${collectionPath(INDICATORS_COLLECTION)}objects/?limit=1`;

  for (const [accept, status] of ACCEPT_TABLE) {
    const label = accept === null ? 'no Accept header' : `Accept: ${JSON.stringify(accept)}`;
    describe(`GET .../objects/ › with ${label}`, () => {
      it(`answers ${status} with the TAXII media type`, async () => {
        const res = await taxiiGet(ctx.app, objects, ctx.keys.pro!, accept);
        if (status === 406) assertTaxiiError(res, 406);
        else {
          assert.equal(res.status, 200, res.text);
          assert.equal(res.headers['content-type'], TAXII_TYPE);
          assert.equal(res.body.objects.length, 1);
        }
      });
    });

    if (accept !== null && accept !== '') {
      describe(`GET /taxii2/ › with ?key=...&accept=${accept}`, () => {
        it(`answers ${status}, as with the header`, async () => {
          const res = await request(ctx.app).get('/taxii2/').query({ key: ctx.keys.pro!, accept });
          if (status === 406) assertTaxiiError(res, 406);
          else assert.equal(res.status, 200, res.text);
        });
      });
    }
  }

  describe('GET /taxii2/ › with ?key= but neither accept= nor an Accept header', () => {
    it('answers 406 with a TAXII error', async () => {
      assertTaxiiError(await request(ctx.app).get('/taxii2/').query({ key: ctx.keys.pro! }), 406);
    });
  });

  describe('GET /taxii2/ › with accept= typed unencoded in a browser (the + arrives as a space)', () => {
    it('answers 200: the + is put back', async () => {
      const res = await request(ctx.app).get(`/taxii2/?key=${ctx.keys.pro}&accept=application/taxii+json;version=2.1`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers['content-type'], TAXII_TYPE);
    });

    it('still answers 406 for a version other than 2.1', async () => {
      assertTaxiiError(await request(ctx.app).get(`/taxii2/?key=${ctx.keys.pro}&accept=application/taxii+json;version=2.0`), 406);
    });
  });

  describe('GET /taxii2/ › with accept= given twice', () => {
    it('answers 400 with a TAXII error', async () => {
      const res = await request(ctx.app).get(`/taxii2/?key=${ctx.keys.pro}&accept=*/*&accept=*/*`);
      assertTaxiiError(res, 400);
    });
  });
});
