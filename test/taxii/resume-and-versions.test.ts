// Pollers that resume from X-TAXII-Date-Added-Last (truncated or not) across imports, and new object versions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Indicator } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture } from '../helpers/fixture.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';
import { collectionPath, INDICATORS_COLLECTION, TEST_COLLECTION, taxiiGet, walk } from './taxii-request.js';

const C = collectionPath(INDICATORS_COLLECTION);

/** What some clients do with X-TAXII-Date-Added-Last before sending it back: keep milliseconds only. */
const toMilliseconds = (stamp: string) => new Date(stamp).toISOString();

const empty = { threats: [], feeds: [], indicators: [] as Indicator[], links: [] as { iid: number; fid: number; stamp_linked: string }[] };

function newIndicators(from: number, to: number): Indicator[] {
  const template = buildFixture().indicators[0]!;
  const out: Indicator[] = [];
  for (let iid = from; iid <= to; iid++) out.push({ ...template, iid, indicator: `192.0.2.${iid}` });
  return out;
}

describe('Resuming a TAXII poll', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  const manifestAfter = async (addedAfter: string) =>
    (await taxiiGet(ctx.app, `${C}manifest/?limit=1000&added_after=${addedAfter}`, ctx.keys.pro!).expect(200)).body.objects ?? [];

  describe('from X-TAXII-Date-Added-Last truncated to milliseconds, when the next import lands in the same second', () => {
    it('sees every new object and none it had already', async () => {
      for (const [from, to] of [
        [31, 45],
        [46, 50],
      ]) {
        const pages = await walk(ctx.app, ctx.keys.pro!, `${C}manifest/?limit=10`);
        const seen = new Set(pages.flatMap((p) => (p.body.objects ?? []).map((o) => o.id as string)));
        const last = pages.at(-1)!.last!;
        // Same fixed clock: the new objects get date_added values in the same second, right after the stored ones.
        await importDataset(ctx.store, { ...empty, indicators: newIndicators(from!, to!) }, fixedClock);
        const resumed = await manifestAfter(toMilliseconds(last));
        assert.equal(resumed.length, to! - from! + 1, `import ${from}..${to}`);
        assert.ok(resumed.every((e: { id: string }) => !seen.has(e.id)), 'an object already seen came again');
        assert.ok(resumed.every((e: { date_added: string }) => e.date_added.startsWith('2026-01-15T10:00:00.')), 'all in the same second');
      }
    });

    it('loses nothing when resuming from the last header of a page in the middle of a walk', async () => {
      const pages = await walk(ctx.app, ctx.keys.pro!, `${C}manifest/?limit=7`);
      const all = pages.flatMap((p) => (p.body.objects ?? []).map((o) => o.id as string));
      const middle = pages[2]!;
      const remaining = all.slice(3 * 7);
      const resumed = (await manifestAfter(toMilliseconds(middle.last!))).map((e: { id: string }) => e.id);
      for (const id of remaining) assert.ok(resumed.includes(id), `lost ${id}`);
    });
  });

  describe('while an import lands in the middle of a walk', () => {
    it('following next still gives every object exactly once, the new ones at the end', async () => {
      const before = await walk(ctx.app, ctx.keys.pro!, `${C}manifest/?limit=1000`);
      const old = before[0]!.body.objects!.map((o) => o.id as string);
      const first = await taxiiGet(ctx.app, `${C}manifest/?limit=9`, ctx.keys.pro!).expect(200);
      await importDataset(ctx.store, { ...empty, indicators: newIndicators(51, 60) }, fixedClock);
      const rest = await walk(ctx.app, ctx.keys.pro!, `${C}manifest/?limit=9&next=${encodeURIComponent(first.body.next)}`);
      const ids = [...first.body.objects, ...rest.flatMap((p) => p.body.objects ?? [])].map((o: { id: string }) => o.id);
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(ids.slice(0, old.length), old);
      assert.equal(ids.length, old.length + 10);
    });
  });
});

