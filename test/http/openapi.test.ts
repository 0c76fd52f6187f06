// GET /openapi.json: a valid OpenAPI 3.1 document, and true to the responses. Every documented
// operation is called for every status it documents (200s and errors alike); each real response
// must match the document (openapi-checker.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Express } from 'express';
import request, { type Response, type Test } from 'supertest';
import { createApp } from '../../src/app.js';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import type { Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/store.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { runPullerOnce } from '../helpers/run-puller.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, TEST_NEXT_SECRET, type TestContext } from '../helpers/test-app.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE, TEST_COLLECTION } from '../taxii/taxii-request.js';
import { DocumentChecker, type Json, type Method } from './openapi-checker.js';

const TEST = collectionPath(TEST_COLLECTION);
const ALL = collectionPath(INDICATORS_COLLECTION);
const UNKNOWN_COLLECTION = '00000000-0000-4000-8000-000000000000';
const UNKNOWN_OBJECT = 'indicator--00000000-0000-4000-8000-000000000000';
const UNKNOWN_KEY = 'A'.repeat(43);

/** A store whose key lookups and data version fail, as a bug (500) or an outage (503) would. */
function failingStore(store: Store, error: () => Error, methods = ['findKeyByHash', 'dataVersion', 'checkReady']): Store {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (typeof name === 'string' && methods.includes(name)) return async () => { throw error(); };
      const value = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const outage = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const bug = () => new Error('SQLITE_CORRUPT: a detail no client may see');


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
  let ctx: TestContext;
  let tight: TestContext;
  let checker: DocumentChecker;
  let objectId: string;
  let broken: Express;
  let down: Express;
  let noTeam: Express;
  let guessing: Express;
  /** The operator API's world: its own store (pulls change data the other cases read), an admin key, and feeds of a local server. */
  let admin: TestContext;
  let feedServer: FeedServer;
  let adminKey: string;
  let pulledFid: number;
  let failingFid: number;

  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    // One request a day on every plan: the second is a 429.
    const oneADay = Object.fromEntries(Object.keys(GENEROUS_PLANS.plans).map((plan) => [plan, { perSecond: 1000, perDay: 1, perMonth: 1000 }]));
    tight = await createTestContext({ overrides: { plans: oneADay } });
    checker = new DocumentChecker(JSON.parse((await request(ctx.app).get('/openapi.json')).text));
    objectId = (await request(ctx.app).get(`${TEST}manifest/?match[type]=indicator&limit=1`).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE)).body.objects[0].id;
    broken = createApp(ctx.config, { store: failingStore(ctx.store, bug), nextTokenSecret: TEST_NEXT_SECRET });
    down = createApp(ctx.config, { store: failingStore(ctx.store, outage), nextTokenSecret: TEST_NEXT_SECRET });
    // A server that no longer offers the Team plan, holding a Team key.
    const { team: _team, ...plans } = ctx.config.plans;
    noTeam = createApp({ ...ctx.config, plans } as Config, { store: ctx.store, nextTokenSecret: TEST_NEXT_SECRET });
    // A server that allows one failed authentication a minute per client address.
    guessing = createApp({ ...ctx.config, auth: { failuresPerMinute: 1 } } as Config, { store: ctx.store, nextTokenSecret: TEST_NEXT_SECRET });
    // Use up the tight budgets: anonymous, and the Pro key.
    await request(tight.app).get('/api/threat.php?tid=1').expect(200);
    await request(tight.app).get('/taxii2/').set('Authorization', basicAuth(tight.keys.pro!)).set('Accept', TAXII_TYPE).expect(200);

    admin = await createTestContext({ overrides: { ...GENEROUS_PLANS, sources: { allowPrivateNetworks: true } } });
    adminKey = (await createAdminKey(admin.store, fixedClock, 'openapi')).key;
    feedServer = await startFeedServer();
    feedServer.publishFixture('blocklist-de.txt');
    feedServer.publish('/down.txt', '192.0.2.1\n');
    feedServer.fail('/down.txt', { kind: 'status', status: 500 });
    const source = (path: string) => ({ url: `${feedServer.base}${path}`, format: 'text', schedule: 'daily' });
    pulledFid = await addFeedSource(admin.store, { feed: 'OpenAPI list', organization: 'OpenAPI', source: source('/blocklist-de.txt') }, fixedClock, {});
    failingFid = await addFeedSource(admin.store, { feed: 'OpenAPI down', organization: 'OpenAPI', source: source('/down.txt') }, fixedClock, {});
  });
  after(async () => {
    await ctx?.close();
    await tight?.close();
    await admin?.close();
    await feedServer?.close();
  });

  /** A request and the status it must get; `app` is the main one unless named. */
  interface Case {
    what: string;
    template: string;
    method?: Method;
    status: number;
    send: () => Test | Promise<Response>;
  }

  const cases: Case[] = [];
  const add = (template: string, status: number, what: string, send: Case['send'], method: Method = 'get') => cases.push({ template, status, what, send, method });
  const get = (path: string, app?: () => Express) => request((app ?? (() => ctx.app))()).get(path);
  const taxii = (method: Method, path: string, key: () => string, accept: string | null = TAXII_TYPE, app?: () => Express) => {
    const req = request((app ?? (() => ctx.app))())[method](path).set('Authorization', basicAuth(key()));
    return accept === null ? req : req.set('Accept', accept);
  };
  const pro = () => ctx.keys.pro!;
  const free = () => ctx.keys.free!;
  /** Sent right after a failed authentication from the same address, on the server that allows one a minute. */
  const afterFailure = async (send: () => Test) => {
    await get(`/api/threat.php?tid=1&key=${UNKNOWN_KEY}`, () => guessing);
    return send();
  };
  const failures = 'a valid key from an address past its failed authentications';

  // ---- Lookup API --------------------------------------------------------------------------
  for (const [template, byId, byName, links, missing] of [
    ['/api/threat.php', 'tid=1', 'threat=zbot', 'tid=1&get=links', 'tid=999'],
    ['/api/feed.php', 'fid=1', `feed=${encodeURIComponent('Botnet C&C (IPv4)')}&organization=${encodeURIComponent('Example Labs, Inc.')}`, 'fid=1&get=links', 'fid=999'],
  ] as const) {
    const idName = byId.split('=')[0]!;
    add(template, 200, 'by id, anonymous', () => get(`${template}?${byId}`));
    add(template, 200, 'by id, pretty, with a key', () => get(`${template}?${byId}&pretty=1&key=${pro()}`));
    add(template, 200, 'by name', () => get(`${template}?${byName}`));
    add(template, 200, 'links, page 0 of several', () => get(`${template}?${links}`));
    add(template, 200, 'links, the last page a Pro key may read', () => get(`${template}?${links}&page=1&key=${pro()}`));
    add(template, 200, 'links, past the end', () => get(`${template}?${links}&page=9&key=${ctx.keys.business}`));
    add(template, 200, 'links that fit on one page', () => get(`${template}?${idName}=2&get=links`));
    add(template, 400, 'no identifier', () => get(template));
    add(template, 400, 'a malformed identifier', () => get(`${template}?${idName}=0x1`));
    add(template, 400, 'a repeated identifier', () => get(`${template}?${idName}=1&${idName}=2`));
    add(template, 400, 'get other than links', () => get(`${template}?${byId}&get=all`));
    add(template, 400, 'a malformed page', () => get(`${template}?${links}&page=-1`));
    add(template, 400, 'pretty=2', () => get(`${template}?${byId}&pretty=2`));
    add(template, 400, 'a repeated key', () => get(`${template}?${byId}&key=${pro()}&key=${pro()}`));
    add(template, 401, 'an unknown key', () => get(`${template}?${byId}&key=${UNKNOWN_KEY}`));
    add(template, 401, 'a malformed key', () => get(`${template}?${byId}&key=short`));
    add(template, 403, 'a page beyond the plan\u2019s allowance', () => get(`${template}?${links}&page=1`));
    add(template, 403, 'a key whose plan is no longer offered', () => get(`${template}?${byId}&key=${ctx.keys.team}`, () => noTeam));
    add(template, 404, 'an unknown record', () => get(`${template}?${missing}`));
    add(template, 404, 'the links of an unknown record', () => get(`${template}?${missing}&get=links`));
    add(template, 429, 'anonymous, over its limit', () => get(`${template}?${byId}`, () => tight.app));
    add(template, 429, 'a Pro key, over its limit', () => get(`${template}?${byId}&key=${tight.keys.pro}`, () => tight.app));
    add(template, 429, failures, () => afterFailure(() => get(`${template}?${byId}&key=${pro()}`, () => guessing)));
    add(template, 500, 'a fault', () => get(`${template}?${byId}`, () => broken));
    add(template, 503, 'the database down', () => get(`${template}?${byId}&key=${pro()}`, () => down));
  }

  // The indicator lookup, and info.php standing for each lookup (docs/interface.md section 4.4).
  for (const [template, found, missing] of [
    ['/api/indicator.php', 'indicator=HOST3.example.net.', 'iid=999'],
    ['/api/info.php', 'iid=3', 'tid=999'],
  ] as const) {
    add(template, 200, 'by value, anonymous', () => get(`${template}?indicator=198.51.100.1`));
    add(template, 200, 'by iid, pretty, with a key', () => get(`${template}?iid=3&pretty=1&key=${pro()}`));
    add(template, 400, 'no identifier', () => get(template));
    add(template, 400, 'a value that is no indicator', () => get(`${template}?indicator=no%20such%20thing`));
    add(template, 401, 'an unknown key', () => get(`${template}?${found}&key=${UNKNOWN_KEY}`));
    add(template, 403, 'a key whose plan is no longer offered', () => get(`${template}?${found}&key=${ctx.keys.team}`, () => noTeam));
    add(template, 404, 'an unknown record', () => get(`${template}?${missing}`));
    add(template, 429, 'anonymous, over its limit', () => get(`${template}?${found}`, () => tight.app));
    add(template, 429, failures, () => afterFailure(() => get(`${template}?${found}&key=${pro()}`, () => guessing)));
    add(template, 500, 'a fault', () => get(`${template}?${found}`, () => broken));
    add(template, 503, 'the database down', () => get(`${template}?${found}&key=${pro()}`, () => down));
  }
  add('/api/info.php', 200, 'a threat by name, with what clients always send', () => get('/api/info.php?tname=zbot&sanitize=1&schema=1&summary=1&splitrisk=1'));
  add('/api/info.php', 200, 'a feed by name', () => get(`/api/info.php?feed=${encodeURIComponent('Botnet C&C (IPv4)')}&organization=${encodeURIComponent('Example Labs, Inc.')}`));
  add('/api/info.php', 200, 'a feed\u2019s links, page 0 of several', () => get('/api/info.php?fid=1&get=links'));
  add('/api/info.php', 403, 'a page beyond the plan\u2019s allowance', () => get('/api/info.php?tid=1&get=links&page=1'));

  // ---- TAXII: what every endpoint answers before it reaches its resource -------------------
  const endpoints: [template: string, path: () => string, method: Method][] = [
    ['/taxii2/', () => '/taxii2/', 'get'],
    ['/taxii2/api/', () => '/taxii2/api/', 'get'],
    ['/taxii2/api/status/{status_id}/', () => '/taxii2/api/status/1234/', 'get'],
    ['/taxii2/api/collections/', () => '/taxii2/api/collections/', 'get'],
    ['/taxii2/api/collections/{collection_id}/', () => ALL, 'get'],
    ['/taxii2/api/collections/{collection_id}/manifest/', () => `${ALL}manifest/`, 'get'],
    ['/taxii2/api/collections/{collection_id}/objects/', () => `${ALL}objects/`, 'get'],
    ['/taxii2/api/collections/{collection_id}/objects/', () => `${ALL}objects/`, 'post'],
    ['/taxii2/api/collections/{collection_id}/objects/{object_id}/', () => `${ALL}objects/${objectId}/`, 'get'],
    ['/taxii2/api/collections/{collection_id}/objects/{object_id}/', () => `${ALL}objects/${objectId}/`, 'delete'],
    ['/taxii2/api/collections/{collection_id}/objects/{object_id}/versions/', () => `${ALL}objects/${objectId}/versions/`, 'get'],
  ];
  for (const [template, path, method] of endpoints) {
    add(template, 401, 'no credentials', () => request(ctx.app)[method](path()).set('Accept', TAXII_TYPE), method);
    add(template, 401, 'an unknown key in the query', () => request(ctx.app)[method](`${path()}?key=${UNKNOWN_KEY}&accept=${encodeURIComponent(TAXII_TYPE)}`), method);
    add(template, 401, 'Basic with another username', () => request(ctx.app)[method](path()).set('Authorization', basicAuth(pro(), 'admin')).set('Accept', TAXII_TYPE), method);
    add(template, 429, 'a Pro key over its limit', () => taxii(method, path(), () => tight.keys.pro!, TAXII_TYPE, () => tight.app), method);
    add(template, 429, failures, () => afterFailure(() => taxii(method, path(), pro, TAXII_TYPE, () => guessing)), method);
    add(template, 403, 'a Free key beyond the test collection', () => taxii(method, path(), free), method);
    add(template, 406, 'an Accept without the TAXII type', () => taxii(method, path(), pro, 'application/json'), method);
    add(template, 406, 'no Accept', () => taxii(method, path(), pro, null), method);
    add(template, 406, 'query authentication with another accept', () => request(ctx.app)[method](`${path()}?key=${pro()}&accept=text/html`), method);
    add(template, 400, 'a repeated accept parameter', () => request(ctx.app)[method](`${path()}?key=${pro()}&accept=${encodeURIComponent(TAXII_TYPE)}&accept=x`), method);
    add(template, 500, 'a fault', () => taxii(method, path(), pro, TAXII_TYPE, () => broken), method);
    add(template, 503, 'the database down', () => taxii(method, path(), pro, TAXII_TYPE, () => down), method);
  }

  // ---- TAXII resources ---------------------------------------------------------------------
  const query = (key: () => string) => `key=${key()}&accept=${encodeURIComponent(TAXII_TYPE)}`;
  add('/taxii2/', 200, 'Basic auth', () => taxii('get', '/taxii2/', pro));
  add('/taxii2/', 200, 'query auth, pretty', () => get(`/taxii2/?${query(pro)}&pretty=1`));
  add('/taxii2/', 400, 'pretty=2', () => taxii('get', '/taxii2/?pretty=2', pro));
  add('/taxii2/api/', 200, 'Basic auth', () => taxii('get', '/taxii2/api/', pro));
  add('/taxii2/api/status/{status_id}/', 404, 'any status', () => taxii('get', '/taxii2/api/status/1234/', pro));
  add('/taxii2/api/collections/', 200, 'a Pro key', () => taxii('get', '/taxii2/api/collections/', pro));
  const collection = '/taxii2/api/collections/{collection_id}/';
  add(collection, 200, 'the Indicators collection', () => taxii('get', ALL, pro));
  add(collection, 200, 'the test collection with a Free key', () => taxii('get', TEST, free));
  add(collection, 404, 'an unknown collection', () => taxii('get', collectionPath(UNKNOWN_COLLECTION), pro));
  add(collection, 400, 'pretty=x', () => taxii('get', `${ALL}?pretty=x`, pro));

  for (const [suffix, filters] of [
    ['manifest/', 'match[type]=indicator,identity&match[version]=last&match[spec_version]=2.1&match[id]='],
    ['objects/', 'match[type]=indicator&match[version]=all&match[spec_version]=2.1&match[id]='],
  ] as const) {
    const template = `/taxii2/api/collections/{collection_id}/${suffix}`;
    add(template, 200, 'a page with more', () => taxii('get', `${ALL}${suffix}?limit=3`, pro));
    add(template, 200, 'the test collection with a Free key, pretty, by query', () => get(`${TEST}${suffix}?limit=2&pretty=1&${query(free)}`));
    add(template, 200, 'the page a next token leads to', async () => {
      const first = await taxii('get', `${ALL}${suffix}?limit=2&added_after=2000-01-01T00:00:00Z`, pro);
      return taxii('get', `${ALL}${suffix}?next=${encodeURIComponent(first.body.next)}`, pro);
    });
    add(template, 200, 'every filter', async () => taxii('get', `${ALL}${suffix}?${filters}${objectId}`, pro));
    add(template, 200, 'an empty page', () => taxii('get', `${ALL}${suffix}?added_after=2999-01-01T00:00:00Z`, pro));
    add(template, 200, 'the last page', () => taxii('get', `${TEST}${suffix}?limit=1000`, pro));
    add(template, 404, 'an unknown collection', () => taxii('get', `${collectionPath(UNKNOWN_COLLECTION)}${suffix}`, pro));
    add(template, 400, 'limit=0', () => taxii('get', `${ALL}${suffix}?limit=0`, pro));
    add(template, 400, 'an unknown match field', () => taxii('get', `${ALL}${suffix}?match[color]=red`, pro));
    add(template, 400, 'a malformed added_after', () => taxii('get', `${ALL}${suffix}?added_after=yesterday`, pro));
    add(template, 400, 'an altered next token', () => taxii('get', `${ALL}${suffix}?next=abc.def`, pro));
    add(template, 400, 'a repeated limit', () => taxii('get', `${ALL}${suffix}?limit=1&limit=2`, pro));
  }
  const objects = '/taxii2/api/collections/{collection_id}/objects/';
  add(objects, 403, 'a write with a Pro key', () => taxii('post', `${ALL}objects/`, pro).set('Content-Type', TAXII_TYPE).send('{"objects":[]}'), 'post');
  add(objects, 404, 'a write to an unknown collection', () => taxii('post', `${collectionPath(UNKNOWN_COLLECTION)}objects/`, pro), 'post');

  const object = '/taxii2/api/collections/{collection_id}/objects/{object_id}/';
  add(object, 200, 'an object', () => taxii('get', `${ALL}objects/${objectId}/`, pro));
  add(object, 200, 'an object, match[version]=first, in the test collection by query', () => get(`${TEST}objects/${objectId}/?match[version]=first&${query(free)}`));
  add(object, 200, 'no version for spec_version 2.0', () => taxii('get', `${ALL}objects/${objectId}/?match[spec_version]=2.0`, pro));
  add(object, 404, 'an unknown object', () => taxii('get', `${ALL}objects/${UNKNOWN_OBJECT}/`, pro));
  add(object, 400, 'match[type], which this endpoint does not take', () => taxii('get', `${ALL}objects/${objectId}/?match[type]=indicator`, pro));
  add(object, 403, 'a delete with a Pro key', () => taxii('delete', `${ALL}objects/${objectId}/`, pro), 'delete');
  add(object, 404, 'a delete in an unknown collection', () => taxii('delete', `${collectionPath(UNKNOWN_COLLECTION)}objects/${objectId}/`, pro), 'delete');

  const versions = '/taxii2/api/collections/{collection_id}/objects/{object_id}/versions/';
  add(versions, 200, 'the versions of an object', () => taxii('get', `${ALL}objects/${objectId}/versions/`, pro));
  add(versions, 200, 'none for spec_version 2.0, pretty', () => taxii('get', `${ALL}objects/${objectId}/versions/?match[spec_version]=2.0&pretty=1`, pro));
  add(versions, 404, 'an unknown object', () => taxii('get', `${ALL}objects/${UNKNOWN_OBJECT}/versions/`, pro));
  add(versions, 400, 'match[version], which this endpoint does not take', () => taxii('get', `${ALL}objects/${objectId}/versions/?match[version]=last`, pro));

  // ---- Exports -----------------------------------------------------------------------------
  for (const format of ['txt', 'csv'] as const) {
    const template = `/export/{collection_id}.${format}`;
    const path = (id: string, query = '') => `/export/${id}.${format}${query}`;
    const basic = (url: string, key: () => string, app?: () => Express) => get(url, app).set('Authorization', basicAuth(key()));
    add(template, 200, 'the unfiltered collection with a Pro key', () => basic(path(INDICATORS_COLLECTION), pro));
    add(template, 200, 'the test collection with a Free key by query, two types', () => get(path(TEST_COLLECTION, `?type=ip,domain&key=${free()}`)));
    add(template, 200, 'URLs in the PAN-OS style', () => basic(path(INDICATORS_COLLECTION, '?type=url&style=panos'), pro));
    add(template, 200, 'the test collection by its alias with a Free key, CIDRs by the type pulls store them as', () => basic(path('test', '?type=cidr'), free));
    add(template, 200, 'a device limit: the two highest-risk lines of two types', () => basic(path(INDICATORS_COLLECTION, '?type=ip,domain&max=2'), pro));
    add(template, 304, 'an unchanged list', async () => {
      const first = await basic(path(TEST_COLLECTION), pro);
      return basic(path(TEST_COLLECTION), pro).set('If-None-Match', first.headers.etag as string);
    });
    add(template, 400, 'an unknown type', () => basic(path(INDICATORS_COLLECTION, '?type=ip,colour'), pro));
    add(template, 400, 'style given twice', () => basic(path(INDICATORS_COLLECTION, '?style=panos&style=panos'), pro));
    add(template, 400, 'a max of 0', () => basic(path(INDICATORS_COLLECTION, '?max=0'), pro));
    add(template, 401, 'no key', () => get(path(INDICATORS_COLLECTION)));
    add(template, 401, 'an unknown key in the query', () => get(path(INDICATORS_COLLECTION, `?key=${UNKNOWN_KEY}`)));
    add(template, 403, 'a Free key beyond the test collection', () => basic(path(INDICATORS_COLLECTION), free));
    add(template, 403, 'a key whose plan is no longer offered', () => basic(path(INDICATORS_COLLECTION), () => ctx.keys.team!, () => noTeam));
    add(template, 404, 'an unknown collection', () => basic(path(UNKNOWN_COLLECTION), pro));
    add(template, 429, 'a Pro key over its limit', () => basic(path(INDICATORS_COLLECTION), () => tight.keys.pro!, () => tight.app));
    add(template, 429, failures, () => afterFailure(() => basic(path(INDICATORS_COLLECTION), pro, () => guessing)));
    add(template, 500, 'a fault', () => basic(path(INDICATORS_COLLECTION), pro, () => broken));
    add(template, 503, 'the database down', () => basic(path(INDICATORS_COLLECTION), pro, () => down));
  }

  // ---- Operator API ------------------------------------------------------------------------
  const bearer = (key: string) => `Bearer ${key}`;
  const adminCall = (method: Method, path: string, authorization: string | null = bearer(adminKey), app?: () => Express) => {
    const req = request((app ?? (() => admin.app))())[method](path);
    return authorization === null ? req : req.set('Authorization', authorization);
  };
  const adminRoutes: [template: string, path: () => string, method: Method][] = [
    ['/admin/api/feeds', () => '/admin/api/feeds', 'get'],
    ['/admin/api/feeds/{fid}/runs', () => `/admin/api/feeds/${pulledFid}/runs`, 'get'],
    ['/admin/api/feeds/{fid}/pull', () => `/admin/api/feeds/${failingFid}/pull`, 'post'],
    ['/admin/api/why', () => '/admin/api/why?value=192.0.2.10', 'get'],
    ['/admin/api/allowlist', () => '/admin/api/allowlist', 'get'],
    ['/admin/api/allowlist', () => '/admin/api/allowlist', 'post'],
    ['/admin/api/allowlist/{entry}', () => '/admin/api/allowlist/192.0.2.0%2F24', 'delete'],
  ];
  for (const [template, path, method] of adminRoutes) {
    const withQuery = (extra: string) => `${path()}${path().includes('?') ? '&' : '?'}${extra}`;
    add(template, 400, 'the key in the query', () => adminCall(method, withQuery(`key=${adminKey}`), null), method);
    add(template, 401, 'no credentials', () => adminCall(method, path(), null), method);
    add(template, 401, 'Basic with user taxii2', () => adminCall(method, path(), basicAuth(adminKey)), method);
    add(template, 403, 'a key of a plan', () => adminCall(method, path(), `Basic ${Buffer.from(`admin:${admin.keys.pro}`).toString('base64')}`), method);
    add(template, 429, 'an address past its failed authentications', () => afterFailure(() => adminCall(method, path(), bearer(adminKey), () => guessing)), method);
    add(template, 500, 'a fault', () => adminCall(method, path(), bearer(UNKNOWN_KEY), () => broken), method);
    add(template, 503, 'the database down', () => adminCall(method, path(), bearer(UNKNOWN_KEY), () => down), method);
  }
  add('/admin/api/feeds/{fid}/pull', 202, 'a request handed to the puller', () => adminCall('post', `/admin/api/feeds/${pulledFid}/pull`), 'post');
  add('/admin/api/feeds/{fid}/pull', 202, 'a feed another holder is pulling', async () => {
    const owner = 'feeds pull elsewhere';
    await admin.store.claimPullLease(failingFid, owner, fixedClock.now(), fixedClock.now() + 60_000);
    try {
      return await adminCall('post', `/admin/api/feeds/${failingFid}/pull`);
    } finally {
      await admin.store.releasePullLease(failingFid, owner);
    }
  }, 'post');
  add('/admin/api/feeds/{fid}/pull', 404, 'an unknown feed', () => adminCall('post', '/admin/api/feeds/999/pull'), 'post');
  add('/admin/api/feeds', 200, 'every feed, pulled or not', () => adminCall('get', '/admin/api/feeds'));
  add('/admin/api/feeds/{fid}/runs', 200, 'the runs, Basic admin', () => adminCall('get', `/admin/api/feeds/${pulledFid}/runs?limit=5`, `Basic ${Buffer.from(`admin:${adminKey}`).toString('base64')}`));
  add('/admin/api/feeds/{fid}/runs', 200, 'the runs of a failing feed', () => adminCall('get', `/admin/api/feeds/${failingFid}/runs`));
  add('/admin/api/feeds/{fid}/runs', 400, 'limit=0', () => adminCall('get', `/admin/api/feeds/${pulledFid}/runs?limit=0`));
  add('/admin/api/feeds/{fid}/runs', 404, 'an unknown feed', () => adminCall('get', '/admin/api/feeds/999/runs'));
  add('/admin/api/why', 200, 'a pulled value', async () => {
    await adminCall('post', `/admin/api/feeds/${pulledFid}/pull`);
    await runPullerOnce({ store: admin.store, clock: fixedClock, config: admin.config, logger: createLogger('error', () => undefined), env: {} });
    return adminCall('get', '/admin/api/why?value=198.51.100.7');
  });
  add('/admin/api/why', 200, 'an allowlisted value', () => adminCall('get', '/admin/api/why?value=10.0.0.1'));
  add('/admin/api/why', 200, 'a value that is no indicator', () => adminCall('get', '/admin/api/why?value=no%20such%20thing'));
  add('/admin/api/allowlist', 200, 'the effective allowlist', () => adminCall('get', '/admin/api/allowlist'));
  const addEntry = (body: unknown) => adminCall('post', '/admin/api/allowlist').send(body as object);
  add('/admin/api/allowlist', 200, 'a dry run', () => addEntry({ entry: '192.0.2.0/24', dryRun: true }), 'post');
  add('/admin/api/allowlist', 201, 'an entry added', () => addEntry({ entry: '192.0.2.0/24', reason: 'the documentation range' }), 'post');
  add('/admin/api/allowlist', 200, 'config and run-time entries', () => adminCall('get', '/admin/api/allowlist'));
  add('/admin/api/allowlist', 409, 'an entry of the config', () => addEntry({ entry: '10.0.0.0/8' }), 'post');
  add('/admin/api/allowlist', 413, 'a body over the limit', () => addEntry({ entry: '192.0.2.1', reason: 'x'.repeat(20_000) }), 'post');
  add('/admin/api/allowlist', 415, 'a form body', () => adminCall('post', '/admin/api/allowlist').type('form').send('entry=192.0.2.1'), 'post');
  add('/admin/api/allowlist/{entry}', 204, 'a run-time entry removed', () => adminCall('delete', '/admin/api/allowlist/192.0.2.0%2F24'), 'delete');
  add('/admin/api/allowlist/{entry}', 404, 'an entry on neither list', () => adminCall('delete', '/admin/api/allowlist/nothing.example'), 'delete');
  add('/admin/api/allowlist/{entry}', 409, 'an entry of the config', () => adminCall('delete', '/admin/api/allowlist/10.0.0.0%2F8'), 'delete');
  // An admin key elsewhere: refused as the document says each surface refuses a key.
  add('/api/threat.php', 403, 'an admin key', () => request(admin.app).get(`/api/threat.php?tid=1&key=${adminKey}`));
  add('/taxii2/', 403, 'an admin key', () => request(admin.app).get('/taxii2/').set('Authorization', basicAuth(adminKey)).set('Accept', TAXII_TYPE));
  add('/export/{collection_id}.txt', 403, 'an admin key', () => request(admin.app).get(`/export/${INDICATORS_COLLECTION}.txt`).set('Authorization', basicAuth(adminKey)));

  // ---- Operations --------------------------------------------------------------------------
  add('/healthz', 200, 'up', () => get('/healthz'));
  add('/readyz', 200, 'ready', () => get('/readyz'));
  add('/readyz', 503, 'the database down', () => get('/readyz', () => down));
  add('/openapi.json', 200, 'the document', () => get('/openapi.json'));
  add('/openapi.json', 400, 'pretty=true', () => get('/openapi.json?pretty=true'));

  for (const c of cases) {
    it(`${(c.method ?? 'get').toUpperCase()} ${c.template} \u203a ${c.status} \u203a ${c.what}`, async () => {
      const res = await c.send();
      assert.equal(res.status, c.status, res.text);
      checker.check(res, c.template, c.method ?? 'get');
    });
  }

  it('GET /metrics \u203a its answer (the metrics, or 404 while they are off or not there) is documented', async () => {
    const res = await get('/metrics');
    assert.ok([200, 404].includes(res.status), `GET /metrics answered ${res.status}`);
    checker.check(res, '/metrics', 'get');
  });

  it('429s carry Retry-After and the headers of the windows counted so far; 200s carry all of them', async () => {
    const limited = await get('/api/threat.php?tid=1', () => tight.app).expect(429);
    assert.match(limited.headers['retry-after'] ?? '', /^\d+$/);
    assert.match(limited.headers.ratelimit ?? '', /"day"; r=0; t=\d+/);
    const ok = await get('/api/threat.php?tid=1&key=' + pro()).expect(200);
    for (const name of ['ratelimit', 'ratelimit-policy', 'x-requests-remaining-second', 'x-requests-remaining-day', 'x-requests-remaining-month']) assert.ok(ok.headers[name], name);
    assert.match(ok.headers.ratelimit ?? '', /^"second"; r=\d+; t=\d+, "day"; r=\d+; t=\d+, "month"; r=\d+; t=\d+$/);
  });

  it('calls every operation with every status it documents', () => {
    // /metrics answers 200 or 404 by the config (metrics.enabled): its answer is checked above as it comes.
    const missing = checker.documented().filter((entry) => !checker.seen.has(entry) && !entry.startsWith('get /metrics '));
    assert.deepEqual(missing, []);
  });

  it('leaves no route of the app undocumented: a path the document lacks is a 404', async () => {
    const templates = Object.keys(checker.doc.paths);
    for (const path of ['/api/', '/api/search.php', '/openapi.yaml', '/taxii2/api/collections/x/y/', '/metrics/x', '/export/', `/export/${INDICATORS_COLLECTION}.json`]) {
      assert.ok(!templates.includes(path));
      const res = await request(ctx.app).get(path).set('Authorization', basicAuth(pro())).set('Accept', TAXII_TYPE);
      assert.equal(res.status, 404, path);
    }
  });
});
