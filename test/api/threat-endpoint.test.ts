// GET /api/threat.php: lookups by tid and by name, the fields of docs/interface.md section 2.1 and the computed aggregates.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { attributeCounts, expectedRiskCounts, linkedIndicators, sharedCount } from '../helpers/expected-aggregates.js';

const STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

describe('GET /api/threat.php', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  describe('with tid of an existing threat', () => {
    it('answers 200 with every field of docs/interface.md section 2.1 in JSON', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const fields = ['tid', 'threat', 'category', 'othernames', 'risk', 'description', 'notes', 'wikisummary', 'wikireference', 'retired', 'stamp_added', 'stamp_updated', 'stamp_seen', 'stamp_retired', 'updated_last_domain', 'related', 'attributes', 'ttps', 'news', 'comments', 'summary'];
      assert.deepEqual(Object.keys(res.body), fields);
      assert.equal(res.body.tid, 1);
      assert.equal(res.body.threat, 'Zeus');
      assert.deepEqual(res.body.othernames, ['Zbot', 'Wsnpoem']);
      assert.equal(res.body.retired, false);
      assert.match(res.body.stamp_updated, STAMP);
      assert.equal(res.body.news[0].title, 'Zeus returns');
    });

    it('lists related threats with their names, categories, risks and update stamps', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
      assert.deepEqual(res.body.related, [
        { tid: 2, name: 'Emotet', category: 'botnet', risk: 'critical', stamp_updated: '2025-06-01 12:00:00' },
        { tid: 3, name: 'Old Worm', category: 'worm', risk: 'retired', stamp_updated: '2025-06-01 12:00:00' },
      ]);
    });

    it('computes summary.risk from the linked indicators, with total and retired', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
      const expected = expectedRiskCounts(linkedIndicators(ctx.data, { tid: 1 }));
      assert.deepEqual(res.body.summary.risk, expected);
      assert.equal(res.body.summary.risk.total, 12);
      assert.ok(res.body.summary.risk.retired > 0);
    });

    it('computes summary.feeds with the count of shared indicators per feed', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=2').expect(200);
      const feeds = res.body.summary.feeds as { fid: number; indicators: number; name: string; organization: string }[];
      assert.deepEqual(
        feeds.map((f) => [f.fid, f.indicators]),
        [1, 2].map((fid) => [fid, sharedCount(ctx.data, fid, 2)]).filter(([, n]) => n! > 0).sort((a, b) => b[1]! - a[1]!),
      );
      assert.equal(feeds.find((f) => f.fid === 2)?.name, "O'Brien Sinkhole");
    });

    it('computes summary.attributes and updated_last_domain from the linked indicators', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
      const linked = linkedIndicators(ctx.data, { tid: 1 });
      assert.deepEqual(Object.keys(res.body.summary.attributes), ['technology', 'hosttype', 'protocol', 'port']);
      assert.deepEqual(res.body.summary.attributes.port, attributeCounts(linked, 'port'));
      const lastDomain = linked.filter((i) => i.type === 'domain').map((i) => i.stamp_updated!).sort().at(-1);
      assert.equal(res.body.updated_last_domain, lastDomain);
      assert.equal(res.body.summary.updated_last_domain, lastDomain);
    });
  });

  describe('with threat=NAME', () => {
    it('finds the threat by its name, case-insensitively', async () => {
      const res = await request(ctx.app).get('/api/threat.php?threat=zeus').expect(200);
      assert.equal(res.body.tid, 1);
    });

    it('finds the threat by one of its other names', async () => {
      const res = await request(ctx.app).get('/api/threat.php?threat=Wsnpoem').expect(200);
      assert.equal(res.body.tid, 1);
    });

    it('answers 404 Threat not found. for an unknown name', async () => {
      const res = await request(ctx.app).get('/api/threat.php?threat=Nobody').expect(404);
      assert.deepEqual(res.body, { error: 'Threat not found.' });
    });
  });

  describe('with a retired threat', () => {
    it('reports retired true and its stamp_retired', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=3').expect(200);
      assert.equal(res.body.retired, true);
      assert.equal(res.body.stamp_retired, '2025-03-01 00:00:00');
    });
  });

  describe('with bad parameters', () => {
    for (const [query, message] of [
      ['', 'Parameter "tid" is required.'],
      ['tid=', 'Parameter "tid" is required.'],
      ['tid=abc', 'Parameter "tid" must be a positive integer.'],
      ['tid=-1', 'Parameter "tid" must be a positive integer.'],
      ['tid=1.5', 'Parameter "tid" must be a positive integer.'],
      ['tid=99999999999999999999', 'Parameter "tid" must be a positive integer.'],
      ['tid=1&tid=2', 'Parameter "tid" must be given once.'],
      ['tid=1&pretty=2', 'Parameter "pretty" must be 0 or 1.'],
      ['tid=1&get=all', 'Parameter "get" must be "links".'],
    ] as const) {
      it(`answers 400 naming the parameter for ?${query}`, async () => {
        const res = await request(ctx.app).get(`/api/threat.php?${query}`).expect(400);
        assert.deepEqual(res.body, { error: message });
      });
    }
  });

  describe('with an unknown tid', () => {
    it('answers 404 with {"error": "Threat not found."}', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=999').expect(404);
      assert.deepEqual(res.body, { error: 'Threat not found.' });
    });
  });

  describe('with pretty=1', () => {
    it('indents the JSON with two spaces', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=2&pretty=1').expect(200);
      assert.ok(res.text.startsWith('{\n  "tid": 2,'));
    });

    it('is compact with pretty=0', async () => {
      const res = await request(ctx.app).get('/api/threat.php?tid=2&pretty=0').expect(200);
      assert.ok(res.text.startsWith('{"tid":2,'));
    });
  });
});
