// The store contract: every backend (SQLite, and PostgreSQL when TEST_DATABASE_URL is set) behaves the same.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { fixedClock } from '../helpers/test-app.js';
import { linkedIndicators } from '../helpers/expected-aggregates.js';
import { storeBackends, storeOptions } from '../helpers/store-backends.js';

const config = loadConfig();
const ALL = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';

for (const backend of storeBackends()) {
  describe(`the store on ${backend.name}`, () => {
    let store: Store;
    let location: string;
    before(async () => {
      ({ store, location } = await backend.create({ collections: config.collections }));
      await importDataset(store, buildFixture(), fixedClock);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    it('is ready and migrated', async () => {
      await store.checkReady();
      assert.equal(await store.isEmpty(), false);
    });

    it('finds threats by id, by name and by other name, case-insensitively', async () => {
      assert.equal((await store.findThreat(1))?.threat, 'Zeus');
      assert.equal((await store.findThreatByName('ZBOT'))?.tid, 1);
      assert.equal(await store.findThreat(99), undefined);
      assert.deepEqual((await store.findRelatedThreats([3, 2, 77])).map((r) => r.tid), [3, 2]);
    });

    it('finds feeds by id and by name and organization', async () => {
      assert.equal((await store.findFeed(2))?.feed, "O'Brien Sinkhole");
      assert.equal((await store.findFeedByName('botnet c&c (ipv4)', 'EXAMPLE LABS, INC.'))?.fid, 1);
      assert.equal((await store.findFeed(1))?.indicators.total, 23);
    });

    it('pages links by iid with a look-ahead row', async () => {
      const expected = linkedIndicators(buildFixture(), { fid: 1 }).map((i) => i.iid);
      const pages = [];
      for (let page = 0; page < 5; page++) pages.push(await store.findLinksPage({ kind: 'feed', fid: 1 }, page, 5));
      assert.deepEqual(pages.flatMap((p) => p.rows.map((r) => r.iid)), expected);
      assert.deepEqual(pages.map((p) => p.more), [true, true, true, true, false]);
      assert.equal((await store.findLinksPage({ kind: 'feed', fid: 42 }, 0, 5)).found, false);
    });

    it('takes the later of two copies of a link, and a record given twice once, in one file, over many batches', async () => {
      const data = buildFixture();
      const link = data.links.find((l) => 'fid' in l && l.fid === 1)!;
      const indicator = data.indicators.find((i) => i.iid === link.iid)!;
      // The copies are far apart: each lands in another INSERT batch.
      const filler = Array.from({ length: 900 }, () => ({ ...link }));
      data.links.push(...filler, { ...link, stamp_linked: '2026-06-01 00:00:00' }, ...filler, { ...link, stamp_linked: '2026-07-01 00:00:00' });
      // A record given again must be the same record (another one is refused: test/import).
      data.indicators.push({ ...indicator }, { ...indicator });
      await importDataset(store, data, fixedClock);
      const page = await store.findLinksPage({ kind: 'feed', fid: 1 }, 0, 1000);
      const row = page.rows.find((r) => r.iid === link.iid)!;
      assert.equal(row.stamp_linked, '2026-07-01 00:00:00');
      assert.equal(row.risk, indicator.risk);
      await importDataset(store, buildFixture(), fixedClock);
    });

    it('creates, finds, lists and revokes keys by hash', async () => {
      await store.insertKey({ id: 'k_000000000001', hash: 'a'.repeat(64), plan: 'pro', label: 'contract', created_at: '2026-01-01 00:00:00' });
      assert.equal((await store.findKeyByHash('a'.repeat(64)))?.plan, 'pro');
      assert.equal(await store.revokeKey({ hash: 'a'.repeat(64) }, '2026-01-02 00:00:00'), 'k_000000000001');
      assert.equal(await store.revokeKey({ id: 'k_000000000001' }, '2026-01-03 00:00:00'), undefined);
      assert.equal((await store.listKeys()).find((k) => k.id === 'k_000000000001')?.revoked_at, '2026-01-02 00:00:00');
    });

    it('changes nothing on a re-import of the same data', async () => {
      const summary = await importDataset(store, buildFixture(), { now: () => fixedClock.now() + 1000 });
      assert.deepEqual(summary.changed, { threats: 0, feeds: 0, indicators: 0, links: 0 });
    });

    it('keeps nothing of an import that fails part-way', async () => {
      const data = buildFixture();
      data.indicators[3]!.risk = 'critical';
      data.links.push({ iid: 4, tid: 999, stamp_linked: '2025-01-01 00:00:00' });
      await assert.rejects(importDataset(store, data, fixedClock), /links\[43\]: link tid: no threat with tid 999/);
      const page = await store.findLinksPage({ kind: 'feed', fid: 1 }, 0, 5);
      assert.equal(page.rows.find((r) => r.iid === 4)?.risk, buildFixture().indicators[3]!.risk);
    });

    it('lists collection objects in date_added order with keyset continuation', async () => {
      const first = await store.listCollectionObjects({ collection: { id: ALL, filter: {} }, after: null, addedAfter: null, ids: null, types: null, modified: null, limit: 10, withBody: true });
      assert.equal(first.items.length, 10);
      assert.equal(first.more, true);
      const last = first.items.at(-1)!;
      const second = await store.listCollectionObjects({ collection: { id: ALL, filter: {} }, after: { dateAdded: last.dateAdded, id: last.id }, addedAfter: null, ids: null, types: null, modified: null, limit: 1000, withBody: false });
      const all = [...first.items, ...second.items];
      assert.equal(new Set(all.map((o) => o.id)).size, all.length);
      for (let i = 1; i < all.length; i++) assert.ok(all[i]!.dateAdded > all[i - 1]!.dateAdded);
      assert.equal(JSON.parse(first.items[0]!.body!).spec_version, '2.1');
      assert.equal(all.filter((o) => o.type === 'indicator').length, 30);
    });

    it('shares one next-token secret between two instances on the same database', async () => {
      const other = await openStore(location, storeOptions());
      try {
        assert.equal(await other.nextTokenSecret(), await store.nextTokenSecret());
      } finally {
        await other.close();
      }
    });
  });
}
