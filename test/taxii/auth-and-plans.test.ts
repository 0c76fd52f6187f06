// TAXII authentication (Basic taxii2:KEY or ?key=&accept=), the plan gate, rate limits, and key redaction.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createKey } from '../../src/cli/keys-command.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, basicAuth, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE, TEST_COLLECTION, taxiiGet } from './taxii-request.js';

const TEST = collectionPath(TEST_COLLECTION);
const ALL = collectionPath(INDICATORS_COLLECTION);

describe('TAXII authentication and plans', () => {
  let ctx: TestContext;
  let objectId: string;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    objectId = (await taxiiGet(ctx.app, `${TEST}manifest/?match[type]=indicator&limit=1`, ctx.keys.pro!).expect(200)).body.objects[0].id;
  });
  after(() => ctx.close());

  describe('Basic taxii2:KEY and ?key=&accept=', () => {
    for (const path of ['/taxii2/', '/taxii2/api/collections/', `${ALL}objects/?limit=3`, `${ALL}manifest/?limit=4&match[type]=indicator`]) {
      it(`give the same response to GET ${path}`, async () => {
        const basic = await taxiiGet(ctx.app, path, ctx.keys.pro!).expect(200);
        const sep = path.includes('?') ? '&' : '?';
        const query = await request(ctx.app).get(`${path}${sep}key=${ctx.keys.pro}&accept=${encodeURIComponent(TAXII_TYPE)}`).expect(200);
        assert.equal(query.headers['content-type'], TAXII_TYPE);
        assert.equal(query.text, basic.text);
        assert.equal(query.headers['x-taxii-date-added-first'], basic.headers['x-taxii-date-added-first']);
        assert.equal(query.headers['x-taxii-date-added-last'], basic.headers['x-taxii-date-added-last']);
      });
    }
  });

  describe('GET /taxii2/ › with missing, malformed or wrong credentials', () => {
    const b64 = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    const cases: [string, (key: string) => { header?: string; query?: string }][] = [
      ['no credentials at all', () => ({})],
      ['a Bearer token', (key) => ({ header: `Bearer ${key}` })],
      ['Basic with characters outside base64', () => ({ header: 'Basic !!!not-base64!!!' })],
      ['Basic without a colon', (key) => ({ header: b64(key) })],
      ['Basic with another username', (key) => ({ header: b64(`admin:${key}`) })],
      ['Basic with an empty password', () => ({ header: b64('taxii2:') })],
      ['Basic with an unknown key', () => ({ header: basicAuth('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') })],
      ['Basic with the key in the username', (key) => ({ header: b64(`${key}:taxii2`) })],
      ['an unknown ?key=', () => ({ query: 'key=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })],
      ['an empty ?key=', () => ({ query: 'key=' })],
      ['?key= given twice', (key) => ({ query: `key=${key}&key=${key}` })],
    ];
    for (const [what, make] of cases) {
      it(`answers 401 with the Basic challenge and a TAXII error for ${what}`, async () => {
        const { header, query } = make(ctx.keys.pro!);
        let req = request(ctx.app).get(`/taxii2/?${query ?? ''}&accept=${encodeURIComponent(TAXII_TYPE)}`).set('Accept', TAXII_TYPE);
        if (header !== undefined) req = req.set('Authorization', header);
        const res = await req;
        assertTaxiiError(res, 401);
        assert.equal(res.headers['www-authenticate'], 'Basic realm="threatgate"');
        assert.equal(res.body.error_code, 'unauthorized');
        assert.equal(res.body.title, 'Authentication required');
      });
    }

    it('answers 401 for a revoked key, by either method', async () => {
      const { id, key } = await createKey(ctx.store, ctx.config, fixedClock, 'pro', 'soon revoked');
      await taxiiGet(ctx.app, '/taxii2/', key).expect(200);
      await ctx.store.revokeKey({ id }, '2026-01-15 10:00:00');
      const basic = await taxiiGet(ctx.app, '/taxii2/', key);
      assertTaxiiError(basic, 401);
      assert.equal(basic.headers['www-authenticate'], 'Basic realm="threatgate"');
      assertTaxiiError(await request(ctx.app).get('/taxii2/').query({ key, accept: TAXII_TYPE }), 401);
    });
  });

  describe('with a Free-plan key', () => {
    for (const suffix of ['', 'manifest/', 'objects/', 'objects/{object}/', 'objects/{object}/versions/']) {
      it(`GET .../collections/{test}/${suffix} answers 200`, async () => {
        const res = await taxiiGet(ctx.app, `${TEST}${suffix.replace('{object}', objectId)}`, ctx.keys.free!);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.headers['content-type'], TAXII_TYPE);
      });
    }

    it('reads the test collection with ?key=&accept= too', async () => {
      await request(ctx.app).get(`${TEST}objects/`).query({ key: ctx.keys.free!, accept: TAXII_TYPE }).expect(200);
    });

    for (const path of ['/taxii2/', '/taxii2/api/', '/taxii2/api/collections/', ALL, `${ALL}objects/`, `${ALL}manifest/`, `${ALL}objects/{object}/`, collectionPath('00000000-0000-4000-8000-000000000000')]) {
      it(`GET ${path} answers 403 with a TAXII error naming the plans that include TAXII`, async () => {
        const res = await taxiiGet(ctx.app, path.replace('{object}', objectId), ctx.keys.free!);
        assertTaxiiError(res, 403);
        assert.match(res.body.description, /Free plan/);
        assert.match(res.body.description, /Pro/);
        assert.match(res.body.description, /Feed/);
      });
    }
  });

  for (const plan of ['team', 'business', 'custom']) {
    describe(`with a ${plan} key (a plan without TAXII)`, () => {
      for (const path of ['/taxii2/', '/taxii2/api/', '/taxii2/api/collections/', `${ALL}objects/`, `${ALL}manifest/`]) {
        it(`GET ${path} answers 403 naming the plans that include TAXII`, async () => {
          const res = await taxiiGet(ctx.app, path, ctx.keys[plan]!);
          assertTaxiiError(res, 403);
          assert.match(res.body.description, /does not include TAXII/);
          assert.match(res.body.description, /Pro/);
          assert.match(res.body.description, /Feed/);
        });
      }

      it('still reads the free test collection, which any valid key may read', async () => {
        const res = await taxiiGet(ctx.app, `${TEST}objects/?limit=2`, ctx.keys[plan]!);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.objects.length, 2);
      });
    });
  }

  describe('with a Feed-plan key', () => {
    it('reads every collection', async () => {
      await taxiiGet(ctx.app, '/taxii2/', ctx.keys.feed!).expect(200);
      await taxiiGet(ctx.app, `${ALL}objects/?limit=1`, ctx.keys.feed!).expect(200);
    });
  });

  describe('with query-string authentication', () => {
    it('never writes the key to the request log', async () => {
      await request(ctx.app).get('/taxii2/').query({ key: ctx.keys.pro!, accept: TAXII_TYPE }).expect(200);
      assert.ok(ctx.logLines.some((line) => line.includes('/taxii2/')), 'the request was logged');
      assert.ok(ctx.logLines.every((line) => !line.includes(ctx.keys.pro!)), 'the key appears in the log');
    });
  });
});

