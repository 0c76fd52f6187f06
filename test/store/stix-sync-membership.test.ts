// The STIX sync of imports and configurations: which objects each saved view holds, and their date_added (both stores).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CollectionConfig } from '../../src/config.js';
import type { Indicator } from '../../src/domain.js';
import type { Store } from '../../src/store/contract/store.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { storeBackends, storeOptions } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import {
  actualView,
  ADDED_VIEWS,
  ALL,
  DOMAINS,
  EVERYTHING,
  expectedView,
  FEED_1,
  FEED_3,
  HIGH,
  maxDate,
  members,
  minute,
  only,
  SAMPLE,
  snapshot,
  sorted,
  storeWithViews,
  THREAT_2,
  VIEWS,
} from './stix-sync-views.js';
import { dbOf, openTestStore } from '../helpers/store-db.js';

for (const backend of storeBackends()) {
  describe(`STIX sync (${backend.name})`, () => {
    after(() => backend.cleanup());

    describe('collection membership', () => {
      let store: Store;
      let data: Dataset;
      before(async () => {
        ({ store, data } = await storeWithViews(backend));
      });
      after(() => store.close());

      const byIid = (pick: (i: Indicator) => boolean) => buildFixture().indicators.filter(pick).map((i) => i.iid);
      const fid = (n: number) => data.links.filter((l) => 'fid' in l && l.fid === n).map((l) => l.iid);
      const cases: [string, string, () => number[], number?][] = [
        ['the unfiltered view holds every indicator, threat link and threat, linked or not', ALL, () => byIid(() => true)],
        ['a sample of 5 holds the first 5 indicators by iid and what they link to', SAMPLE, () => [1, 2, 3, 4, 5]],
        ['a feed view holds the feed indicators and what they link to', FEED_1, () => fid(1)],
        ['a minRisk view holds high and critical indicators that are not retired', HIGH, () => byIid((i) => ['high', 'critical'].includes(i.risk) && !i.retired)],
        ['a threat view holds that threat, its indicators and only its relationships', THREAT_2, () => byIid((i) => [3, 6, 24, 25, 27].includes(i.iid)), 2],
      ];
      for (const [title, collection, iids, tid] of cases) {
        it(title, async () => {
          const list = await members(store, collection);
          assert.deepEqual(actualView(list), expectedView(data, iids(), tid, collection === ALL));
          assert.equal(list.filter((m) => m.type === 'identity').length, 3, 'threatgate and the two feed organizations');
        });
      }

      it('a view without indicators still lists the identities', async () => {
        assert.deepEqual(sorted((await members(store, FEED_3)).map((m) => m.type)), ['identity', 'identity', 'identity']);
      });

      for (const collection of [ALL, SAMPLE, FEED_1, HIGH, THREAT_2]) {
        it(`collection ${collection.slice(0, 8)}: date_added unique, in µs, the newest on a whole millisecond`, async () => {
          const list = await members(store, collection);
          assert.equal(new Set(list.map((m) => m.dateAdded)).size, list.length);
          assert.ok(list.every((m) => Number.isSafeInteger(m.dateAdded) && m.dateAdded >= fixedClock.now() * 1000), 'a date_added is not whole µs from the import');
          assert.equal(maxDate(list) % 1000, 0);
        });
      }

      it('a view serves the same stored object as the unfiltered view', async () => {
        const all = new Map((await members(store, ALL)).map((m) => [m.id, m.object]));
        for (const m of await members(store, HIGH)) assert.deepEqual(m.object, all.get(m.id));
      });
    });

    describe('a configuration that adds saved views', () => {
      let store: Store;
      let data: Dataset;
      const views: CollectionConfig[] = [...VIEWS, ...ADDED_VIEWS];
      let newest: number;
      let existing: Map<string, string>;
      before(async () => {
        ({ store, data } = await storeWithViews(backend));
        newest = Math.max(...(await Promise.all(VIEWS.map(async (v) => maxDate(await members(store, v.id))))));
        existing = await snapshot(store, ALL);
        assert.equal(await store.syncCollections(views, minute(1)), true);
      });
      after(() => store.close());

      it('rebuilds memberships once: the same configuration again changes nothing', async () => {
        assert.equal(await store.syncCollections(views, minute(2)), false);
      });

      it('fills a new filtered view, after every date_added already handed out', async () => {
        const domains = await members(store, DOMAINS);
        const iids = data.indicators.filter((i) => i.type === 'domain').map((i) => i.iid);
        assert.deepEqual(actualView(domains), expectedView(data, iids));
        assert.ok(domains.every((m) => m.dateAdded > newest), 'a member of the new view is dated before the views that existed');
      });

      it('fills a new unfiltered view with every object', async () => {
        const everything = await members(store, EVERYTHING);
        assert.deepEqual(sorted(everything.map((m) => m.id)), sorted(existing.keys()));
        assert.equal(new Set(everything.map((m) => m.dateAdded)).size, everything.length, 'two members share a date_added');
      });

      it('leaves the views that existed alone', async () => {
        assert.deepEqual(await snapshot(store, ALL), existing);
      });
    });

    describe('a filtered view that becomes unfiltered', () => {
      let store: Store;
      before(async () => {
        ({ store } = await storeWithViews(backend));
      });
      after(() => store.close());

      it('shows every object, each dated after every date_added already handed out', async () => {
        const newest = Math.max(...(await Promise.all(VIEWS.map(async (v) => maxDate(await members(store, v.id))))));
        const widened = VIEWS.map((v) => (v.id === FEED_1 ? { ...v, filter: {} } : v));
        assert.equal(await store.syncCollections(widened, minute(1)), true);
        const listing = { after: null, addedAfter: newest, ids: null, types: null, modified: null, limit: 100_000, withBody: false };
        const { items } = await store.listCollectionObjects({ ...listing, collection: { id: FEED_1, filter: {} } });
        const { items: everything } = await store.listCollectionObjects({ ...listing, addedAfter: null, collection: { id: ALL, filter: {} } });
        assert.equal(items.length, everything.length, 'a client resuming after the old newest date_added misses objects');
        assert.ok(everything.length > 30);
      });

      it('keeps no membership rows for it', async () => {
        const rows = await dbOf(store).selectFrom('collection_objects').select('id').where('collection', 'in', [FEED_1, ALL]).execute();
        assert.equal(rows.length, 0);
      });
    });

    // The import (a cron's pull or import) that runs under the new configuration before serve restarts
    // must not hide the change from serve's start-up: the reconciliation happens inside every write.
    describe('a filtered view that becomes unfiltered, with an import under the new configuration before serve starts', () => {
      let store: Store;
      let newest = 0;
      const widened = VIEWS.map((v) => (v.id === FEED_1 ? { ...v, filter: {} } : v));
      before(async () => {
        const first = await storeWithViews(backend);
        newest = Math.max(...(await Promise.all(VIEWS.map(async (v) => maxDate(await members(first.store, v.id))))));
        await first.store.close();
        store = await openTestStore(first.location, storeOptions({ collections: widened }));
        const [indicator] = buildFixture().indicators;
        await importDataset(store, only({ indicators: [{ ...indicator!, risk: indicator!.risk === 'low' ? 'medium' : 'low' }] }), minute(1));
        await store.syncCollections(widened, minute(2));
      });
      after(() => store.close());

      it('shows every object to a client resuming after the old newest date_added', async () => {
        const listing = { after: null, addedAfter: newest, ids: null, types: null, modified: null, limit: 100_000, withBody: false };
        const { items } = await store.listCollectionObjects({ ...listing, collection: { id: FEED_1, filter: {} } });
        const { items: everything } = await store.listCollectionObjects({ ...listing, addedAfter: null, collection: { id: ALL, filter: {} } });
        assert.equal(items.length, everything.length, 'a client resuming after the old newest date_added misses objects');
      });

      it('keeps no membership rows for it', async () => {
        const rows = await dbOf(store).selectFrom('collection_objects').select('id').where('collection', '=', FEED_1).execute();
        assert.equal(rows.length, 0);
      });
    });
  });
}
