// GET /api/indicator.php and /api/info.php under the keys, plans and rate limits of the other lookups
// (docs/interface.md section 8): the same headers, the same budget per key or address, the same refusals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, type TestContext } from '../helpers/test-app.js';

const UNKNOWN_KEY = 'A'.repeat(43);
const RATE_HEADERS = ['ratelimit', 'ratelimit-policy', 'x-requests-remaining-second', 'x-requests-remaining-day', 'x-requests-remaining-month'];

describe('GET /api/indicator.php and /api/info.php, keys and limits', () => {
  let ctx: TestContext;
  before(async () => {
    // Two requests a day on every plan.
    const plans = Object.fromEntries(['anonymous', 'free', 'pro', 'team', 'business', 'custom', 'feed'].map((p) => [p, { perSecond: 1000, perDay: 2, perMonth: 1000 }]));
    ctx = await createTestContext({ overrides: { plans } });
  });
  after(() => ctx.close());

  for (const [path, plan] of [['/api/indicator.php?iid=3', 'free'], ['/api/info.php?indicator=host3.example.net', 'team']] as const) {
    describe(path, () => {
      it('carries the rate-limit headers of every window, counted against the key', async () => {
        const res = await request(ctx.app).get(`${path}&key=${ctx.keys[plan]}`).expect(200);
        for (const name of RATE_HEADERS) assert.ok(res.headers[name], name);
        assert.equal(res.headers['x-requests-remaining-day'], '1');
      });

      it('answers 401 for an unknown key', async () => {
        const res = await request(ctx.app).get(`${path}&key=${UNKNOWN_KEY}`).expect(401);
        assert.match(res.body.error, /key/i);
      });
    });
  }

  it('shares one budget per key with threat.php: the third request of the day is a 429 with Retry-After', async () => {
    await request(ctx.app).get(`/api/threat.php?tid=1&key=${ctx.keys.pro}`).expect(200);
    await request(ctx.app).get(`/api/indicator.php?iid=3&key=${ctx.keys.pro}`).expect(200);
    const res = await request(ctx.app).get(`/api/info.php?iid=3&key=${ctx.keys.pro}`).expect(429);
    assert.match(res.headers['retry-after'] ?? '', /^\d+$/);
    assert.match(res.body.error, /^API rate limit exceeded: 2 requests per day/);
  });

  it('counts requests without a key per client address', async () => {
    await request(ctx.app).get('/api/info.php?tid=1').expect(200);
    await request(ctx.app).get('/api/indicator.php?indicator=unknown.example.com').expect(404);
    await request(ctx.app).get('/api/indicator.php?iid=3').expect(429);
  });

  it('answers 405 with Allow for another method', async () => {
    for (const path of ['/api/indicator.php', '/api/info.php']) {
      const res = await request(ctx.app).post(`${path}?key=${ctx.keys.business}`).expect(405);
      assert.equal(res.headers.allow, 'GET, HEAD');
    }
  });
});
