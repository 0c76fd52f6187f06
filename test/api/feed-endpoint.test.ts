// GET /api/feed.php by name and organization, and by fid: the fields and aggregates of docs/interface.md section 2.2.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { attributeCounts, expectedRiskCounts, linkedIndicators, sharedCount } from '../helpers/expected-aggregates.js';

describe('GET /api/feed.php', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  describe('with feed and organization holding spaces and punctuation', () => {
    it('answers 200 with every field of docs/interface.md section 2.2', async () => {
      const res = await request(ctx.app)
        .get('/api/feed.php')
        .query({ feed: 'Botnet C&C (IPv4)', organization: 'Example Labs, Inc.' })
        .expect(200);
      const fields = ['fid', 'feed', 'organization', 'category', 'pricing', 'contact', 'website', 'schedule', 'stamp_added', 'stamp_updated', 'stamp_pulled', 'stamp_modified', 'description', 'accesslink', 'indicators', 'summary'];
      assert.deepEqual(Object.keys(res.body), fields);
      assert.equal(res.body.fid, 1);
      assert.deepEqual(Object.keys(res.body.contact), ['name', 'email', 'phone']);
      assert.deepEqual(Object.keys(res.body.summary), ['properties', 'attributes', 'threats', 'risk']);
    });

    it('matches the names case-insensitively', async () => {
      const res = await request(ctx.app).get('/api/feed.php').query({ feed: "o'brien sinkhole", organization: 'SINKHOLE ORG' }).expect(200);
      assert.equal(res.body.fid, 2);
    });

    it('counts the linked indicators per risk level, retired ones under retired', async () => {
      const res = await request(ctx.app).get('/api/feed.php?fid=1').expect(200);
      const expected = expectedRiskCounts(linkedIndicators(ctx.data, { fid: 1 }));
      assert.deepEqual(res.body.indicators, expected);
      assert.deepEqual(res.body.summary.risk, expected);
      assert.equal(res.body.indicators.total, 23);
      assert.deepEqual(Object.keys(res.body.indicators), ['unknown', 'low', 'medium', 'high', 'critical', 'retired', 'total', 'none']);
    });

    it('lists the threats of its indicators with shared counts', async () => {
      const res = await request(ctx.app).get('/api/feed.php?fid=1').expect(200);
      const threats = res.body.summary.threats as { tid: number; indicators: number; name: string; risk: string }[];
      assert.deepEqual(
        threats.map((t) => [t.tid, t.indicators]),
        [1, 2].map((tid) => [tid, sharedCount(ctx.data, 1, tid)]).sort((a, b) => b[1]! - a[1]!),
      );
      assert.deepEqual(Object.keys(threats[0]!), ['indicators', 'tid', 'category', 'stamp_updated', 'risk', 'name']);
    });

    it('summarizes attributes (technology, protocol, port) and scalar properties', async () => {
      const res = await request(ctx.app).get('/api/feed.php?fid=1').expect(200);
      const linked = linkedIndicators(ctx.data, { fid: 1 });
      assert.deepEqual(Object.keys(res.body.summary.attributes), ['technology', 'protocol', 'port']);
      assert.deepEqual(res.body.summary.attributes.technology, attributeCounts(linked, 'technology'));
      const nl = linked.filter((i) => i.properties.country === 'NL').length;
      assert.equal(res.body.summary.properties.country.NL, nl);
      assert.equal(res.body.summary.properties.whois, undefined);
    });
  });

  describe('with a feed that has no links', () => {
    it('answers zero counts and empty lists', async () => {
      const res = await request(ctx.app).get('/api/feed.php?fid=3').expect(200);
      assert.equal(res.body.indicators.total, 0);
      assert.deepEqual(res.body.summary.threats, []);
    });
  });

  describe('with missing or bad parameters', () => {
    for (const [query, status, message] of [
      ['feed=Botnet', 400, 'Parameter "organization" is required.'],
      ['organization=Sinkhole%20Org', 400, 'Parameter "feed" is required.'],
      ['', 400, 'Parameter "feed" is required.'],
      ['fid=x', 400, 'Parameter "fid" must be a positive integer.'],
      ['fid=0', 400, 'Parameter "fid" must be a positive integer.'],
      ['feed=Nope&organization=Nobody', 404, 'Feed not found.'],
      ['fid=77', 404, 'Feed not found.'],
    ] as const) {
      it(`answers ${status} for ?${query}`, async () => {
        const res = await request(ctx.app).get(`/api/feed.php?${query}`).expect(status);
        assert.deepEqual(res.body, { error: message });
      });
    }
  });
});
