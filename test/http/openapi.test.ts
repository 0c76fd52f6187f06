// GET /openapi.json: a valid OpenAPI 3.1 document, and true to the responses. Every documented
// operation is called for every status it documents (200s and errors alike: openapi-*-cases.ts);
// each real response must match the document (openapi-checker.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import request from 'supertest';
import { createTestContext, type TestContext } from '../helpers/test-app.js';
import { basicAuth, INDICATORS_COLLECTION, TAXII_TYPE, TEST_COLLECTION } from '../taxii/taxii-request.js';
import { addAdminCases } from './openapi-admin-cases.js';
import type { Json } from './openapi-checker.js';
import { addExploreCases } from './openapi-explore-cases.js';
import { addLookupCases } from './openapi-lookup-cases.js';
import { addObservationCases } from './openapi-observation-cases.js';
import { addTaxiiCases } from './openapi-taxii-cases.js';
import { OpenApiWorld } from './openapi-world.js';

describe('GET /openapi.json', () => {
  let ctx: TestContext;
  let doc: Json;
  before(async () => {
    // Limits of one request a day: the document must not count against them.
    ctx = await createTestContext({ overrides: { plans: { anonymous: { perSecond: 1, perDay: 1, perMonth: 1 } } } });
    doc = JSON.parse((await request(ctx.app).get('/openapi.json').expect(200)).text);
  });
  after(() => ctx.close());

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    assert.deepEqual(result, { valid: true });
    assert.equal(validator.version, '3.1');
    assert.match(doc.openapi, /^3\.1\.\d+$/);
  });

  it('has a unique operationId on every operation, and links that name real ones', () => {
    const ids: string[] = [];
    const linked: string[] = [];
    for (const item of Object.values(doc.paths as Json)) {
      for (const operation of Object.values(item as Json)) {
        ids.push(operation.operationId);
        for (const response of Object.values(operation.responses as Json)) for (const link of Object.values((response as Json).links ?? {})) linked.push((link as Json).operationId);
      }
    }
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(', ')}`);
    assert.ok(linked.length > 0);
    for (const id of linked) assert.ok(ids.includes(id), `a link names ${id}`);
  });

  it('needs no key, is not rate limited, and is served as JSON that caches can keep', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await request(ctx.app).get('/openapi.json').expect(200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'public, max-age=300');
      assert.equal(res.headers['access-control-allow-origin'], '*');
      assert.equal(res.headers.ratelimit, undefined);
      assert.equal(res.headers['x-requests-remaining-day'], undefined);
    }
    // The anonymous budget (one request a day) is untouched by the document.
    await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
    await request(ctx.app).get('/api/threat.php?tid=1').expect(429);
    await request(ctx.app).get('/openapi.json').expect(200);
  });

  it('is the same document with pretty=1, indented; another pretty is a 400; HEAD has no body; POST is a 405', async () => {
    const compact = await request(ctx.app).get('/openapi.json').expect(200);
    const pretty = await request(ctx.app).get('/openapi.json?pretty=1').expect(200);
    assert.deepEqual(JSON.parse(pretty.text), JSON.parse(compact.text));
    assert.ok(pretty.text.startsWith('{\n  "openapi"'));
    assert.deepEqual((await request(ctx.app).get('/openapi.json?pretty=yes').expect(400)).body, { error: 'Parameter "pretty" must be 0 or 1.' });
    const head = await request(ctx.app).head('/openapi.json').expect(200);
    assert.equal(head.text, undefined);
    const post = await request(ctx.app).post('/openapi.json').expect(405);
    assert.equal(post.headers.allow, 'GET, HEAD');
  });

  it('describes the running configuration: its plans, page sizes and collections', async () => {
    const custom = await createTestContext({ overrides: { linksPageSize: 7, taxii: { maxLimit: 500 }, plans: { pro: { perSecond: 11 } } } });
    try {
      const other = JSON.parse((await request(custom.app).get('/openapi.json').expect(200)).text);
      assert.match(other.info.description, /\| `pro` \| 11 \| 50000 \| 1000000 \| 2 \| every collection \|/);
      // Either shape of a page (results alone, or with page_current) holds at most a page of results.
      assert.deepEqual(other.components.schemas.LinksPage.anyOf.map((shape: Json) => shape.properties.results.maxItems), [7, 7]);
      assert.match(other.components.parameters.limit.description, /above 500 is lowered to 500/);
      assert.deepEqual(Object.values(other.components.parameters.collection_id.examples).map((e: any) => e.value), [TEST_COLLECTION, INDICATORS_COLLECTION]);
    } finally {
      await custom.close();
    }
  });
});

describe('every endpoint\u2019s real responses match the OpenAPI document', () => {
  const w = new OpenApiWorld();
  before(() => w.start());
  after(() => w.close());
  addLookupCases(w);
  addExploreCases(w);
  addTaxiiCases(w);
  addAdminCases(w);
  addObservationCases(w);

  for (const c of w.cases) {
    it(`${(c.method).toUpperCase()} ${c.template} \u203a ${c.status} \u203a ${c.what}`, async () => {
      const res = await c.send();
      assert.equal(res.status, c.status, res.text);
      w.checker.check(res, c.template, c.method);
    });
  }

  it('GET /metrics \u203a its answer (the metrics, or 404 while they are off or not there) is documented', async () => {
    const res = await w.get('/metrics');
    assert.ok([200, 404].includes(res.status), `GET /metrics answered ${res.status}`);
    w.checker.check(res, '/metrics', 'get');
  });

  it('429s carry Retry-After and the headers of the windows counted so far; 200s carry all of them', async () => {
    const limited = await w.get('/api/threat.php?tid=1', () => w.tight.app).expect(429);
    assert.match(limited.headers['retry-after'] ?? '', /^\d+$/);
    assert.match(limited.headers.ratelimit ?? '', /"day"; r=0; t=\d+/);
    const ok = await w.get('/api/threat.php?tid=1&key=' + w.pro()).expect(200);
    for (const name of ['ratelimit', 'ratelimit-policy', 'x-requests-remaining-second', 'x-requests-remaining-day', 'x-requests-remaining-month']) assert.ok(ok.headers[name], name);
    assert.match(ok.headers.ratelimit ?? '', /^"second"; r=\d+; t=\d+, "day"; r=\d+; t=\d+, "month"; r=\d+; t=\d+$/);
  });

  it('calls every operation with every status it documents', () => {
    // /metrics answers 200 or 404 by the config (metrics.enabled): its answer is checked above as it comes.
    const missing = w.checker.documented().filter((entry) => !w.checker.seen.has(entry) && !entry.startsWith('get /metrics '));
    assert.deepEqual(missing, []);
  });

  it('leaves no route of the app undocumented: a path the document lacks is a 404', async () => {
    const templates = Object.keys(w.checker.doc.paths);
    for (const path of ['/api/', '/api/nothing.php', '/openapi.yaml', '/taxii2/api/collections/x/y/', '/metrics/x', '/export/', `/export/${INDICATORS_COLLECTION}.json`]) {
      assert.ok(!templates.includes(path));
      const res = await request(w.ctx.app).get(path).set('Authorization', basicAuth(w.pro())).set('Accept', TAXII_TYPE);
      assert.equal(res.status, 404, path);
    }
  });
});
