// The data the explore tests query (test/store/explore-*.test.ts): a few indicators chosen for each
// filter kind, and plain filler rows that make a store large enough for plans and deadlines to matter.
import { sql } from 'kysely';
import type { Indicator, Link, Threat } from '../../src/domain.js';
import type { Store } from '../../src/store/contract/store.js';
import assert from 'node:assert/strict';
import { exploreFilter } from '../../src/explore/explore-filters.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture, type Dataset } from './fixture.js';
import type { Backend } from './store-backends.js';
import { dbOf, dialectOf, migrateRewound } from './store-db.js';
import { fixedClock } from './test-app.js';

/** The moment ages in the tests' queries count back from. */
export const EXPLORE_NOW = Date.parse('2026-03-10T00:00:00Z');

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

/** Plain rows beyond the data set's: `count` filler domains, iid 1000 and up. */
export async function addFiller(store: Store, count: number): Promise<void> {
  const db = dbOf(store);
  const numbers = dialectOf(store) === 'sqlite'
    ? sql`with recursive n(x) as (select 1 union all select x + 1 from n where x < ${count}) select x from n`
    : sql`select x from generate_series(1, ${count}) as x`;
  await sql`insert into indicators (iid, value, type, risk, stamp_added, stamp_updated, stamp_seen, attributes, properties, content_hash)
    select 1000 + x, 'host' || x || '.filler.example', 'md5', 'none', '2020-01-01 00:00:00', '2020-01-01 00:00:00', '2020-01-01 00:00:00', '{}', '{}', '' from (${numbers}) as n`.execute(db);
}

/** A store of `backend` holding exploreData(), taken back to before a migration by `rewind` and migrated forward again. */
export async function rewoundExploreStore(backend: Backend, rewind: (store: Store) => Promise<void>): Promise<Store> {
  const { store, location } = await backend.create();
  await importDataset(store, exploreData(), fixedClock);
  await rewind(store);
  await migrateRewound(store, location);
  return store;
}

/** The iids of the first page (up to 100) explore's indicators mode gives for `q`, asked at EXPLORE_NOW. */
export async function exploredIids(store: Store, q: string): Promise<number[]> {
  const result = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', q, EXPLORE_NOW), offset: 0, limit: 100, maxMillis: 10_000 });
  assert.ok(result.timedOut !== true && result.mode === 'indicators');
  return result.rows.map((r) => r.iid);
}
