// A store shaped like a large one for the hot queries' plans (test/store/hot-query-plans.test.ts): the
// explore data set, then plain rows written directly (filler indicators with their links, listings,
// STIX objects and one view's memberships), far more than any one query should read.
import { sql, type RawBuilder } from 'kysely';
import { formatStamp, type Clock } from '../../src/clock.js';
import type { CollectionConfig } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import type { PullPlan } from '../../src/store/contract/commands.js';
import type { ValueStagingRow } from '../../src/store/contract/staging-rows.js';
import type { Store } from '../../src/store/contract/store.js';
import type { WriteBatch } from '../../src/store/contract/write-batch.js';
import { buildFixture } from './fixture.js';
import { addFiller, exploreData } from './explore-data.js';
import { DEFAULT_COLLECTIONS } from './store-backends.js';
import { dbOf, dialectOf } from './store-db.js';
import { fixedClock } from './test-app.js';

/** Filler indicators: iids 1001 to 1000 + FILLER. */
export const FILLER = 100_000;

/** The configured collections: the default ones (the sampled test collection, the unfiltered one) and a view of feed 2. */
export const FEED_VIEW: CollectionConfig = { id: '5f0c3e52-6a1e-4d5b-9f3c-2b7d8e1a4c90', title: 'Feed 2', alias: 'feed-2', free: false, filter: { fid: 2 } };
const TEST_COLLECTION = DEFAULT_COLLECTIONS.find((c) => c.filter.sample !== undefined)!;
export const PLAN_COLLECTIONS: readonly CollectionConfig[] = [...DEFAULT_COLLECTIONS, FEED_VIEW];

/**
 * Which filler rows (x from 1 to FILLER, iid 1000 + x) have what: every one a link and a listing of
 * feed 1; one in ten of feed 2 (the view); one in five hundred of feed 3 (the feed the plan test
 * pulls); one in four a link to threat 2. Each indicator has its STIX indicator, each threat link its
 * relationship, and feed 2's view holds those of its indicators.
 */
const IN_FEED_2 = sql`x % 10 = 0`;
const IN_FEED_3 = sql`x % 500 = 0`;
const IN_THREAT_2 = sql`x % 4 = 0`;

/** A filler value's name: the pull lists some of them again. */
export const fillerValue = (x: number) => `host${x}.filler.example`;
/** A filler value's type, as fillPlanStore spreads them: no one type is the whole table. */
export const fillerType = (x: number) => ['md5', 'domain', 'url', 'ip'][(1000 + x) % 4]!;

