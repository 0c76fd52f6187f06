// Store.explore (docs/explore.md) on every backend: each filter kind through its index, and/or/not,
// paging newest first, wildcards with literal % and _, blocks inside ranges, attribute values kept
// current by a write, and a query stopped at its deadline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { exploreFilter, rangeOf } from '../../src/explore/explore-filters.js';
import { parseIpBlock } from '../../src/sources/normalize-value.js';
import { networkRangeOf } from '../../src/store/db/search-keys.js';
import type { ExploreResult, FeedFilter } from '../../src/store/contract/explore.js';
import type { Store } from '../../src/store/contract/store.js';
import { noBatches } from '../../src/store/contract/write-batch.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeBackends } from '../helpers/store-backends.js';
import { addFiller, exploreData, EXPLORE_NOW as NOW } from '../helpers/explore-data.js';

const PAGE = { offset: 0, limit: 100, maxMillis: 10_000 };

async function iids(store: Store, q: string, page: Partial<typeof PAGE> = {}): Promise<number[]> {
  const result = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', q, NOW), ...PAGE, ...page });
  assert.ok(!result.timedOut && result.mode === 'indicators', `${q}: ${JSON.stringify(result)}`);
  return result.rows.map((r) => r.iid);
}

async function tids(store: Store, q: string): Promise<number[]> {
  const result = await store.explore({ mode: 'threats', filter: exploreFilter('threats', q, NOW), ...PAGE });
  assert.ok(!result.timedOut && result.mode === 'threats');
  return result.rows.map((r) => r.tid);
}

describe('a stored address or block as its range', () => {
  // The store keys what it holds as explore's reader keys what it is asked: one encoding, two readers.
  for (const value of ['198.51.100.7', '198.51.100.7/24', '0.0.0.0/0', '255.255.255.255', '2001:db8::1', '2001:DB8::/32', '::', '::1', '::ffff:192.0.2.1', 'fe80::1:2:3:4:5', '1:2:3:4:5:6:7:8', '2001:db8::/128']) {
    it(`keys ${value} as explore's reader does`, () => assert.deepEqual(networkRangeOf(value), rangeOf(parseIpBlock(value)!)));
  }
  for (const value of ['evil.example', '198.51.100.7/33', '198.51.100.256', '2001:db8::/129', '1.2.3.4/8/9']) {
    it(`keys no range for ${value}`, () => assert.equal(networkRangeOf(value), undefined));
  }
});