describe('Re-importing a changed indicator', () => {
  let ctx: TestContext;
  const changed = { ...buildFixture().indicators[4]!, risk: 'critical' as const, stamp_updated: '2025-12-01 00:00:00' };
  const later = { now: () => fixedClock.now() + 60_000 };
  const state = new Map<string, { last: string; version: string; id: string }>();

  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
    for (const collection of [TEST_COLLECTION, INDICATORS_COLLECTION]) {
      const pages = await walk(ctx.app, ctx.keys.pro!, `${collectionPath(collection)}objects/?limit=20`);
      const target = pages
        .flatMap((p) => p.body.objects ?? [])
        .find((o) => o.type === 'indicator' && (o as { pattern: string }).pattern.includes(`'${changed.indicator}'`))!;
      state.set(collection, { last: pages.at(-1)!.last!, version: target.modified as string, id: target.id as string });
    }
    await importDataset(ctx.store, { ...empty, indicators: [changed] }, later);
  });
  after(() => ctx.close());

  for (const [name, collection] of [
    ['the test collection', TEST_COLLECTION],
    ['the Indicators collection', INDICATORS_COLLECTION],
  ] as const) {
    describe(name, () => {
      const base = collectionPath(collection);

      for (const [how, stamp] of [
        ['its last X-TAXII-Date-Added-Last', (s: string) => s],
        ['that header truncated to milliseconds', toMilliseconds],
      ] as const) {
        it(`a poller resuming from ${how} sees the new version and only it`, async () => {
          const { last, version, id } = state.get(collection)!;
          const res = await taxiiGet(ctx.app, `${base}objects/?added_after=${stamp(last)}`, ctx.keys.pro!).expect(200);
          assert.equal(res.body.more, false);
          assert.equal(res.body.objects.length, 1);
          const [object] = res.body.objects;
          assert.equal(object.id, id);
          assert.equal(object.x_risk, 'critical');
          assert.ok(object.modified > version, `modified ${object.modified} is not after ${version}`);
          const first = String(res.headers['x-taxii-date-added-first']);
          assert.ok(first > last, `${first} is not after ${last}`);
        });
      }

      it('serves only the new version by id, in versions and in the manifest', async () => {
        const { id, version } = state.get(collection)!;
        const one = await taxiiGet(ctx.app, `${base}objects/${id}/`, ctx.keys.pro!).expect(200);
        assert.equal(one.body.objects.length, 1);
        const modified = one.body.objects[0].modified;
        assert.notEqual(modified, version);
        const versions = await taxiiGet(ctx.app, `${base}objects/${id}/versions/`, ctx.keys.pro!).expect(200);
        assert.deepEqual(versions.body.versions, [modified]);
        const manifest = await taxiiGet(ctx.app, `${base}manifest/?match[id]=${id}`, ctx.keys.pro!).expect(200);
        assert.equal(manifest.body.objects[0].version, modified);
        assert.equal(manifest.body.objects[0].date_added, one.headers['x-taxii-date-added-last']);
        const old = await taxiiGet(ctx.app, `${base}objects/${id}/?match[version]=${version}`, ctx.keys.pro!).expect(200);
        assert.equal(old.text, '{"more":false}');
      });

      it('a full walk lists the indicator once, at the end', async () => {
        const pages = await walk(ctx.app, ctx.keys.pro!, `${base}manifest/?limit=11`);
        const ids = pages.flatMap((p) => (p.body.objects ?? []).map((o) => o.id as string));
        const { id } = state.get(collection)!;
        assert.equal(ids.filter((x) => x === id).length, 1);
        assert.equal(ids.at(-1), id);
      });
    });
  }

  describe('and then the same data again', () => {
    it('adds nothing a poller would see', async () => {
      const last = (await taxiiGet(ctx.app, `${C}manifest/?limit=1000`, ctx.keys.pro!).expect(200)).headers['x-taxii-date-added-last'];
      await importDataset(ctx.store, { ...buildFixture(), indicators: buildFixture().indicators.map((i) => (i.iid === changed.iid ? changed : i)) }, { now: () => fixedClock.now() + 120_000 });
      const res = await taxiiGet(ctx.app, `${C}manifest/?added_after=${last}`, ctx.keys.pro!).expect(200);
      assert.equal(res.text, '{"more":false}');
    });
  });
});
