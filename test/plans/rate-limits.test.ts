// Rate limits per plan (docs/interface.md section 8): windows, headers, 429 with Retry-After, anonymous vs keyed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import request from 'supertest';
import { hashKey } from '../../src/auth/key-secret.js';
import { FixedWindowStore } from '../../src/plans/fixed-window-store.js';
import { RATE_WINDOWS } from '../../src/plans/rate-limiters.js';
import { createTestContext, type TestContext } from '../helpers/test-app.js';

// Small day budgets make the (n+1)th request reachable; the per-second windows stay out of the way.
const PLANS = {
  plans: {
    anonymous: { perSecond: 1000, perDay: 3, perMonth: 1000 },
    free: { perSecond: 1000, perDay: 5, perMonth: 1000 },
    pro: { perSecond: 2, perDay: 1000, perMonth: 100000 },
  },
};

describe('rate limits on the lookup API', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: PLANS });
  });
  after(() => ctx.close());

  describe('without a key', () => {
    it('answers the (n+1)th request of the day with 429, Retry-After and the error body', async () => {
      for (let i = 0; i < 3; i++) {
        const ok = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
        assert.equal(ok.headers['x-requests-remaining-day'], String(2 - i));
      }
      const res = await request(ctx.app).get('/api/threat.php?tid=1').expect(429);
      assert.match(res.body.error, /^API rate limit exceeded: 3 requests per day for requests without an API key/);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.equal(res.headers['x-requests-remaining-day'], '0');
      assert.match(String(res.headers['ratelimit']), /"day"; r=0; t=\d+/);
      assert.match(String(res.headers['ratelimit-policy']), /"day"; q=3; w=86400/);
    });
  });

  describe('with a Free key', () => {
    it('has its own, larger budget than anonymous requests', async () => {
      for (let i = 0; i < 5; i++) await request(ctx.app).get(`/api/feed.php?fid=1&key=${ctx.keys.free}`).expect(200);
      const res = await request(ctx.app).get(`/api/feed.php?fid=1&key=${ctx.keys.free}`).expect(429);
      assert.match(res.body.error, /5 requests per day for the free plan/);
    });

    it('counts page requests and errors too', async () => {
      const res = await request(ctx.app).get(`/api/feed.php?fid=1&get=links&key=${ctx.keys.free}`).expect(429);
      assert.ok(res.headers['retry-after']);
    });
  });

  describe('with a Pro key', () => {
    it('sends the headers of every window on success', async () => {
      const res = await request(ctx.app).get(`/api/threat.php?tid=2&key=${ctx.keys.pro}`).expect(200);
      assert.ok(res.headers['x-requests-remaining-second'] !== undefined);
      assert.equal(res.headers['x-requests-remaining-day'], '999');
      assert.equal(res.headers['x-requests-remaining-month'], '99999');
      for (const window of ['second', 'day', 'month']) assert.match(String(res.headers['ratelimit-policy']), new RegExp(`"${window}"; q=\\d+; w=\\d+`));
    });

    it('answers 429 on the third request within one second, per the per-second window', async () => {
      const statuses: number[] = [];
      // Three requests issued together land in the same one-second window unless one straddles a boundary.
      for (let attempt = 0; attempt < 3 && !statuses.includes(429); attempt++) {
        statuses.length = 0;
        const results = await Promise.all([1, 2, 3].map(() => request(ctx.app).get(`/api/threat.php?tid=2&key=${ctx.keys.pro}`)));
        statuses.push(...results.map((r) => r.status));
        const limited = results.find((r) => r.status === 429);
        if (limited) assert.match(limited.body.error, /2 requests per second for the pro plan/);
      }
      assert.ok(statuses.includes(429), `statuses ${statuses.join(',')}`);
    });
  });

  describe('the draft-8 headers', () => {
    it('are written exactly as express-rate-limit itself writes them, window by window', async () => {
      const key = ctx.keys.business!;
      const row = await ctx.store.findKeyByHash(hashKey(key));
      const ours = await request(ctx.app).get(`/api/threat.php?tid=3&key=${key}`).expect(200);
      // Node joins repeated header lines with ", "; each line starts with its quoted window name.
      const lines = (name: string, res: request.Response) => String(res.headers[name]).split(/, (?=")/);
      for (const [i, window] of RATE_WINDOWS.entries()) {
        // express-rate-limit's own headers for the same counter key, limit, window and count.
        const reference = express();
        const used = Number(ours.headers[window.header.toLowerCase()]);
        const limit = used + 1000;
        reference.use(rateLimit({ windowMs: window.ms, limit, standardHeaders: 'draft-8', legacyHeaders: false, identifier: window.name, keyGenerator: () => `key:${row!.id}`, store: new FixedWindowStore() }));
        reference.get('/', (_req, res) => res.end());
        const theirs = await request(reference).get('/');
        assert.equal(lines('ratelimit-policy', ours)[i]!.replace(/q=\d+/, ''), lines('ratelimit-policy', theirs)[0]!.replace(/q=\d+/, ''), window.name);
        assert.match(lines('ratelimit', ours)[i]!, new RegExp(`^"${window.name}"; r=${used}; t=\\d+$`));
        assert.match(lines('ratelimit', theirs)[0]!, new RegExp(`^"${window.name}"; r=${limit - 1}; t=\\d+$`));
      }
    });
  });
});