describe('TAXII with a Custom plan configured for TAXII', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: { ...GENEROUS_PLANS, plans: { ...GENEROUS_PLANS.plans, custom: { perSecond: 1000, perDay: 100000, perMonth: 1000000, taxii: 'all' } } } });
  });
  after(() => ctx.close());

  it('reads every collection with the Custom key', async () => {
    await taxiiGet(ctx.app, `${ALL}manifest/?limit=1`, ctx.keys.custom!).expect(200);
  });

  it('names Custom among the plans that include TAXII', async () => {
    const res = await taxiiGet(ctx.app, '/taxii2/', ctx.keys.team!);
    assertTaxiiError(res, 403);
    assert.match(res.body.description, /Custom/);
  });
});

describe('TAXII rate limits', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: { plans: { pro: { perSecond: 1000, perDay: 2, perMonth: 1000 } } } });
  });
  after(() => ctx.close());

  it('answers the request beyond the budget with 429, Retry-After and a TAXII error', async () => {
    await taxiiGet(ctx.app, '/taxii2/', ctx.keys.pro!).expect(200);
    await taxiiGet(ctx.app, '/taxii2/api/', ctx.keys.pro!).expect(200);
    const res = await taxiiGet(ctx.app, `${ALL}objects/`, ctx.keys.pro!);
    assertTaxiiError(res, 429);
    assert.equal(res.body.error_code, 'rate_limited');
    assert.match(res.body.description, /2 requests per day for the pro plan/);
    assert.ok(Number(res.headers['retry-after']) >= 1, `Retry-After: ${res.headers['retry-after']}`);
  });

  it('still authenticates first: a bad key is 401, not 429', async () => {
    assertTaxiiError(await taxiiGet(ctx.app, '/taxii2/', 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'), 401);
  });
});
