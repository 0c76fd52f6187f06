// The OpenAPI document is only as good as its check: a real response altered to break its schema,
// its status or its headers must fail the check that lets the unaltered one through.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request, { type Response } from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE } from '../taxii/taxii-request.js';
import { DocumentChecker, type Json } from './openapi-checker.js';

/** `res` with another status, headers or JSON body, as a server that broke its contract would answer. */
function altered(res: Response, change: { status?: number; headers?: Json; body?: unknown }): Response {
  return {
    status: change.status ?? res.status,
    headers: change.headers ?? res.headers,
    text: change.body === undefined ? res.text : JSON.stringify(change.body),
  } as unknown as Response;
}

const mismatch = /does not match the document/;

describe('the OpenAPI check of a response', () => {
  let ctx: TestContext;
  let checker: DocumentChecker;
  let threat: Response;
  let page: Response;
  const objects = '/taxii2/api/collections/{collection_id}/objects/';
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    checker = new DocumentChecker(JSON.parse((await request(ctx.app).get('/openapi.json').expect(200)).text));
    threat = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
    page = await request(ctx.app)
      .get(`${collectionPath(INDICATORS_COLLECTION)}objects/?limit=2`)
      .set('Authorization', basicAuth(ctx.keys.pro!))
      .set('Accept', TAXII_TYPE)
      .expect(200);
  });
  after(() => ctx?.close());

  it('passes the responses as the server sent them', () => {
    checker.check(threat, '/api/threat.php', 'get');
    checker.check(page, objects, 'get');
    assert.equal(page.body.more, true);
  });

  it('fails a threat whose tid is a string', () => {
    assert.throws(() => checker.check(altered(threat, { body: { ...threat.body, tid: '1' } }), '/api/threat.php', 'get'), mismatch);
  });

  it('fails a threat with a field the schema does not list', () => {
    assert.throws(() => checker.check(altered(threat, { body: { ...threat.body, internal_note: 'x' } }), '/api/threat.php', 'get'), mismatch);
  });

  it('fails a threat without a field every threat has', () => {
    const { summary: _summary, ...rest } = threat.body as Json;
    assert.throws(() => checker.check(altered(threat, { body: rest }), '/api/threat.php', 'get'), mismatch);
  });

  it('fails a threat whose risk is no risk level', () => {
    assert.throws(() => checker.check(altered(threat, { body: { ...threat.body, risk: 'severe' } }), '/api/threat.php', 'get'), mismatch);
  });

  it('fails a TAXII page that says more without a next token', () => {
    const { next: _next, ...rest } = page.body as Json;
    assert.throws(() => checker.check(altered(page, { body: rest }), objects, 'get'), mismatch);
  });

  it('fails a TAXII last page that still carries a next token', () => {
    assert.throws(() => checker.check(altered(page, { body: { ...page.body, more: false } }), objects, 'get'), mismatch);
  });

  it('fails a status the operation does not document', () => {
    assert.throws(() => checker.check(altered(threat, { status: 418 }), '/api/threat.php', 'get'), /is not documented/);
  });

  it('fails a 200 without a rate-limit header the document requires', () => {
    const { ratelimit: _ratelimit, ...headers } = threat.headers as Json;
    assert.throws(() => checker.check(altered(threat, { headers }), '/api/threat.php', 'get'), /required header RateLimit is missing/);
  });

  it('fails a header whose value breaks its pattern', () => {
    assert.throws(() => checker.check(altered(threat, { headers: { ...threat.headers, ratelimit: 'second=9' } }), '/api/threat.php', 'get'), mismatch);
  });
});
