// Full walks of each collection at several limits (TAXII 2.1 section 3.4): each object once, in date_added order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { buildFixture } from '../helpers/fixture.js';
import { collectionPath, INDICATORS_COLLECTION, TAXII_TYPE, TEST_COLLECTION, taxiiGet, walk, type Page } from './taxii-request.js';

interface Entry {
  id: string;
  date_added: string;
}

const LIMITS = [1, 7, 52, 53, 100];

/** Every page is non-empty, carries headers equal to its first and last item, and only the last has more: false. */
function assertWellFormedWalk(pages: Page[], dateOf: Map<string, string>, limit: number): string[] {
  const ids: string[] = [];
  pages.forEach((page, i) => {
    const items = (page.body.objects ?? []) as { id: string }[];
    const isLast = i === pages.length - 1;
    assert.ok(items.length > 0, `page ${i} is empty`);
    assert.ok(items.length <= limit, `page ${i} has ${items.length} items, above the limit ${limit}`);
    if (!isLast) assert.equal(items.length, limit, `page ${i} is short but not the last`);
    assert.equal(page.body.more, !isLast, `page ${i}: more`);
    assert.equal('next' in page.body, !isLast, `page ${i}: next`);
    assert.equal(page.first, dateOf.get(items[0]!.id), `page ${i}: X-TAXII-Date-Added-First`);
    assert.equal(page.last, dateOf.get(items.at(-1)!.id), `page ${i}: X-TAXII-Date-Added-Last`);
    ids.push(...items.map((item) => item.id));
  });
  return ids;
}

describe('Walking a TAXII collection with next', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  for (const [name, id] of [
    ['the test collection', TEST_COLLECTION],
    ['the Indicators collection', INDICATORS_COLLECTION],
  ] as const) {
    describe(name, () => {
      const base = collectionPath(id);
      let reference: Entry[];
      let dateOf: Map<string, string>;
      before(async () => {
        const res = await taxiiGet(ctx.app, `${base}manifest/?limit=1000`, ctx.keys.pro!).expect(200);
        assert.equal(res.body.more, false);
        reference = res.body.objects;
        dateOf = new Map(reference.map((e) => [e.id, e.date_added]));
      });

      it('holds many objects of one import second, with unique, strictly ascending date_added', () => {
        assert.ok(reference.length > 50, `only ${reference.length} objects`);
        assert.equal(dateOf.size, reference.length);
        assert.ok(reference.every((e) => e.date_added.startsWith('2026-01-15T10:00:00.')), 'all in one second');
        for (let i = 1; i < reference.length; i++) assert.ok(reference[i - 1]!.date_added < reference[i]!.date_added, `at ${i}`);
      });

      for (const endpoint of ['objects', 'manifest']) {
        for (const limit of LIMITS) {
          it(`GET .../${endpoint}/ at limit ${limit} walks every object exactly once in ascending date_added`, async () => {
            const pages = await walk(ctx.app, ctx.keys.pro!, `${base}${endpoint}/?limit=${limit}`);
            const ids = assertWellFormedWalk(pages, dateOf, limit);
            assert.equal(new Set(ids).size, ids.length, 'an object came twice');
            assert.deepEqual(ids, reference.map((e) => e.id));
            assert.equal(pages.length, Math.ceil(reference.length / limit));
          });
        }
      }

      it('the objects and the manifest list the same versions', async () => {
        const objects = await taxiiGet(ctx.app, `${base}objects/?limit=1000`, ctx.keys.pro!).expect(200);
        const manifest = await taxiiGet(ctx.app, `${base}manifest/?limit=1000`, ctx.keys.pro!).expect(200);
        assert.deepEqual(
          objects.body.objects.map((o: { id: string; modified: string }) => [o.id, o.modified]),
          manifest.body.objects.map((e: { id: string; version: string }) => [e.id, e.version]),
        );
      });
    });
  }

  describe('an empty result', () => {
    for (const query of ['added_after=2030-01-01T00:00:00Z', 'match[type]=campaign', 'match[spec_version]=2.0']) {
      for (const endpoint of ['objects', 'manifest']) {
        it(`GET .../${endpoint}/?${query} is exactly {"more":false} without date headers`, async () => {
          const res = await taxiiGet(ctx.app, `${collectionPath(INDICATORS_COLLECTION)}${endpoint}/?${query}`, ctx.keys.pro!).expect(200);
          assert.equal(res.headers['content-type'], TAXII_TYPE);
          assert.equal(res.text, '{"more":false}');
          assert.equal(res.headers['x-taxii-date-added-first'], undefined);
          assert.equal(res.headers['x-taxii-date-added-last'], undefined);
        });
      }
    }
  });
});

describe('TAXII page sizes', () => {
  describe('with more than 1000 objects and the default configuration', () => {
    let ctx: TestContext;
    const base = collectionPath(INDICATORS_COLLECTION);
    before(async () => {
      const data = buildFixture();
      const template = data.indicators[0]!;
      for (let iid = 31; iid <= 1100; iid++) data.indicators.push({ ...template, iid, indicator: `203.0.${iid >> 8}.${iid & 255}` });
      ctx = await createTestContext({ overrides: GENEROUS_PLANS, data });
    });
    after(() => ctx.close());

    it('answers 100 objects and more: true without limit', async () => {
      const res = await taxiiGet(ctx.app, `${base}objects/`, ctx.keys.pro!).expect(200);
      assert.equal(res.body.objects.length, 100);
      assert.equal(res.body.more, true);
    });

    it('caps limit=5000 at 1000 objects', async () => {
      const res = await taxiiGet(ctx.app, `${base}manifest/?limit=5000`, ctx.keys.pro!).expect(200);
      assert.equal(res.body.objects.length, 1000);
      assert.equal(res.body.more, true);
    });

    it('walks all of them at limit 1000', async () => {
      const pages = await walk(ctx.app, ctx.keys.pro!, `${base}manifest/?limit=1000`);
      const ids = pages.flatMap((p) => (p.body.objects ?? []).map((o) => o.id as string));
      assert.equal(pages.length, 2);
      assert.equal(new Set(ids).size, 1100 + 3 + 3 + 17);
    });
  });

  describe('with taxii.defaultLimit 4 and taxii.maxLimit 6 configured', () => {
    let ctx: TestContext;
    const base = collectionPath(INDICATORS_COLLECTION);
    before(async () => {
      ctx = await createTestContext({ overrides: { ...GENEROUS_PLANS, taxii: { defaultLimit: 4, maxLimit: 6 } } });
    });
    after(() => ctx.close());

    for (const [query, expected] of [
      ['', 4],
      ['?limit=5', 5],
      ['?limit=6', 6],
      ['?limit=100', 6],
    ] as const) {
      it(`GET .../objects/${query} answers ${expected} objects`, async () => {
        const res = await taxiiGet(ctx.app, `${base}objects/${query}`, ctx.keys.pro!).expect(200);
        assert.equal(res.body.objects.length, expected);
      });
    }

    it('keeps the cap while following next', async () => {
      const pages = await walk(ctx.app, ctx.keys.pro!, `${base}objects/?limit=100`);
      assert.ok(pages.slice(0, -1).every((p) => p.body.objects!.length === 6), 'a page is not of 6 objects');
    });
  });
});
