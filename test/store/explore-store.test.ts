// Store.explore (docs/explore.md) on every backend: each filter kind through its index, and/or/not,
// paging newest first, wildcards with literal % and _, blocks inside ranges, attribute values kept
// current by a write, and a query stopped at its deadline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import type { Indicator, Link, Threat } from '../../src/domain.js';
import { exploreFilter } from '../../src/explore/explore-filters.js';
import type { ExploreResult, FeedFilter } from '../../src/store/contract/explore.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';

const NOW = Date.parse('2026-03-10T00:00:00Z');

function indicator(iid: number, value: string, type: string, risk: string, extra: Partial<Indicator> = {}): Indicator {
  return {
    iid, indicator: value, type, risk, stamp_added: '2026-01-01 00:00:00', stamp_updated: '2026-01-02 00:00:00', stamp_seen: '2026-03-01 00:00:00',
    retired: false, attributes: {}, properties: {}, ...extra,
  } as Indicator;
}

/** The data explored: the fixture's shape (threats, feeds) with indicators chosen for each filter. */
export function exploreData(): Dataset {
  const base = buildFixture();
  const [zeus, emotet, worm] = base.threats as [Threat, Threat, Threat];
  const threats = [
    { ...zeus, threat: 'Cobalt Strike', othernames: ['Beacon'], ttps: [{ id: 'T1059.001', name: 'PowerShell' }] },
    { ...emotet, ttps: [{ id: 'T1059', name: 'Command and Scripting Interpreter' }] },
    worm,
  ];
  const [urlhaus, feodo] = base.feeds;
  const feeds = [{ ...urlhaus!, feed: 'URLhaus' }, { ...feodo!, feed: 'Feodo Tracker', category: 'botnet' }];
  const indicators = [
    indicator(1, 'login.evil.example', 'domain', 'high', { attributes: { port: ['443'], technology: ['Nginx'] } }),
    indicator(2, 'www.evil.example', 'domain', 'medium', { stamp_seen: '2026-03-09 00:00:00' }),
    indicator(3, 'evil.example', 'domain', 'low', { stamp_added: '2025-06-01 00:00:00' }),
    indicator(4, '100%_off.example', 'domain', 'high'),
    indicator(5, '100xxoff.example', 'domain', 'high'),
    indicator(6, '198.51.100.7', 'ip', 'critical'),
    indicator(7, '198.51.100.0/24', 'ip', 'high'),
    indicator(8, '203.0.113.9', 'ip', 'low', { retired: true }),
    indicator(9, '2001:db8::1', 'ipv6', 'medium'),
    indicator(10, '2001:db8::/32', 'ipv6', 'high'),
    indicator(11, 'https://evil.example/login', 'url', 'high', { attributes: { port: ['8080'] } }),
    indicator(12, 'a_b_c.example', 'domain', 'none'),
    indicator(13, 'axbxc.example', 'domain', 'none'),
  ];
  const links: Link[] = [
    ...[1, 2, 3, 11].map((iid) => ({ iid, fid: 1, stamp_linked: '2026-03-01 00:00:00' })),
    ...[6, 7].map((iid) => ({ iid, fid: 2, stamp_linked: '2026-03-01 00:00:00' })),
    ...[1, 11].map((iid) => ({ iid, tid: 1, stamp_linked: '2026-03-01 00:00:00' })),
    { iid: 6, tid: 2, stamp_linked: '2026-03-01 00:00:00' },
  ];
  return { threats, feeds, indicators, links };
}

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

    it('stops a query past its deadline with timedOut', async () => {
      await addFiller(store, 100_000);
      const started = Date.now();
      const result: ExploreResult = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', 'ioc=*filler* and not ioc=*host1*', NOW), ...PAGE, maxMillis: 1 });
      assert.deepEqual(result, { timedOut: true });
      assert.ok(Date.now() - started < 5000);
    });
  });
}

/** Plain rows beyond the data set's: `count` filler domains, iid 1000 and up. */
export async function addFiller(store: Store, count: number): Promise<void> {
  const db = dbOf(store);
  const numbers = dialectOf(store) === 'sqlite'
    ? sql`with recursive n(x) as (select 1 union all select x + 1 from n where x < ${count}) select x from n`
    : sql`select x from generate_series(1, ${count}) as x`;
  await sql`insert into indicators (iid, value, type, risk, stamp_added, stamp_updated, stamp_seen, attributes, properties, content_hash)
    select 1000 + x, 'host' || x || '.filler.example', 'md5', 'none', '2020-01-01 00:00:00', '2020-01-01 00:00:00', '2020-01-01 00:00:00', '{}', '{}', '' from (${numbers}) as n`.execute(db);
}