/** The explore data set with the fixture's third feed (no links), then the filler; statistics gathered. */
export async function fillPlanStore(store: Store): Promise<void> {
  const data = exploreData();
  await importDataset(store, { ...data, feeds: [...data.feeds, buildFixture().feeds[2]!] }, fixedClock);
  await addFiller(store, FILLER);
  const db = dbOf(store);
  const postgres = dialectOf(store) === 'postgres';
  const numbers = postgres ? sql`select x from generate_series(1, ${FILLER}) as x` : sql`with recursive n(x) as (select 1 union all select x + 1 from n where x < ${FILLER}) select x from n`;
  const filler = (where: RawBuilder<unknown>) => sql`(select x from (${numbers}) as n where ${where}) as f`;
  const uuid = (prefix: string) => (postgres ? sql`${prefix} || lpad(f.x::text, 12, '0')` : sql`${prefix} || printf('%012d', f.x)`);
  await sql`update indicators set type = case iid % 4 when 0 then 'md5' when 1 then 'domain' when 2 then 'url' else 'ip' end,
    risk = case iid % 5 when 0 then 'none' when 1 then 'low' when 2 then 'medium' when 3 then 'high' else 'critical' end,
    stamp_listed = '2026-01-10 00:00:00' where iid > 1000`.execute(db);
  // Each owner's link ranks (seq) follow its links already stored, in iid order.
  const links = async (table: 'feed_links' | 'threat_links', owner: 'fid' | 'tid', id: number, where: RawBuilder<unknown>) => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(owner)} = ${id}`.execute(db);
    await sql`insert into ${sql.table(table)} (${sql.ref(owner)}, iid, stamp_linked, seq)
      select ${id}, 1000 + f.x, '2026-01-10 00:00:00', ${Number(rows[0]!.n) - 1} + row_number() over (order by f.x) from ${filler(where)}`.execute(db);
  };
  await links('feed_links', 'fid', 1, sql`1 = 1`);
  await links('feed_links', 'fid', 2, IN_FEED_2);
  await links('feed_links', 'fid', 3, IN_FEED_3);
  await links('threat_links', 'tid', 2, IN_THREAT_2);
  for (const [fid, where] of [[1, sql`1 = 1`], [2, IN_FEED_2], [3, IN_FEED_3]] as const) {
    await sql`insert into source_listings (fid, iid, risk) select ${fid}, 1000 + f.x, 3 from ${filler(where)}`.execute(db);
    // Each feed's latest whole list: the stamp every value it lists takes (db/listing-stamps.ts).
    await sql`insert into listing_stamps (fid, stamp_listed) values (${fid}, ${`2026-01-1${fid} 00:00:00`})`.execute(db);
  }
  // What feed 2 listed once and no longer does (one in ten, beside the values it lists), and which pull made each threat link.
  await sql`insert into past_listings (fid, iid, last_listed, risk) select 2, 1000 + f.x, '2026-01-05 00:00:00', 3 from ${filler(sql`x % 10 = 5`)}`.execute(db);
  await sql`insert into threat_link_sources (iid, tid, fid) select 1000 + f.x, 2, 1 from ${filler(IN_THREAT_2)}`.execute(db);
  // Values aging since no source listed them (one in ten), for the statistics of a store where
  // many do; feed 1's listings of them stay, which no plan here depends on.
  await sql`insert into unlisted_indicators (iid, stamp_unlisted) select 1000 + f.x, '2026-01-05 00:00:00' from ${filler(sql`x % 10 = 5`)}`.execute(db);
  const { rows } = await sql<{ top: number | string }>`select max(date_added) as top from stix_objects`.execute(db);
  const base = Number(rows[0]!.top);
  // As a store keeps them: indicators and relationships without a body, rendered when read (version-rows.ts).
  await sql`insert into stix_objects (id, type, modified, date_added, body, iid, tid, source_hash, revoked)
    select ${uuid('indicator--00000000-0000-4000-8000-')}, 'indicator', '2026-01-10T00:00:00.000Z', cast(${base} as bigint) + 2 * f.x, '', 1000 + f.x, null, '', 0
    from ${filler(sql`1 = 1`)}`.execute(db);
  await sql`insert into stix_objects (id, type, modified, date_added, body, iid, tid, source_hash, revoked)
    select ${uuid('relationship--00000000-0000-4000-8000-')}, 'relationship', '2026-01-10T00:00:00.000Z', cast(${base} as bigint) + 2 * f.x + 1, '', 1000 + f.x, 2, '', 0
    from ${filler(IN_THREAT_2)}`.execute(db);
  const members = async (collection: CollectionConfig, iids: RawBuilder<unknown>) =>
    sql`insert into collection_objects (collection, id, type, modified, date_added)
      select ${collection.id}, s.id, s.type, s.modified, s.date_added from stix_objects s where s.date_added > cast(${base} as bigint) and s.iid in (${iids})`.execute(db);
  await members(FEED_VIEW, sql`select iid from feed_links where fid = 2`);
  await members(TEST_COLLECTION, sql`select iid from indicators order by iid limit ${TEST_COLLECTION.filter.sample!}`);
  await sql`analyze`.execute(db);
}

/** A write's time, after everything the store holds. */
export const LATER: Clock = { now: () => Date.parse('2026-02-01T00:00:00Z') };
const AT = formatStamp(LATER.now());

/**
 * A pull of feed 3: most of what it listed again (the filler values x % 500 = 0 but not those x % 5000 = 0),
 * twenty new values, rows naming a known and a new threat, attributes for a listed and a new value,
 * and one value it listed withdrawn. The plan of a 304 (`repeat`) reads no rows.
 */
export function pullOfFeed3(repeat = false): { plan: PullPlan; batches: AsyncIterable<WriteBatch> } {
  const listed = Array.from({ length: FILLER / 500 }, (_, i) => (i + 1) * 500).filter((x) => x % 5000 !== 0);
  const values: ValueStagingRow[] = [
    ...listed.map((x, i): ValueStagingRow => [fillerType(x), fillerValue(x), 4, i + 1]),
    ...Array.from({ length: 20 }, (_, i): ValueStagingRow => ['domain', `new${i}.pull.example`, 3, listed.length + i + 1]),
  ];
  const [first, second] = values as [ValueStagingRow, ValueStagingRow];
  const plan: PullPlan = {
    fid: 3, at: AT, sourceThreat: null, sourceRisk: 'high', repeat, etag: null, lastModified: null, nextDue: LATER.now() + 3_600_000, keepRuns: 1000,
    listedBefore: FILLER / 500, run: { trigger: 'command', started: LATER.now(), httpStatus: 200, bytes: 0, rejected: { unparseable: 0, allowlisted: 0 }, rejections: [] },
  };
  async function* batches(): AsyncGenerator<WriteBatch> {
    if (!repeat) {
      yield {
        kind: 'values', values, records: values.length, refs: [],
        threats: [[first[0], first[1], 'Emotet'], ['domain', 'new0.pull.example', 'Emotet'], ['domain', 'new1.pull.example', 'Fresh Bot']],
        withdrawn: [[fillerType(5000), fillerValue(5000)]],
        attributes: [[second[0], second[1], 1, JSON.stringify({ port: ['443'] })], ['domain', 'new2.pull.example', 2, JSON.stringify({ asn: ['AS64500'] })]],
      };
    }
    const read = repeat ? 0 : values.length;
    yield { kind: 'end', records: read, read: { threats: 0, feeds: 0, indicators: read, links: 0 }, related: [], skippedTtps: 0 };
  }
  return { plan, batches: batches() };
}
