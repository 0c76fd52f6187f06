// `next` tokens keep the page size of the walk's first request (TAXII 2.1 section 3.4), as they keep its filters.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTestContext, GENEROUS_PLANS, TEST_NEXT_SECRET, type TestContext } from '../helpers/test-app.js';
import { assertTaxiiError, collectionPath, INDICATORS_COLLECTION, taxiiGet } from './taxii-request.js';

const C = collectionPath(INDICATORS_COLLECTION);
/** Small, so that a walk falling back to it is told apart from one that kept its own limit. */
const DEFAULT_LIMIT = 5;

const ids = (body: { objects?: unknown[] }) => (body.objects ?? []).map((o) => (o as { id: string }).id);

/** A payload signed with the test secret, as this server signs its tokens. */
function signed(fields: unknown[]): string {
  const payload = Buffer.from(JSON.stringify(fields)).toString('base64url');
  return `${payload}.${createHmac('sha256', TEST_NEXT_SECRET).update(payload).digest().subarray(0, 16).toString('base64url')}`;
}

const fieldsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as unknown[];

describe('TAXII next tokens and limit', () => {
  let ctx: TestContext;
  let all: string[];
  before(async () => {
    ctx = await createTestContext({ overrides: { ...GENEROUS_PLANS, taxii: { defaultLimit: DEFAULT_LIMIT } } });
    all = ids((await taxiiGet(ctx.app, `${C}objects/?limit=1000`, ctx.keys.pro!).expect(200)).body);
    assert.ok(all.length > 30, `only ${all.length} objects`);
  });
  after(() => ctx.close());

  const get = (query: string, endpoint = 'objects') => taxiiGet(ctx.app, `${C}${endpoint}/?${query}`, ctx.keys.pro!).expect(200);
  const nextOf = (body: { next?: string }) => `next=${encodeURIComponent(body.next!)}`;

  for (const endpoint of ['objects', 'manifest']) {
    describe(`GET .../${endpoint}/ › following next without limit`, () => {
      it('keeps the page size of the first request on every page', async () => {
        let res = await get('limit=7', endpoint);
        const sizes = [ids(res.body).length];
        const seen = ids(res.body);
        while (res.body.more) {
          res = await get(nextOf(res.body), endpoint);
          sizes.push(ids(res.body).length);
          seen.push(...ids(res.body));
        }
        assert.deepEqual(seen, all);
        assert.ok(sizes.length > 2, `only ${sizes.length} pages`);
        assert.ok(sizes.slice(0, -1).every((size) => size === 7), `page sizes ${sizes.join(', ')}`);
        assert.ok(sizes.at(-1)! >= 1 && sizes.at(-1)! <= 7, `last page of ${sizes.at(-1)}`);
      });
    });
  }

  describe('GET .../objects/ › following next with another limit', () => {
    it('serves the limit sent with next, and the next token issued then carries it on', async () => {
      const first = await get('limit=3');
      const second = await get(`${nextOf(first.body)}&limit=6`);
      assert.deepEqual(ids(second.body), all.slice(3, 9));
      const third = await get(nextOf(second.body));
      assert.deepEqual(ids(third.body), all.slice(9, 15));
    });

    it('caps the limit sent with next at taxii.maxLimit, as on a first request', async () => {
      const first = await get('limit=2');
      const rest = await get(`${nextOf(first.body)}&limit=999999`);
      assert.deepEqual(ids(rest.body), all.slice(2));
      assert.equal(rest.body.more, false);
    });
  });

  describe('GET .../objects/ › following next from a first request without limit', () => {
    it('uses taxii.defaultLimit throughout', async () => {
      const first = await get('');
      const second = await get(nextOf(first.body));
      assert.deepEqual([ids(first.body).length, ids(second.body).length], [DEFAULT_LIMIT, DEFAULT_LIMIT]);
      assert.deepEqual(ids(second.body), all.slice(DEFAULT_LIMIT, 2 * DEFAULT_LIMIT));
    });
  });

  describe('GET .../objects/ › with a token issued before tokens carried limit (8 fields)', () => {
    it('continues the walk at taxii.defaultLimit instead of answering 400', async () => {
      const current = fieldsOf((await get('limit=4&match[type]=indicator')).body.next);
      const old = signed(current.slice(0, 8));
      const res = await get(`next=${encodeURIComponent(old)}`);
      const indicators = all.filter((id) => id.startsWith('indicator--'));
      assert.deepEqual(ids(res.body), indicators.slice(4, 4 + DEFAULT_LIMIT));
      assert.equal(res.body.more, true);
      // The walk goes on with a current token.
      assert.equal(fieldsOf(res.body.next).length, 9);
    });

    it('honours a limit sent with it', async () => {
      const old = signed(fieldsOf((await get('limit=4')).body.next).slice(0, 8));
      assert.deepEqual(ids((await get(`next=${encodeURIComponent(old)}&limit=2`)).body), all.slice(4, 6));
    });
  });

  describe('GET .../objects/ › with a signed token whose limit is not a page size', () => {
    for (const [what, limit] of [
      ['zero', 0],
      ['negative', -3],
      ['a fraction', 2.5],
      ['a string', '4'],
    ] as const) {
      it(`answers 400 naming next when it is ${what}`, async () => {
        const fields = fieldsOf((await get('limit=4')).body.next);
        fields[8] = limit;
        const res = await taxiiGet(ctx.app, `${C}objects/?next=${encodeURIComponent(signed(fields))}`, ctx.keys.pro!);
        assertTaxiiError(res, 400);
        assert.match(res.body.description, /next/);
      });
    }
  });
});
