// Failed authentications are limited per client address (auth.failuresPerMinute): then 429 with Retry-After on
// every surface, before the key is looked up, for that address alone, and counted in the metrics.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import type { Store } from '../../src/store/contract/store.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, TEST_NEXT_SECRET, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, basicAuth, INDICATORS_COLLECTION, TAXII_TYPE } from '../taxii/taxii-request.js';

const LIMIT = 3;
const UNKNOWN_KEY = 'A'.repeat(43);
const REFUSED = /^Too many failed authentications from this address: 3 a minute\./;

describe('failed authentications from one client address (auth.failuresPerMinute)', () => {
  let ctx: TestContext;
  let app: Express;
  let metrics: Metrics;
  /** Key lookups that reached the store. */
  let lookups = 0;
  /** Each test takes its own client addresses (X-Forwarded-For, trusted here): counts never mix. */
  let nextAddress = 1;
  const newAddress = () => `198.51.100.${nextAddress++}`;

  const lookup = (from: string, key?: string) => request(app).get(`/api/threat.php?tid=1${key === undefined ? '' : `&key=${key}`}`).set('X-Forwarded-For', from);
  const taxii = (from: string, authorization: string) => request(app).get('/taxii2/').set('X-Forwarded-For', from).set('Authorization', authorization).set('Accept', TAXII_TYPE);
  const exported = (from: string, key: string) => request(app).get(`/export/${INDICATORS_COLLECTION}.txt?key=${key}`).set('X-Forwarded-For', from);
  const counter = async (name: string) => sampleValue(parsePrometheusText((await request(app).get('/metrics').expect(200)).text), name);

  /** Uses up the address's failures on the lookup API: LIMIT answers of 401. */
  const failAll = async (from: string) => {
    for (let i = 0; i < LIMIT; i++) await lookup(from, UNKNOWN_KEY).expect(401);
  };

  before(async () => {
    ctx = await createTestContext({ overrides: { ...GENEROUS_PLANS, trustProxy: true, auth: { failuresPerMinute: LIMIT } } });
    const counting = new Proxy(ctx.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (name === 'findKeyByHash') return (hash: string) => (lookups++, target.findKeyByHash(hash));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as Store;
    metrics = createMetrics({ defaultMetrics: false });
    app = createApp(ctx.config, { store: counting, clock: fixedClock, metrics, nextTokenSecret: TEST_NEXT_SECRET });
  });
  after(() => ctx.close());

  describe('on the lookup API', () => {
    it(`answers 401 to ${LIMIT} bad keys, then 429 with Retry-After and {"error": ...} to the next, before looking it up`, async () => {
      const from = newAddress();
      await lookup(from, UNKNOWN_KEY).expect(401);
      await lookup(from, 'short').expect(401);
      const { key, id } = await createKey(ctx.store, ctx.config, fixedClock, 'pro', 'revoked');
      await ctx.store.revokeKey({ id }, '2026-01-15 10:00:00');
      await lookup(from, key).expect(401);
      const before = lookups;
      const res = await lookup(from, 'B'.repeat(43)).expect(429);
      assert.match(res.body.error, REFUSED);
      assert.deepEqual(Object.keys(res.body), ['error']);
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${res.headers['retry-after']}`);
      assert.equal(lookups, before, 'the refused key was looked up');
    });

    it('refuses a valid key from that address too, and still serves it without a key (the anonymous plan)', async () => {
      const from = newAddress();
      await failAll(from);
      assert.match((await lookup(from, ctx.keys.business).expect(429)).body.error, REFUSED);
      await lookup(from).expect(200);
    });

    it('serves a valid key from another address as before', async () => {
      const from = newAddress();
      await failAll(from);
      await lookup(newAddress(), ctx.keys.business).expect(200);
      await lookup(newAddress(), UNKNOWN_KEY).expect(401);
    });

    it('counts a repeated key parameter as no failure: it is a 400', async () => {
      const from = newAddress();
      for (let i = 0; i < LIMIT + 1; i++) await request(app).get(`/api/threat.php?tid=1&key=${UNKNOWN_KEY}&key=x`).set('X-Forwarded-For', from).expect(400);
      await lookup(from, ctx.keys.pro).expect(200);
    });
  });

  describe('on the TAXII gateway', () => {
    it('answers 429 as a TAXII error, with the TAXII media type and Retry-After', async () => {
      const from = newAddress();
      await failAll(from);
      const res = await taxii(from, basicAuth(ctx.keys.pro!));
      assertTaxiiError(res, 429);
      assert.match(JSON.parse(res.text).description, REFUSED);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.equal(res.headers['www-authenticate'], undefined);
    });

    it('counts malformed Basic credentials, another username and a key given twice as failures', async () => {
      const from = newAddress();
      assertTaxiiError(await taxii(from, 'Basic !!!'), 401);
      assertTaxiiError(await taxii(from, basicAuth(ctx.keys.pro!, 'admin')), 401);
      assertTaxiiError(await request(app).get(`/taxii2/?key=${UNKNOWN_KEY}&key=x&accept=${encodeURIComponent(TAXII_TYPE)}`).set('X-Forwarded-For', from), 401);
      assertTaxiiError(await taxii(from, basicAuth(ctx.keys.pro!)), 429);
      // A request without credentials presents no key: 401 as ever, and it counts nothing.
      assertTaxiiError(await request(app).get('/taxii2/').set('X-Forwarded-For', newAddress()).set('Accept', TAXII_TYPE), 401);
    });

    it('shares the count with the other surfaces: failures on TAXII refuse the lookup API and the exports', async () => {
      const from = newAddress();
      for (let i = 0; i < LIMIT; i++) assertTaxiiError(await taxii(from, basicAuth(UNKNOWN_KEY)), 401);
      await lookup(from, ctx.keys.pro).expect(429);
      const res = await exported(from, ctx.keys.pro!).expect(429);
      assert.match(res.body.error, REFUSED);
      await exported(newAddress(), ctx.keys.pro!).expect(200);
    });
  });

  it('counts failures and refusals in threatgate_auth_failures_total and threatgate_auth_refused_total', async () => {
    const failures = await counter('threatgate_auth_failures_total');
    const refused = await counter('threatgate_auth_refused_total');
    const from = newAddress();
    await failAll(from);
    await lookup(from, ctx.keys.pro).expect(429);
    assertTaxiiError(await taxii(from, basicAuth(ctx.keys.pro!)), 429);
    assert.equal((await counter('threatgate_auth_failures_total')) - failures, LIMIT);
    assert.equal((await counter('threatgate_auth_refused_total')) - refused, 2);
  });

  it('counts by the connecting address when trustProxy is off: X-Forwarded-For cannot spread the failures', async () => {
    const plain = createApp({ ...ctx.config, trustProxy: false }, { store: ctx.store, clock: fixedClock, nextTokenSecret: TEST_NEXT_SECRET });
    for (let i = 0; i < LIMIT; i++) await request(plain).get(`/api/threat.php?tid=1&key=${UNKNOWN_KEY}`).set('X-Forwarded-For', newAddress()).expect(401);
    await request(plain).get(`/api/threat.php?tid=1&key=${ctx.keys.pro}`).set('X-Forwarded-For', newAddress()).expect(429);
  });
});
