// The query string is parsed once per request, however many parameters the handlers read.
import assert from 'node:assert/strict';
import { parse } from 'node:querystring';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';

describe('query parsing', () => {
  let ctx: TestContext;
  let parses = 0;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    // Express's default ("simple") parser, counted.
    ctx.app.set('query parser', (text: string) => {
      parses++;
      return parse(text);
    });
  });
  after(() => ctx.close());

  it('parses once per request, and each request gets its own parameters', async () => {
    parses = 0;
    const first = await request(ctx.app).get(`/api/feed.php?fid=1&get=links&page=0&pretty=1&key=${ctx.keys.business}`).expect(200);
    assert.equal(parses, 1);
    assert.equal(first.body.page_current, 0);
    assert.match(first.text, /\n {2}"/);
    const second = await request(ctx.app).get('/api/threat.php?tid=2').expect(200);
    assert.equal(parses, 2);
    assert.equal(second.body.tid, 2);
    assert.doesNotMatch(second.text, /\n/);
  });
});
