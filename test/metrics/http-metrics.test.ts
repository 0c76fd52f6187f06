// GET /metrics in one process (docs/deployment.md, "Metrics"): the text parses, requests move the counters by route
// template and status, 429s count by plan and window, caches count hits and misses, store outages
// count, and no key ever shows in a label.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { loadConfig, parseConfig } from '../../src/config.js';
import { createMetrics, withScrape, type Metrics } from '../../src/metrics/metrics.js';
import type { Store } from '../../src/store/contract/store.js';
import { labelValues, parsePrometheusText, sampleValue, samplesOf, type Exposition } from '../helpers/prometheus-text.js';
import { createTestContext, fixedClock, TEST_NEXT_SECRET, type TestContext } from '../helpers/test-app.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE } from '../taxii/taxii-request.js';

/** Anonymous requests run out after 3 a day; keyed plans never do here. */
const PLANS = {
  plans: {
    anonymous: { perSecond: 1000, perDay: 3, perMonth: 1000 },
    pro: { perSecond: 100000, perDay: 1000000, perMonth: 10000000 },
    free: { perSecond: 1, perDay: 1000000, perMonth: 10000000 },
  },
};

const REQUESTS = 'threatgate_http_requests_total';

describe('GET /metrics (one process)', () => {
  let ctx: TestContext;
  let metrics: Metrics;
  let app: Express;

  const scrape = async (): Promise<Exposition> => {
    const res = await request(app).get('/metrics').expect(200);
    return parsePrometheusText(res.text);
  };

  before(async () => {
    ctx = await createTestContext({ overrides: PLANS });
    metrics = createMetrics({ plans: Object.keys(ctx.config.plans) });
    app = createApp(ctx.config, { store: ctx.store, clock: fixedClock, metrics, nextTokenSecret: TEST_NEXT_SECRET });
  });
  after(() => ctx.close());

  it('answers the Prometheus text format, which parses, with prom-client\'s process metrics', async () => {
    const res = await request(app).get('/metrics').expect(200);
    assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(res.headers['cache-control'], 'no-store');
    const text = parsePrometheusText(res.text);
    assert.equal(text.types.get(REQUESTS), 'counter');
    assert.equal(text.types.get('threatgate_http_request_duration_seconds'), 'histogram');
    assert.equal(text.types.get('threatgate_feed_last_success_timestamp_seconds'), 'gauge');
    assert.equal(text.types.get('process_cpu_seconds_total'), 'counter');
    assert.ok(text.types.has('nodejs_eventloop_lag_seconds'));
    assert.ok(text.help.get(REQUESTS)!.length > 0);
  });

  it('needs no key and is not rate limited', async () => {
    // The anonymous plan allows 3 requests a day; /metrics is outside the limits.
    for (let i = 0; i < 6; i++) {
      const res = await request(app).get('/metrics').expect(200);
      assert.equal(res.headers['ratelimit'], undefined);
    }
  });

  it('counts 200, 404 and 429 by route template, method and status, with durations', async () => {
    const before = await scrape();
    const count = (text: Exposition, route: string, status: string) => sampleValue(text, REQUESTS, { route, method: 'GET', status });
    await request(app).get(`/api/threat.php?tid=1&key=${ctx.keys.pro}`).expect(200);
    await request(app).get(`/api/threat.php?tid=2&key=${ctx.keys.pro}`).expect(200);
    await request(app).get(`/api/threat.php?tid=999999&key=${ctx.keys.pro}`).expect(404);
    await request(app).get(`/api/feed.php?fid=1&key=${ctx.keys.pro}`).expect(200);
    await request(app).get('/no/such/path').expect(404);
    await request(app).post(`/api/threat.php?key=${ctx.keys.pro}`).expect(405);
    // Anonymous: 3 a day, then 429s, which the limiter answers before any route is chosen.
    for (let i = 0; i < 3; i++) await request(app).get('/api/feed.php?fid=2').expect(200);
    await request(app).get('/api/feed.php?fid=2').expect(429);
    await request(app).get('/api/threat.php?tid=1').expect(429);
    const after = await scrape();
    assert.equal(count(after, '/api/threat.php', '200') - count(before, '/api/threat.php', '200'), 2);
    assert.equal(count(after, '/api/threat.php', '404') - count(before, '/api/threat.php', '404'), 1);
    assert.equal(count(after, '/api/feed.php', '200') - count(before, '/api/feed.php', '200'), 4);
    assert.equal(count(after, '/*', '404') - count(before, '/*', '404'), 1);
    assert.equal(count(after, '/api/*', '429') - count(before, '/api/*', '429'), 2);
    assert.equal(sampleValue(after, REQUESTS, { route: '/api/threat.php', method: 'POST', status: '405' }), 1);
    assert.equal(sampleValue(after, 'threatgate_rate_limited_total', { plan: 'anonymous', window: 'day' }), 2);
    assert.equal(sampleValue(after, 'threatgate_rate_limited_total', { plan: 'pro', window: 'day' }), 0, 'series start at 0');
    // The histogram counts every request of the route, in seconds.
    const threatCount = sampleValue(after, 'threatgate_http_request_duration_seconds_count', { route: '/api/threat.php' });
    assert.equal(threatCount, sampleValue(after, REQUESTS, { route: '/api/threat.php' }));
    const inf = samplesOf(after, 'threatgate_http_request_duration_seconds_bucket', { route: '/api/threat.php', le: '+Inf' });
    assert.equal(inf.length, 1);
    assert.equal(inf[0]!.value, threatCount);
    const seconds = sampleValue(after, 'threatgate_http_request_duration_seconds_sum', { route: '/api/threat.php' });
    assert.ok(seconds > 0 && seconds < 10, `${seconds} s`);
  });

  it('counts 429s by plan and window: a keyed plan over its second', async () => {
    const before = sampleValue(await scrape(), 'threatgate_rate_limited_total', { plan: 'free', window: 'second' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await request(app).get(`/api/threat.php?tid=1&key=${ctx.keys.free}`)).status);
    const refused = statuses.filter((s) => s === 429).length;
    assert.ok(refused >= 1, `statuses ${statuses.join(', ')}`);
    assert.equal(sampleValue(await scrape(), 'threatgate_rate_limited_total', { plan: 'free', window: 'second' }) - before, refused);
  });

  it('labels TAXII requests by their route template, not their collection or object ids', async () => {
    const objects = `${collectionPath(INDICATORS_COLLECTION)}objects/?limit=2`;
    await request(app).get(objects).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);
    await request(app).get('/taxii2/').set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);
    // An unknown collection is refused by its resolver, before a route: the surface's /*.
    await request(app).get('/taxii2/api/collections/00000000-0000-4000-8000-000000000000/objects/').set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(404);
    const text = await scrape();
    assert.equal(sampleValue(text, REQUESTS, { route: '/taxii2/api/collections/:collectionId/objects', status: '200' }), 1);
    assert.equal(sampleValue(text, REQUESTS, { route: '/taxii2/', status: '200' }), 1);
    assert.equal(sampleValue(text, REQUESTS, { route: '/taxii2/*', status: '404' }), 1);
    const routes = new Set(samplesOf(text, REQUESTS).map((s) => s.labels.route));
    for (const route of routes) assert.doesNotMatch(route!, /[0-9a-f]{8}-[0-9a-f]{4}/, `${route} holds an id`);
  });

  it('labels a mount segment spelled in any case by the canonical route template, adding no series', async () => {
    const taxii = (path: string) => request(app).get(path).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE);
    const visit = async (taxiiMount: string, apiMount: string) => {
      await taxii(`${taxiiMount}/`).expect(200);
      await taxii(`${taxiiMount}/api/collections/`).expect(200);
      await taxii(`${taxiiMount}/api/collections/${INDICATORS_COLLECTION}/objects/?limit=1`).expect(200);
      await taxii(`${taxiiMount}/no/such/path`).expect(404);
      await request(app).get(`${apiMount}/threat.php?tid=1&key=${ctx.keys.pro}`).expect(200);
      await request(app).get(`${apiMount}/nowhere?key=${ctx.keys.pro}`).expect(404);
    };
    const routes = (text: Exposition) => [...new Set(samplesOf(text, REQUESTS).map((s) => s.labels.route))].sort();
    await scrape(); // a scrape is counted too, under /metrics
    await visit('/taxii2', '/api');
    const canonical = await scrape();
    const spellings = [['/TaXiI2', '/API'], ['/TAXII2', '/Api'], ['/Taxii2', '/aPI']] as const;
    for (const [taxiiMount, apiMount] of spellings) await visit(taxiiMount, apiMount);
    const after = await scrape();
    assert.deepEqual(routes(after), routes(canonical));
    const added = (route: string, status: string) => sampleValue(after, REQUESTS, { route, status }) - sampleValue(canonical, REQUESTS, { route, status });
    for (const [route, status] of [
      ['/taxii2/', '200'],
      ['/taxii2/api/collections', '200'],
      ['/taxii2/api/collections/:collectionId/objects', '200'],
      ['/taxii2/*', '404'],
      ['/api/threat.php', '200'],
      ['/api/*', '404'],
    ] as const) {
      assert.equal(added(route, status), spellings.length, `${route} ${status}`);
    }
  });

  it('counts response cache hits and misses, per cache', async () => {
    const before = await scrape();
    const hits = (text: Exposition) => sampleValue(text, 'threatgate_response_cache_hits_total', { cache: 'lookup' });
    const misses = (text: Exposition) => sampleValue(text, 'threatgate_response_cache_misses_total', { cache: 'lookup' });
    await request(app).get(`/api/feed.php?fid=3&key=${ctx.keys.pro}`).expect(200);
    await request(app).get(`/api/feed.php?fid=3&key=${ctx.keys.pro}`).expect(200);
    await request(app).get(`/api/feed.php?fid=3&key=${ctx.keys.pro}`).expect(200);
    const after = await scrape();
    assert.equal(misses(after) - misses(before), 1);
    assert.equal(hits(after) - hits(before), 2);
    // A TAXII page is kept from its second request on (a walk's pages are asked for once): a hit on the third.
    const taxiiHits = (text: Exposition) => sampleValue(text, 'threatgate_response_cache_hits_total', { cache: 'taxii' });
    const taxiiMisses = (text: Exposition) => sampleValue(text, 'threatgate_response_cache_misses_total', { cache: 'taxii' });
    const objects = `${collectionPath(INDICATORS_COLLECTION)}objects/?limit=3&match[type]=indicator`;
    for (let i = 0; i < 3; i++) await request(app).get(objects).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);
    const taxii = await scrape();
    assert.equal(taxiiMisses(taxii) - taxiiMisses(after), 2);
    assert.equal(taxiiHits(taxii) - taxiiHits(after), 1);
  });

  it('never puts a key in a label: query string, Basic auth, or a made-up path', async () => {
    const keys = Object.values(ctx.keys);
    await request(app).get(`/api/threat.php?tid=1&key=${ctx.keys.business}`).expect(200);
    await request(app).get(`/api/threat.php?tid=1&key=not-a-key-${ctx.keys.team}`).expect(401);
    // Anonymous, these are refused (429) before a route is chosen; the label is the surface's.
    await request(app).get(`/api/${ctx.keys.custom}`);
    await request(app).get(`/${ctx.keys.feed}?key=${ctx.keys.feed}`).expect(404);
    await request(app).get('/taxii2/').set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);
    await request(app).get(`/taxii2/api/collections/${ctx.keys.pro}/`).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(404);
    await request(app).get(`/taxii2/?key=${ctx.keys.pro}&accept=${encodeURIComponent(TAXII_TYPE)}`).expect(200);
    const res = await request(app).get('/metrics').expect(200);
    for (const key of keys) assert.equal(res.text.includes(key), false, 'a key is in the metrics text');
    const text = parsePrometheusText(res.text);
    for (const value of labelValues(text)) {
      assert.doesNotMatch(value, /key=|\?/, `label value "${value}"`);
      assert.ok(value.length < 80, `label value "${value}"`);
    }
  });

  it('counts requests answered 503 for an unreachable store', async () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const failing = Object.create(ctx.store) as Store;
    failing.dataVersion = () => Promise.reject(down);
    const outageMetrics = createMetrics({ defaultMetrics: false });
    const outage = createApp(ctx.config, { store: failing, clock: fixedClock, metrics: outageMetrics, nextTokenSecret: TEST_NEXT_SECRET });
    await request(outage).get(`/api/threat.php?tid=1&key=${ctx.keys.pro}`).expect(503);
    await request(outage).get(`${collectionPath(INDICATORS_COLLECTION)}objects/`).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE).expect(503);
    await request(outage).get(`/api/threat.php?tid=1&key=${ctx.keys.pro}&get=nonsense`).expect(400);
    const text = parsePrometheusText((await request(outage).get('/metrics').expect(200)).text);
    assert.equal(sampleValue(text, 'threatgate_store_errors_total'), 2);
    assert.equal(sampleValue(text, REQUESTS, { status: '503' }), 2);
    assert.equal(text.types.has('process_cpu_seconds_total'), false, 'default metrics off');
  });

  it('answers 503 with the error body when the metrics cannot be gathered (a cluster worker that does not answer)', async () => {
    const stuck = withScrape(createMetrics({ defaultMetrics: false }), () => Promise.reject(new Error('2 worker(s) sent no metrics within 3000 ms')));
    const stuckApp = createApp(ctx.config, { store: ctx.store, clock: fixedClock, metrics: stuck, nextTokenSecret: TEST_NEXT_SECRET });
    const res = await request(stuckApp).get('/metrics').expect(503);
    assert.deepEqual(res.body, { error: 'The metrics could not be gathered; try again.' });
    assert.equal(res.headers['cache-control'], 'no-store');
  });

  it('answers 405 to other methods, and 404 when the app has no metrics (metrics.enabled false)', async () => {
    await request(app).post('/metrics').expect(405);
    const plain = createApp(ctx.config, { store: ctx.store, clock: fixedClock, nextTokenSecret: TEST_NEXT_SECRET });
    await request(plain).get('/metrics').expect(404);
  });
});

describe('metrics.enabled', () => {
  it('is on by default, and can be turned off', () => {
    assert.equal(loadConfig().metrics.enabled, true);
    assert.equal(loadConfig({ overrides: { metrics: { enabled: false } } }).metrics.enabled, false);
    assert.throws(() => loadConfig({ overrides: { metrics: { enabled: 'yes' } } }), /metrics\.enabled/);
    assert.throws(() => loadConfig({ overrides: { metrics: { enabled: true, path: '/m' } } }), /metrics/);
  });

  it('defaults to true in a config that leaves it out', () => {
    const raw = JSON.parse(JSON.stringify(loadConfig())) as Record<string, unknown>;
    delete raw.metrics;
    assert.equal(parseConfig(raw).metrics.enabled, true);
  });
});
