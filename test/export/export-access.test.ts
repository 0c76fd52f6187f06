// GET /export/...: the keys, plan gate and rate limits of TAXII, conditional requests, gzip, errors and the metrics' route labels.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { importDataset } from '../../src/import/import-file.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { parsePrometheusText, samplesOf } from '../helpers/prometheus-text.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock, TEST_NEXT_SECRET } from '../helpers/test-app.js';
import { basicAuth, TAXII_TYPE } from '../taxii/taxii-request.js';
import { ALL_COLLECTION, createExportContext, exportDataset, TEST_COLLECTION, type ExportContext } from './export-context.js';

const UNKNOWN_COLLECTION = '00000000-0000-4000-8000-000000000000';
const ALL = `/export/${ALL_COLLECTION}.txt`;

describe('GET /export/{collection-id}.txt|.csv › access, caching and errors', () => {
  const backend = storeBackends()[0]!;
  let ctx: ExportContext;
  before(async () => {
    ctx = await createExportContext(backend);
  });
  after(async () => {
    await ctx?.store.close();
    await backend.cleanup();
  });
  const get = (path: string, key = ctx.keys.pro!) => request(ctx.app).get(path).set('Authorization', basicAuth(key));

  describe('authentication', () => {
    it('answers the same list to Basic taxii2:KEY and to ?key=KEY', async () => {
      const basic = await get(ALL).expect(200);
      const query = await request(ctx.app).get(`${ALL}?key=${ctx.keys.pro}`).expect(200);
      assert.equal(query.text, basic.text);
      assert.ok(basic.text.length > 0);
    });

    for (const [what, send] of [
      ['no key', () => request(ctx.app).get(ALL)],
      ['an unknown key', () => get(ALL, 'A'.repeat(43))],
      ['Basic with another username', () => request(ctx.app).get(ALL).set('Authorization', basicAuth(ctx.keys.pro!, 'admin'))],
      ['?key= given twice', () => request(ctx.app).get(`${ALL}?key=${ctx.keys.pro}&key=${ctx.keys.pro}`)],
    ] as const) {
      it(`answers 401 with the Basic challenge and a JSON error for ${what}`, async () => {
        const res = await send().expect(401);
        assert.equal(res.headers['www-authenticate'], 'Basic realm="threatgate"');
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(typeof res.body.error, 'string');
      });
    }
  });

  describe('the plan gate', () => {
    // Each plan and collection answers as TAXII's Get a Collection does: 403 beyond the plan, 404 for no collection.
    for (const plan of ['free', 'pro', 'team', 'feed']) {
      for (const [name, id] of [['the test collection', TEST_COLLECTION], ['the unfiltered collection', ALL_COLLECTION], ['an unknown collection', UNKNOWN_COLLECTION]] as const) {
        it(`with a ${plan} key, ${name} answers as TAXII does`, async () => {
          const taxii = await get(`/taxii2/api/collections/${id}/`, ctx.keys[plan]).set('Accept', TAXII_TYPE);
          for (const format of ['txt', 'csv']) {
            const res = await get(`/export/${id}.${format}`, ctx.keys[plan]);
            assert.equal(res.status, taxii.status, `${format}: ${res.text}`);
            if (res.status !== 200) assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
          }
          assert.ok([200, 403, 404].includes(taxii.status));
        });
      }
    }
  });

  describe('parameters', () => {
    for (const [query, parameter] of [
      ['type=ip,color', 'type'],
      ['type=', 'type'],
      ['type=ip&type=url', 'type'],
      ['style=fortinet', 'style'],
      ['style=panos&style=panos', 'style'],
    ] as const) {
      it(`answers 400 naming "${parameter}" for ?${query}`, async () => {
        const res = await get(`${ALL}?${query}`).expect(400);
        assert.match(res.body.error, new RegExp(`^Parameter "${parameter}"`));
      });
    }

    it('answers 404 for a path under /export that is no list, and 405 with Allow for a POST', async () => {
      await get(`/export/${ALL_COLLECTION}.json`).expect(404);
      await get(`/export/${ALL_COLLECTION}`).expect(404);
      const post = await request(ctx.app).post(ALL).set('Authorization', basicAuth(ctx.keys.pro!)).expect(405);
      assert.equal(post.headers.allow, 'GET, HEAD');
    });
  });

  describe('conditional requests', () => {
    it('answers 304 with no body to a matching If-None-Match, and the list to another', async () => {
      const first = await get(ALL).expect(200);
      const etag = first.headers.etag as string;
      assert.match(etag, /^W\/"[A-Za-z0-9_-]{27}"$/);
      assert.ok(first.headers['last-modified']);
      assert.equal(first.headers['cache-control'], 'private, no-cache');
      const again = await get(ALL).set('If-None-Match', etag).expect(304);
      assert.equal(again.text, '');
      assert.equal(again.headers.etag, etag);
      await get(ALL).set('If-None-Match', 'W/"other"').expect(200);
      // Another filter, format or style of the same collection is another list.
      const csv = await get(`/export/${ALL_COLLECTION}.csv`).expect(200);
      const typed = await get(`${ALL}?type=ip`).expect(200);
      assert.equal(new Set([etag, csv.headers.etag, typed.headers.etag]).size, 3);
      await get(`${ALL}?type=ip`).set('If-None-Match', etag).expect(200);
    });

    it('answers a fresh list after an import changes the data', async () => {
      const before = await get(ALL).expect(200);
      const data = exportDataset();
      data.indicators.push({ ...data.indicators[0]!, iid: 38, indicator: '203.0.113.38' });
      await importDataset(ctx.store, data, fixedClock);
      const after = await get(ALL).set('If-None-Match', before.headers.etag as string).expect(200);
      assert.notEqual(after.headers.etag, before.headers.etag);
      assert.equal(after.text, `${before.text}203.0.113.38\n`);
      await get(ALL).set('If-None-Match', after.headers.etag as string).expect(304);
    });

    it('answers HEAD with the headers alone', async () => {
      const res = await request(ctx.app).head(ALL).set('Authorization', basicAuth(ctx.keys.pro!)).expect(200);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.ok(res.headers.etag);
      assert.equal(res.text, undefined);
    });
  });

  describe('gzip', () => {
    it('compresses when asked, and sends the same list either way', async () => {
      const plain = await get(ALL).set('Accept-Encoding', 'identity').expect(200);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, 'Accept-Encoding');
      // supertest undoes the gzip coding: what arrives is the list again.
      const zipped = await get(ALL).set('Accept-Encoding', 'gzip').expect(200);
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(zipped.text, plain.text);
      const refused = await get(ALL).set('Accept-Encoding', 'gzip;q=0, identity').expect(200);
      assert.equal(refused.headers['content-encoding'], undefined);
    });
  });

  describe('rate limits', () => {
    it('counts every export request, 304s and 400s included, in the budget the key shares with TAXII', async () => {
      const tight = await createExportContext(backend, { plans: { pro: { perSecond: 1000, perDay: 4, perMonth: 1000 } } });
      try {
        const call = (path: string) => request(tight.app).get(path).set('Authorization', basicAuth(tight.keys.pro!));
        const first = await call(ALL).expect(200);
        assert.equal(first.headers['x-requests-remaining-day'], '3');
        await call(ALL).set('If-None-Match', first.headers.etag as string).expect(304);
        await call(`${ALL}?type=nope`).expect(400);
        await call('/taxii2/').set('Accept', TAXII_TYPE).expect(200);
        const limited = await call(ALL).expect(429);
        assert.match(limited.body.error, /^API rate limit exceeded: 4 requests per day for the pro plan/);
        assert.ok(Number(limited.headers['retry-after']) >= 1);
      } finally {
        await tight.store.close();
      }
    });
  });

  describe('metrics', () => {
    it('counts export requests under their route template, never a collection id or key', async () => {
      const metrics = createMetrics({ defaultMetrics: false });
      const app = createApp(ctx.config, { store: ctx.store, clock: fixedClock, metrics, nextTokenSecret: TEST_NEXT_SECRET });
      await request(app).get(`${ALL}?key=${ctx.keys.pro}`).expect(200);
      await request(app).get(`/export/${ALL_COLLECTION}.csv?key=${ctx.keys.pro}`).expect(200);
      await request(app).get(`/export/${UNKNOWN_COLLECTION}.txt?key=${ctx.keys.pro}`).expect(404);
      await request(app).get(`/export/nothing-here?key=${ctx.keys.pro}`).expect(404);
      await request(app).get(ALL).expect(401);
      const text = parsePrometheusText((await request(app).get('/metrics').expect(200)).text);
      const routes = new Set(samplesOf(text, 'threatgate_http_requests_total').map((s) => s.labels.route));
      assert.deepEqual([...routes].filter((r) => r!.startsWith('/export')).sort(), ['/export/*', '/export/:collectionId.csv', '/export/:collectionId.txt']);
    });
  });
});