for (const backend of storeBackends()) {
  describe(`Store.explore on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      ({ store } = await backend.create());
      await importDataset(store, exploreData(), fixedClock);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    describe('ioc', () => {
      it('finds a value exactly, and nothing for a value not stored', async () => {
        assert.deepEqual(await iids(store, 'ioc=evil.example'), [3]);
        assert.deepEqual(await iids(store, 'ioc=nowhere.example'), []);
      });
      it('finds an address and the stored blocks holding it', async () => {
        assert.deepEqual(await iids(store, 'ioc=198.51.100.7'), [7, 6]);
      });
      it('finds the addresses and blocks inside an IPv4 block, and not those outside', async () => {
        assert.deepEqual(await iids(store, 'ioc=198.51.0.0/16'), [7, 6]);
        assert.deepEqual(await iids(store, 'ioc=198.51.100.0/29'), [6]);
        assert.deepEqual(await iids(store, 'ioc=198.51.100.16/28'), []);
      });
      it('finds the addresses and blocks inside an IPv6 block', async () => {
        assert.deepEqual(await iids(store, 'ioc=2001:db8::/16'), [10, 9]);
        assert.deepEqual(await iids(store, 'ioc=2001:db8::/64'), [9]);
      });
      it('matches wildcards over the whole value, newest first', async () => {
        assert.deepEqual(await iids(store, 'ioc=*.evil.example'), [2, 1]);
        assert.deepEqual(await iids(store, 'ioc=login*'), [1]);
        assert.deepEqual(await iids(store, 'evil'), [11, 3, 2, 1]);
      });
      it('takes % and _ in a wildcard value literally', async () => {
        assert.deepEqual(await iids(store, 'ioc=100%_off*'), [4]);
        assert.deepEqual(await iids(store, 'ioc=a_b*'), [12]);
        assert.deepEqual(await iids(store, 'ioc=*%_off*'), [4]);
      });
    });

    it('selects by type, with type=cidr the stored blocks', async () => {
      assert.deepEqual(await iids(store, 'type=url'), [11]);
      assert.deepEqual(await iids(store, 'type=ipv6'), [10, 9]);
      assert.deepEqual(await iids(store, 'type=cidr'), [10, 7]);
    });

    it('selects by risk, a retired indicator as retired whatever its last risk', async () => {
      assert.deepEqual(await iids(store, 'risk>=critical'), [6]);
      assert.deepEqual(await iids(store, 'risk=retired'), [8]);
      assert.deepEqual(await iids(store, 'risk=low'), [3]);
      assert.deepEqual(await iids(store, 'retired=true'), [8]);
    });

    it('selects by stamps, as dates and as ages', async () => {
      assert.deepEqual(await iids(store, 'seen>2d'), [2]);
      assert.deepEqual(await iids(store, 'added<2025-12-01'), [3]);
      assert.deepEqual(await iids(store, 'added=2025-06-01'), [3]);
    });

    it('selects by threat name, other name and wildcard, and by feed', async () => {
      assert.deepEqual(await iids(store, 'threat="Cobalt Strike"'), [11, 1]);
      assert.deepEqual(await iids(store, 'threat=BEACON'), [11, 1]);
      assert.deepEqual(await iids(store, 'threat=cobalt*'), [11, 1]);
      assert.deepEqual(await iids(store, 'feed=urlhaus'), [11, 3, 2, 1]);
      assert.deepEqual(await iids(store, 'feed=*feodo*'), [7, 6]);
    });

    it('selects by attribute value, named or any, exactly or by wildcard, ignoring case', async () => {
      assert.deepEqual(await iids(store, 'attribute.port=443'), [1]);
      assert.deepEqual(await iids(store, 'attribute.port=80'), []);
      assert.deepEqual(await iids(store, 'attribute=NGINX'), [1]);
      assert.deepEqual(await iids(store, 'attribute.technology=ngi*'), [1]);
    });

    it('joins terms with and, or and not', async () => {
      assert.deepEqual(await iids(store, 'feed=urlhaus and type=domain and not risk=high'), [3, 2]);
      assert.deepEqual(await iids(store, 'threat=emotet or type=url'), [11, 6]);
      assert.deepEqual(await iids(store, 'not type=domain and not type=ip'), [11, 10, 9]);
    });

    it('pages newest first, saying whether more rows follow', async () => {
      const first = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', 'type=domain', NOW), ...PAGE, limit: 3 });
      const last = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', 'type=domain', NOW), ...PAGE, offset: 6, limit: 3 });
      assert.ok(first.timedOut !== true && last.timedOut !== true);
      assert.deepEqual([first.rows.map((r) => (r as { iid: number }).iid), first.more], [[13, 12, 5], true]);
      assert.deepEqual([last.rows.map((r) => (r as { iid: number }).iid), last.more], [[1], false]);
    });

    it('gives each indicator row its threats and feeds by name', async () => {
      const result = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', 'ioc=login.evil.example', NOW), ...PAGE });
      assert.ok(result.timedOut !== true && result.mode === 'indicators');
      assert.deepEqual(result.rows[0], {
        iid: 1, indicator: 'login.evil.example', type: 'domain', risk: 'high', stamp_added: '2026-01-01 00:00:00', stamp_updated: '2026-01-02 00:00:00',
        stamp_seen: '2026-03-01 00:00:00', stamp_retired: null, threats: ['Cobalt Strike'], feeds: ['URLhaus'],
      });
    });

    describe('threats', () => {
      it('select by technique, a technique matching its sub-techniques', async () => {
        assert.deepEqual(await tids(store, 'ttp=T1059'), [2, 1]);
        assert.deepEqual(await tids(store, 'ttp=T1059.001'), [1]);
      });
      it('select by name, category, retirement and the feeds listing their indicators', async () => {
        assert.deepEqual(await tids(store, 'beacon'), [1]);
        assert.deepEqual(await tids(store, 'category=botnet'), [2]);
        assert.deepEqual(await tids(store, 'retired=true'), [3]);
        assert.deepEqual(await tids(store, 'feed=*feodo*'), [2]);
      });
      it('carry other names and how many indicators are linked', async () => {
        const result = await store.explore({ mode: 'threats', filter: exploreFilter('threats', 'threat=beacon', NOW), ...PAGE });
        assert.ok(result.timedOut !== true && result.mode === 'threats');
        assert.deepEqual([result.rows[0]?.othernames, result.rows[0]?.indicators], [['Beacon'], 2]);
      });
    });

    it('finds feeds by name and category', async () => {
      const feeds = async (filter: FeedFilter) => {
        const result = await store.explore({ mode: 'feeds', filter, ...PAGE });
        assert.ok(result.timedOut !== true && result.mode === 'feeds');
        return result.rows.map((r) => [r.fid, r.indicators]);
      };
      assert.deepEqual(await feeds({ name: { like: '%haus%' }, categories: null }), [[1, 4]]);
      assert.deepEqual(await feeds({ name: null, categories: ['botnet'] }), [[2, 2]]);
    });

    it('keeps attribute values and ranges current when a write changes an indicator', async () => {
      const data = exploreData();
      data.indicators[0]!.attributes = { port: ['8443'] };
      data.indicators[6]!.indicator = '198.51.100.0/25';
      await importDataset(store, data, fixedClock);
      assert.deepEqual(await iids(store, 'attribute.port=443'), []);
      assert.deepEqual(await iids(store, 'attribute.port=8443'), [1]);
      assert.deepEqual(await iids(store, 'attribute=nginx'), []);
      assert.deepEqual(await iids(store, 'ioc=198.51.100.0/24'), [7, 6]);
      assert.deepEqual(await iids(store, 'ioc=198.51.100.128/25'), []);
    });

    it('selects by sightings, submissions and when last sighted (docs/observations.md)', async () => {
      const sight = (target: { iid: number } | { tid: number }, seenAt: string, count: number) =>
        store.applyWrite({ kind: 'sighting', plan: { target, by: { keyId: null, label: 'command line' }, reportedAt: '2026-03-09 12:00:00', seenAt, count, note: null } }, noBatches(), fixedClock);
      const submit = (iid: number, keyId: string) =>
        store.applyWrite({ kind: 'submission', plan: { keyId, value: `v${iid}`, type: 'domain', iid, at: '2026-03-09 12:00:00' } }, noBatches(), fixedClock);
      await sight({ iid: 1 }, '2026-03-08 00:00:00', 2);
      await sight({ iid: 1 }, '2026-03-09 00:00:00', 3);
      await sight({ iid: 2 }, '2026-01-15 00:00:00', 1);
      await sight({ tid: 2 }, '2026-03-09 06:00:00', 4);
      await submit(3, 'k_a');
      await submit(3, 'k_b');
      await submit(2, 'k_a');
      assert.deepEqual(await iids(store, 'sightings>0'), [2, 1]);
      assert.deepEqual(await iids(store, 'sightings>=5'), [1]);
      assert.deepEqual(await iids(store, 'sightings=1'), [2]);
      assert.deepEqual(await iids(store, 'sightings!=0 and sightings<5'), [2]);
      // A comparison 0 passes takes every indicator but the sighted ones that fail it.
      const unsighted = await iids(store, 'sightings=0', { limit: 1000 });
      assert.ok(!unsighted.includes(1) && !unsighted.includes(2) && unsighted.includes(3));
      assert.deepEqual(await iids(store, 'sighted>7d'), [1]);
      assert.deepEqual(await iids(store, 'sighted=2026-01-15'), [2]);
      assert.deepEqual(await iids(store, 'sighted<2026-01-01'), []);
      assert.deepEqual(await iids(store, 'submissions>=2'), [3]);
      assert.deepEqual(await iids(store, 'submissions>0 and sightings>0'), [2]);
      assert.deepEqual(await tids(store, 'sightings>0'), [2]);
      assert.deepEqual(await tids(store, 'sighted>2d'), [2]);
      assert.deepEqual(await tids(store, 'sightings>=5'), []);
    });

    it('stops a query past its deadline with timedOut', async () => {
      await addFiller(store, 100_000);
      const started = Date.now();
      const result: ExploreResult = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', 'ioc=*filler* and not ioc=*host1*', NOW), ...PAGE, maxMillis: 1 });
      assert.deepEqual(result, { timedOut: true });
      assert.ok(Date.now() - started < 5000);
    });
  });
}
