// Linked-indicator pages (docs/interface.md section 5): ordering, page fields, plan page limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { linkedIndicators } from '../helpers/expected-aggregates.js';

describe('GET /api/feed.php?fid=N&get=links', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  const links = (query: string, key?: string) =>
    request(ctx.app).get(`/api/feed.php?${query}${key ? `&key=${encodeURIComponent(key)}` : ''}`);

  describe('over a feed spanning several pages (23 links, 5 a page)', () => {
    it('walks every linked indicator exactly once, in ascending iid, following page_next', async () => {
      const seen: number[] = [];
      let page: number | undefined = 0;
      const shapes: string[] = [];
      while (page !== undefined) {
        const res: request.Response = await links(`fid=1&get=links${page === 0 ? '' : `&page=${page}`}`, ctx.keys.business).expect(200);
        assert.equal(res.body.page_current, page);
        shapes.push(Object.keys(res.body).join(','));
        for (const item of res.body.results) seen.push(item.iid);
        page = res.body.page_next;
        if (page !== undefined) assert.equal(page, res.body.page_current + 1);
      }
      assert.deepEqual(seen, linkedIndicators(ctx.data, { fid: 1 }).map((i) => i.iid));
      assert.deepEqual(shapes, ['page_current,page_next,results', 'page_current,page_next,results', 'page_current,page_next,results', 'page_current,page_next,results', 'page_current,results']);
    });

    it('gives each result the fields of docs/interface.md section 2.4', async () => {
      const res = await links('fid=1&get=links', ctx.keys.business).expect(200);
      const first = res.body.results[0];
      assert.deepEqual(Object.keys(first), ['iid', 'indicator', 'type', 'risk', 'stamp_linked', 'summary']);
      const source = ctx.data.indicators.find((i) => i.iid === first.iid)!;
      assert.equal(first.indicator, source.indicator);
      assert.equal(first.stamp_linked, '2025-06-01 00:00:00');
      assert.deepEqual(first.summary, { properties: source.properties });
    });

    it('answers a page beyond the end with page_current and empty results', async () => {
      const res = await links('fid=1&get=links&page=7', ctx.keys.business).expect(200);
      assert.deepEqual(res.body, { page_current: 7, results: [] });
    });
  });

  describe('over a feed that fits on one page', () => {
    it('answers only results, without page_current or page_next', async () => {
      const res = await links('fid=2&get=links').expect(200);
      assert.deepEqual(Object.keys(res.body), ['results']);
      assert.deepEqual(res.body.results.map((r: { iid: number }) => r.iid), [24, 25, 26]);
    });

    it('answers an empty results list for a feed without links', async () => {
      const res = await links('fid=3&get=links').expect(200);
      assert.deepEqual(res.body, { results: [] });
    });
  });

  describe('with plan page limits', () => {
    for (const [plan, allowed] of [
      ['anonymous', 1],
      ['free', 1],
      ['pro', 2],
      ['team', 4],
    ] as const) {
      it(`lets ${plan} read pages 0 to ${allowed - 1} and answers 403 naming the limit at page ${allowed}`, async () => {
        const key = plan === 'anonymous' ? undefined : ctx.keys[plan];
        for (let page = 0; page < allowed; page++) await links(`fid=1&get=links&page=${page}`, key).expect(200);
        const res = await links(`fid=1&get=links&page=${allowed}`, key).expect(403);
        assert.match(res.body.error, new RegExp(`may read ${allowed} pages? per request`));
        assert.match(res.body.error, plan === 'anonymous' ? /without an API key/ : new RegExp(plan, 'i'));
      });
    }

    it('still shows page_next on the last page a plan may read, so the client knows the result was cut', async () => {
      const res = await links('fid=1&get=links', ctx.keys.free).expect(200);
      assert.equal(res.body.page_next, 1);
    });
  });

  describe('with bad parameters', () => {
    for (const [query, status, message] of [
      ['fid=1&get=links&page=-1', 400, 'Parameter "page" must be a non-negative integer.'],
      ['fid=1&get=links&page=one', 400, 'Parameter "page" must be a non-negative integer.'],
      ['get=links', 400, 'Parameter "fid" is required.'],
      ['fid=99&get=links', 404, 'Feed not found.'],
    ] as const) {
      it(`answers ${status} for ?${query}`, async () => {
        const res = await links(query).expect(status);
        assert.deepEqual(res.body, { error: message });
      });
    }
  });
});

describe('GET /api/threat.php?tid=N&get=links', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  it('pages the threat\'s linked indicators the same way', async () => {
    const first = await request(ctx.app).get(`/api/threat.php?tid=1&get=links&key=${ctx.keys.business}`).expect(200);
    assert.deepEqual({ current: first.body.page_current, next: first.body.page_next }, { current: 0, next: 1 });
    const iids: number[] = first.body.results.map((r: { iid: number }) => r.iid);
    for (const page of [1, 2]) {
      const res = await request(ctx.app).get(`/api/threat.php?tid=1&get=links&page=${page}&key=${ctx.keys.business}`).expect(200);
      iids.push(...res.body.results.map((r: { iid: number }) => r.iid));
    }
    assert.deepEqual(iids, linkedIndicators(ctx.data, { tid: 1 }).map((i) => i.iid));
  });

  it('answers 404 Threat not found. for an unknown threat', async () => {
    const res = await request(ctx.app).get('/api/threat.php?tid=404&get=links').expect(404);
    assert.deepEqual(res.body, { error: 'Threat not found.' });
  });
});
