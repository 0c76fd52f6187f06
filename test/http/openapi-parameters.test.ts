// The bounds the OpenAPI document gives a parameter are the ones the server holds to: a value at each
// bound is taken (answered as the value deserves), and one past it is a 400. The bounds are read from
// the served document, so a schema and a parser that drift apart fail here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION, TAXII_TYPE } from '../taxii/taxii-request.js';
import type { Json } from './openapi-checker.js';

interface Bounded {
  /** The parameter component. */
  parameter: string;
  /** The request's path and query with the value as `{}`. */
  url: string;
  /** What a value at the lower and at the upper bound gets (past either: 400). */
  atMinimum: number;
  atMaximum: number;
  auth?: 'pro' | 'admin';
}

const BOUNDED: Bounded[] = [
  { parameter: 'tid', url: '/api/threat.php?tid={}', atMinimum: 200, atMaximum: 404 },
  { parameter: 'fid', url: '/api/feed.php?fid={}', atMinimum: 200, atMaximum: 404 },
  { parameter: 'iid', url: '/api/indicator.php?iid={}', atMinimum: 200, atMaximum: 404 },
  // The anonymous plan reads page 0 only: the last page the schema allows is past its allowance.
  { parameter: 'page', url: '/api/threat.php?tid=1&get=links&page={}', atMinimum: 200, atMaximum: 403 },
  { parameter: 'pretty', url: '/api/threat.php?tid=1&pretty={}', atMinimum: 200, atMaximum: 200 },
  { parameter: 'explore-limit', url: '/api/explore.php?q=zeus&limit={}', atMinimum: 200, atMaximum: 200 },
  { parameter: 'export-max', url: `/export/${INDICATORS_COLLECTION}.txt?max={}`, atMinimum: 200, atMaximum: 200, auth: 'pro' },
  { parameter: 'runs-limit', url: '/admin/api/feeds/1/runs?limit={}', atMinimum: 200, atMaximum: 200, auth: 'admin' },
];

describe('the OpenAPI document\u2019s parameter bounds', () => {
  let ctx: TestContext;
  let doc: Json;
  let adminKey: string;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    doc = JSON.parse((await request(ctx.app).get('/openapi.json').expect(200)).text);
    adminKey = (await createAdminKey(ctx.store, fixedClock, 'bounds')).key;
  });
  after(() => ctx?.close());

  const send = (c: Bounded, value: number | bigint) => {
    const req = request(ctx.app).get(c.url.replace('{}', String(value)));
    if (c.auth === 'pro') return req.set('Authorization', basicAuth(ctx.keys.pro!));
    if (c.auth === 'admin') return req.set('Authorization', `Bearer ${adminKey}`);
    return req;
  };

  for (const c of BOUNDED) {
    describe(`${c.parameter} \u203a ${c.url}`, () => {
      const bounds = () => {
        const schema = doc.components.parameters[c.parameter].schema as Json;
        assert.equal(schema.type, 'integer');
        return { minimum: BigInt(schema.minimum), maximum: BigInt(schema.maximum) };
      };
      it(`answers ${c.atMinimum} at the minimum and ${c.atMaximum} at the maximum`, async () => {
        const { minimum, maximum } = bounds();
        assert.equal((await send(c, minimum)).status, c.atMinimum);
        assert.equal((await send(c, maximum)).status, c.atMaximum);
      });
      it('answers 400 just below the minimum and just above the maximum', async () => {
        const { minimum, maximum } = bounds();
        assert.equal((await send(c, minimum - 1n)).status, 400);
        assert.equal((await send(c, maximum + 1n)).status, 400);
      });
    });
  }

  it('TAXII limit \u203a the minimum is a page of one, below it a 400 (above the maximum is lowered, not refused)', async () => {
    const minimum = doc.components.parameters.limit.schema.minimum as number;
    const get = (limit: number) =>
      request(ctx.app).get(`${collectionPath(INDICATORS_COLLECTION)}objects/?limit=${limit}`).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept', TAXII_TYPE);
    const page = await get(minimum).expect(200);
    assert.equal(page.body.objects.length, 1);
    await get(minimum - 1).expect(400);
  });
});
