// The lookup response cache: bodies are reused until the data version changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { ResponseCache } from '../../src/http/response-cache.js';
import { importDataset } from '../../src/import/import-file.js';
import { createTestContext, fixedClock, GENEROUS_PLANS, type TestContext } from '../helpers/test-app.js';

describe('ResponseCache', () => {
  it('builds once per key and data version, and rebuilds after the version changes', async () => {
    let version = 'v1';
    let now = 0;
    let builds = 0;
    const cache = new ResponseCache(async () => version, { now: () => now }, { maxEntries: 10, versionCheckMs: 1000 });
    const build = async () => `body-${++builds}`;
    assert.equal(await cache.get('a', build), 'body-1');
    assert.equal(await cache.get('a', build), 'body-1');
    version = 'v2';
    now = 500;
    assert.equal(await cache.get('a', build), 'body-1', 'the version is trusted for versionCheckMs');
    now = 1500;
    assert.equal(await cache.get('a', build), 'body-2');
  });

  it('does not keep an undefined body (not found)', async () => {
    let builds = 0;
    const cache = new ResponseCache(async () => 'v', fixedClock, { maxEntries: 10, versionCheckMs: 0 });
    await cache.get('missing', async () => (builds++, undefined));
    await cache.get('missing', async () => (builds++, undefined));
    assert.equal(builds, 2);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    let builds = 0;
    const cache = new ResponseCache(async () => 'v', fixedClock, { maxEntries: 2, versionCheckMs: 1000 });
    const build = async () => `b${++builds}`;
    await cache.get('a', build);
    await cache.get('b', build);
    await cache.get('a', build);
    await cache.get('c', build);
    assert.equal(await cache.get('a', build), 'b1');
    assert.equal(await cache.get('b', build), 'b4', 'b was the least recently used and was evicted');
  });

  it('evicts the least recently used entries beyond maxMegabytes of text', async () => {
    const cache = new ResponseCache(async () => 'v', fixedClock, { maxEntries: 100, maxMegabytes: 1, versionCheckMs: 1000 });
    const half = 'x'.repeat(512 * 1024 - 1);
    let builds = 0;
    const build = (text: string) => async () => `${++builds}${text}`;
    await cache.get('a', build(half));
    await cache.get('b', build(half));
    assert.equal(builds, 2);
    await cache.get('a', build(half));
    assert.equal(builds, 2, 'two halves fit in 1 MB');
    await cache.get('c', build(half));
    await cache.get('a', build(half));
    assert.equal(builds, 3, 'a, used last, was kept');
    await cache.get('b', build(half));
    assert.equal(builds, 4, 'b was evicted to make room for c');
  });

  describe('peek and has (the fast path reads at once)', () => {
    it('peek gives a kept body at once and counts it as get does; undefined, counting nothing, before the version is read or for a missing key', async () => {
      let now = 0;
      let reads = 0;
      const counts = { hit: 0, miss: 0 };
      const cache = new ResponseCache(async () => (reads++, 'v'), { now: () => now }, { maxEntries: 10, versionCheckMs: 1000 }, undefined, {
        hit: () => counts.hit++,
        miss: () => counts.miss++,
      });
      assert.equal(cache.peek('a'), undefined, 'no version read yet');
      assert.equal(reads, 0, 'peek reads no version');
      assert.equal(await cache.get('a', async () => 'body'), 'body');
      assert.deepEqual(counts, { hit: 0, miss: 1 });
      assert.equal(cache.peek('a'), 'body');
      assert.equal(cache.peek('b'), undefined);
      assert.deepEqual(counts, { hit: 1, miss: 1 }, 'a hit counted; the missing key counted nothing (its get counts the miss)');
      assert.equal(cache.has('a'), true, 'has answers at once while the version is fresh');
      now = 5000;
      assert.equal(cache.peek('a'), undefined, 'a version too old to trust: get must read it again');
      const asked = cache.has('a');
      assert.ok(asked instanceof Promise, 'has waits for the version read');
      assert.equal(await asked, true);
      assert.equal(reads, 2);
    });

    it('peek starts no version read, so a failing read is only ever seen by the get that waits for it', async () => {
      const cache = new ResponseCache<string>(async () => {
        throw new Error('store down');
      }, fixedClock, { maxEntries: 10, versionCheckMs: 0 });
      assert.equal(cache.peek('a'), undefined);
      await assert.rejects(cache.get('a', async () => 'body'), /store down/);
    });
  });

  describe('admitOnRepeat', () => {
    it('keeps a body from its key\'s second request on', async () => {
      let builds = 0;
      const cache = new ResponseCache(async () => 'v', fixedClock, { maxEntries: 10, versionCheckMs: 1000, admitOnRepeat: true });
      const build = async () => `b${++builds}`;
      assert.equal(await cache.get('a', build), 'b1');
      assert.equal(await cache.get('a', build), 'b2', 'the first body was not kept');
      assert.equal(await cache.get('a', build), 'b2', 'the second was');
      assert.equal(builds, 2);
    });

    it('keeps nothing of a walk that asks for each key once, and the bodies asked for again stay', async () => {
      let builds = 0;
      const cache = new ResponseCache(async () => 'v', fixedClock, { maxEntries: 4, maxMegabytes: 1, versionCheckMs: 1000, admitOnRepeat: true });
      const build = async () => `${++builds}${'x'.repeat(100 * 1024)}`;
      await cache.get('tail', build);
      await cache.get('tail', build);
      for (let page = 0; page < 50; page++) await cache.get(`page ${page}`, build);
      const before = builds;
      await cache.get('tail', build);
      assert.equal(builds, before, 'the walk of 5 MB of pages did not push the kept body out of 1 MB');
    });

    it('remembers at most maxEntries keys, forgetting the oldest', async () => {
      let builds = 0;
      const cache = new ResponseCache(async () => 'v', fixedClock, { maxEntries: 2, versionCheckMs: 1000, admitOnRepeat: true });
      const build = async () => `b${++builds}`;
      for (const key of ['a', 'b', 'c']) await cache.get(key, build);
      assert.equal(await cache.get('a', build), 'b4', 'a was forgotten: asked for again, it is only remembered');
      assert.equal(await cache.get('a', build), 'b5');
      assert.equal(await cache.get('c', build), 'b6', 'c was still remembered: kept now');
      assert.equal(await cache.get('a', build), 'b5');
      assert.equal(await cache.get('c', build), 'b6');
    });

    it('remembers a key across a change of the data version', async () => {
      let version = 'v1';
      let now = 0;
      let builds = 0;
      const cache = new ResponseCache(async () => version, { now: () => now }, { maxEntries: 10, versionCheckMs: 0, admitOnRepeat: true });
      const build = async () => `${version}-${++builds}`;
      assert.equal(await cache.get('a', build), 'v1-1');
      version = 'v2';
      now = 1;
      assert.equal(await cache.get('a', build), 'v2-2');
      assert.equal(await cache.get('a', build), 'v2-2', 'kept on the second request, which came after the change');
    });
  });
});

describe('GET /api/threat.php after an import that changes the threat', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: GENEROUS_PLANS });
  });
  after(() => ctx.close());

  it('answers with the new data, not a cached body', async () => {
    const before = await request(ctx.app).get('/api/threat.php?tid=2').expect(200);
    assert.equal(before.body.risk, 'critical');
    const data = ctx.data;
    data.threats[1]!.risk = 'medium';
    await importDataset(ctx.store, { threats: [data.threats[1]], feeds: [], indicators: [], links: [] }, { now: () => fixedClock.now() + 60_000 });
    const afterImport = await request(ctx.app).get('/api/threat.php?tid=2').expect(200);
    assert.equal(afterImport.body.risk, 'medium');
    const related = await request(ctx.app).get('/api/threat.php?tid=1').expect(200);
    assert.equal(related.body.related.find((r: { tid: number }) => r.tid === 2).risk, 'medium');
  });
});
