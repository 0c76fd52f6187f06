// Every value's count per feed and threat (owner_value_counts): an import that changes little updates
// the touched owners from their counts, and must leave what the whole-store pass computes, byte for
// byte: the counts themselves, and the summaries (the 25 most frequent values of each property,
// ties by value) derived from them. Where the counts cannot be updated exactly, the owner is read
// again through its links, and the plan says so.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { generateDemo } from '../../src/demo/generate-demo.js';
import type { Feed, Indicator, Link, Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { refreshAllAggregates, refreshLookupData } from '../../src/store/derive/derive.js';
import { type AggregatePlan } from '../../src/store/contract/commands.js';
import { changeSetOf, noteChanged } from '../../src/store/changes/change-set.js';
import { createChangeTables, dropChangeTables } from '../../src/store/changes/change-tables.js';
import { keepIndicatorRows } from '../../src/store/changes/replaced-indicators.js';
import type { Database } from '../../src/store/db/schema.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';

interface Dataset {
  threats: Threat[];
  feeds: Feed[];
  indicators: Indicator[];
  links: Link[];
}

const demo = generateDemo({ indicators: 20 });
const STAMP = '2026-01-02 00:00:00';

function indicator(iid: number, fields: Partial<Indicator> & { properties?: Indicator['properties'] }): Indicator {
  return {
    iid,
    indicator: `198.51.100.${iid}`,
    type: 'ip',
    risk: 'high',
    stamp_added: '2025-01-01 00:00:00',
    stamp_updated: '2025-06-01 00:00:00',
    stamp_seen: null,
    retired: false,
    attributes: {},
    properties: {},
    ...fields,
  };
}

const feedLink = (fid: number, iid: number): Link => ({ fid, iid, stamp_linked: STAMP });
const threatLink = (tid: number, iid: number): Link => ({ tid, iid, stamp_linked: STAMP });

/**
 * The test's indicators and links, with threats and feeds 1 to 3; feed 3 and threat 3 hold 100
 * other indicators each, so that the test's changes stay far below the whole-store pass's share.
 */
function dataset(indicators: Indicator[], links: Link[]): Dataset {
  const filler = Array.from({ length: 100 }, (_, k) => indicator(1001 + k, { risk: 'medium', properties: { country: 'SE' } }));
  return {
    threats: [1, 2, 3].map((tid) => ({ ...demo.threats[tid - 1]!, tid, related: [] })),
    feeds: [1, 2, 3].map((fid) => ({ ...demo.feeds[fid - 1]!, fid })),
    indicators: [...indicators, ...filler],
    links: [...links, ...filler.flatMap((i) => [feedLink(3, i.iid), threatLink(3, i.iid)])],
  };
}

const nothing = { threats: [], feeds: [], indicators: [], links: [] };
let minute = 0;
const nextClock = () => {
  const at = fixedClock.now() + ++minute * 60_000;
  return { now: () => at };
};

async function importDelta(store: Store, delta: Partial<Dataset>): Promise<AggregatePlan | null> {
  return (await importDataset(store, { ...nothing, ...delta }, nextClock())).aggregates;
}

/** A kind's rows of owner_value_counts, as `owner facet name=value count` lines. */
async function countRows(db: Kysely<Database>, kind: 0 | 1, owner?: number): Promise<string[]> {
  const rows = await db
    .selectFrom('owner_value_counts')
    .selectAll()
    .where('kind', '=', kind)
    .$if(owner !== undefined, (q) => q.where('owner', '=', owner!))
    .execute();
  return rows.map((r) => `${Number(r.owner)} ${Number(r.facet)} ${r.name}=${r.value} ${Number(r.count)}`).sort();
}

/** Every feed's and threat's computed columns and value counts. */
async function derived(db: Kysely<Database>) {
  return {
    feeds: await db.selectFrom('feeds').select(['fid', 'indicators', 'summary']).orderBy('fid').execute(),
    threats: await db.selectFrom('threats').select(['tid', 'summary', 'updated_last_domain']).orderBy('tid').execute(),
    feedCounts: await countRows(db, 0),
    threatCounts: await countRows(db, 1),
  };
}

/** Asserts the store holds what the whole-store pass computes (run in a transaction rolled back). */
async function assertAsWholePass(store: Store, message: string): Promise<void> {
  const rollback = new Error('rollback');
  let whole: { written: number; derived: Awaited<ReturnType<typeof derived>> } | undefined;
  await dbOf(store)
    .transaction()
    .execute(async (trx) => {
      whole = { written: await refreshAllAggregates(trx), derived: await derived(trx) };
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  assert.deepEqual(await derived(dbOf(store)), whole!.derived, `${message}: as the whole-store pass computes`);
  assert.equal(whole!.written, 0, `${message}: the whole-store pass has nothing to write`);
}

const incremental = (plan: AggregatePlan | null) => {
  assert.ok(plan !== null && plan.whole === false, 'the import updates the owners it touched');
  return plan;
};

for (const backend of storeBackends()) {
  describe(`owner value counts (${backend.name})`, () => {
    after(() => backend.cleanup());

    it('follow each change: a value whose count reaches 0 leaves, a changed indicator moves its counts', async () => {
      const { store } = await backend.create();
      try {
        const indicators = [
          indicator(1, { risk: 'high', attributes: { port: ['443'] }, properties: { country: 'NL', asn: 64500 } }),
          indicator(2, { risk: 'high', attributes: { port: ['443', '80'] }, properties: { country: 'DE', asn: 64500 } }),
          indicator(3, { risk: 'low', properties: { country: 'DE', whois: { registrar: 'nested, not counted' } } }),
          indicator(4, { type: 'domain', indicator: 'counted.example', risk: 'medium', properties: { country: 'US' } }),
        ];
        await importDataset(store, dataset(indicators, [feedLink(1, 1), feedLink(1, 2), feedLink(1, 3), threatLink(1, 1), threatLink(1, 2)]), fixedClock);
        assert.deepEqual(await countRows(dbOf(store), 0, 1), [
          '1 0 =high 2',
          '1 0 =low 1',
          '1 1 port=443 2',
          '1 1 port=80 1',
          '1 2 asn=64500 2',
          '1 2 country=DE 2',
          '1 2 country=NL 1',
        ]);
        assert.deepEqual(await countRows(dbOf(store), 0, 2), [], 'a feed without links has no rows');

        // Indicator 1 changes its risk, port and country: NL reaches 0 and leaves, DE and low gain it.
        const changed = indicator(1, { risk: 'low', attributes: { port: ['22'] }, properties: { country: 'DE', asn: 64500 } });
        const plan = incremental(await importDelta(store, { indicators: [changed] }));
        assert.deepEqual(plan.touched.recompute, { feeds: [1], threats: [1] });
        assert.deepEqual(plan.read, { feeds: [], threats: [] }, 'both updated from their counts');
        assert.deepEqual(await countRows(dbOf(store), 0, 1), [
          '1 0 =high 1',
          '1 0 =low 2',
          '1 1 port=22 1',
          '1 1 port=443 1',
          '1 1 port=80 1',
          '1 2 asn=64500 2',
          '1 2 country=DE 3',
        ]);
        assert.deepEqual(await countRows(dbOf(store), 1, 1), [
          '1 0 =high 1',
          '1 0 =low 1',
          '1 1 port=22 1',
          '1 1 port=443 1',
          '1 1 port=80 1',
          '1 2 asn=64500 2',
          '1 2 country=DE 2',
        ]);
        await assertAsWholePass(store, 'a changed indicator');

        // A new link to an unlinked domain, and a retired indicator (counted as retired, whatever its risk).
        incremental(await importDelta(store, { links: [feedLink(1, 4)] }));
        incremental(await importDelta(store, { indicators: [{ ...indicators[2]!, retired: true }] }));
        assert.deepEqual(await countRows(dbOf(store), 0, 1), [
          '1 0 =high 1',
          '1 0 =low 1',
          '1 0 =medium 1',
          '1 0 =retired 1',
          '1 1 port=22 1',
          '1 1 port=443 1',
          '1 1 port=80 1',
          '1 2 asn=64500 2',
          '1 2 country=DE 3',
          '1 2 country=US 1',
        ]);
        await assertAsWholePass(store, 'a new link and a retired indicator');

        // A new link and a change of the same indicator in one import: the feed that gains it adds its new row only.
        const plan2 = incremental(
          await importDelta(store, { indicators: [{ ...indicators[3]!, risk: 'critical', properties: { country: 'FR' } }], links: [feedLink(2, 4), threatLink(1, 4)] }),
        );
        assert.deepEqual(plan2.read, { feeds: [], threats: [] });
        assert.deepEqual(await countRows(dbOf(store), 0, 2), ['2 0 =critical 1', '2 2 country=FR 1']);
        await assertAsWholePass(store, 'a new link to a changed indicator');
      } finally {
        await store.close();
      }
    });

    it('keep the 25 most frequent values of each property as the whole pass orders them, ties by value', async () => {
      const { store } = await backend.create();
      try {
        // 40 indicators over 30 values of `tag` (v10..v39: v10..v19 twice, the rest once) and of
        // `status`, numeric strings (which an object orders numerically, not by insertion).
        const tag = (i: number) => `v${10 + (i % 30)}`;
        const indicators = Array.from({ length: 40 }, (_, k) => indicator(k + 1, { properties: { tag: tag(k), status: String(200 + (k % 30)) } }));
        const links = indicators.map((i) => feedLink(1, i.iid));
        await importDataset(store, dataset([...indicators, indicator(41, { properties: { tag: 'v39', status: '229' } }), indicator(42, { properties: { tag: 'v11', status: '201' } })], links), fixedClock);
        const top = async () => {
          const feed = await dbOf(store).selectFrom('feeds').select('summary').where('fid', '=', 1).executeTakeFirstOrThrow();
          return (JSON.parse(feed.summary) as { properties: Record<string, Record<string, number>> }).properties;
        };
        const expected = (counts: Map<string, number>) =>
          [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 25).map(([v, n]) => `${v}:${n}`);
        const tags = new Map(Array.from({ length: 30 }, (_, k) => [`v${10 + k}`, k < 10 ? 2 : 1]));
        assert.deepEqual(Object.entries((await top()).tag!).map(([v, n]) => `${v}:${n}`), expected(tags));
        assert.equal(Object.keys((await top()).tag!).at(-1), 'v34', 'the cut falls among the values counted once');
        await assertAsWholePass(store, 'a fresh import');

        // v39 (last of the ties, out of the 25) gains a link: counted twice, it enters; v34 leaves.
        assert.deepEqual(incremental(await importDelta(store, { links: [feedLink(1, 41)] })).read, { feeds: [], threats: [] });
        tags.set('v39', 2);
        assert.deepEqual(Object.entries((await top()).tag!).map(([v, n]) => `${v}:${n}`), expected(tags));
        assert.ok(!('v34' in (await top()).tag!) && (await top()).tag!.v39 === 2);
        await assertAsWholePass(store, 'a value entering the 25 by a new link');

        // v10 falls to once (its indicator 1 changes to v33): v33 comes back in, v10 ties with the rest.
        incremental(await importDelta(store, { indicators: [{ ...indicators[0]!, properties: { tag: 'v33', status: '200' } }] }));
        tags.set('v10', 1).set('v33', 2);
        assert.deepEqual(Object.entries((await top()).tag!).map(([v, n]) => `${v}:${n}`), expected(tags));
        await assertAsWholePass(store, 'a changed indicator moving values across the cut');

        // A value counted once more than all others, then ties again.
        incremental(await importDelta(store, { links: [feedLink(1, 42)] }));
        await assertAsWholePass(store, 'a tie broken');
      } finally {
        await store.close();
      }
    });

    it('read an owner again through its links when its counts were never written (a store from before migration 0007)', async () => {
      const { store } = await backend.create();
      try {
        const indicators = Array.from({ length: 6 }, (_, k) => indicator(k + 1, { risk: k % 2 ? 'low' : 'high', properties: { country: k % 3 ? 'DE' : 'NL' } }));
        await importDataset(store, dataset(indicators, [feedLink(1, 1), feedLink(1, 2), feedLink(2, 3), threatLink(1, 1), threatLink(2, 4)]), fixedClock);
        await sql`delete from owner_value_counts`.execute(dbOf(store));
        const plan = incremental(await importDelta(store, { links: [feedLink(1, 5)] }));
        assert.deepEqual(plan.read, { feeds: [1], threats: [] }, 'the feed whose counts are missing is read');
        assert.deepEqual(await countRows(dbOf(store), 0, 2), [], 'an owner not touched stays without rows until then');
        assert.deepEqual(await countRows(dbOf(store), 1), [], 'nor does any threat');
        const feedOne = await countRows(dbOf(store), 0, 1);
        await sql`delete from owner_value_counts`.execute(dbOf(store));
        await refreshAllAggregatesCommitted(store);
        assert.deepEqual(await countRows(dbOf(store), 0, 1), feedOne, 'the rows the read wrote are the whole pass rows');
        // From then on the feed is updated from its counts.
        assert.deepEqual(incremental(await importDelta(store, { links: [feedLink(1, 6)] })).read, { feeds: [], threats: [] });
        await assertAsWholePass(store, 'counts written again');
      } finally {
        await store.close();
      }
    });

    it("read a threat again when the indicator with its latest domain stamp goes back in time, and only then", async () => {
      const { store } = await backend.create();
      try {
        const domain = (iid: number, stamp: string) => indicator(iid, { type: 'domain', indicator: `d${iid}.example`, stamp_updated: stamp });
        await importDataset(store, dataset([domain(1, '2025-06-05 00:00:00'), domain(2, '2025-06-03 00:00:00'), indicator(3, {})], [threatLink(1, 1), threatLink(1, 2), threatLink(1, 3), feedLink(1, 1)]), fixedClock);
        const latest = async () => (await dbOf(store).selectFrom('threats').select('updated_last_domain').where('tid', '=', 1).executeTakeFirstOrThrow()).updated_last_domain;
        assert.equal(await latest(), '2025-06-05 00:00:00');

        // Another domain moves forward: the latest is known without reading.
        assert.deepEqual(incremental(await importDelta(store, { indicators: [domain(2, '2025-06-04 00:00:00')] })).read, { feeds: [], threats: [] });
        assert.equal(await latest(), '2025-06-05 00:00:00');
        // The latest changes in another field only: it stays the latest.
        assert.deepEqual(incremental(await importDelta(store, { indicators: [{ ...domain(1, '2025-06-05 00:00:00'), risk: 'low' }] })).read, { feeds: [], threats: [] });
        await assertAsWholePass(store, 'the latest domain kept');

        // The latest goes back before another: the threat is read again (the feed shows no stamp).
        const plan = incremental(await importDelta(store, { indicators: [domain(1, '2025-06-01 00:00:00')] }));
        assert.deepEqual(plan.read, { feeds: [], threats: [1] });
        assert.equal(await latest(), '2025-06-04 00:00:00');
        await assertAsWholePass(store, 'the latest domain gone back');
      } finally {
        await store.close();
      }
    });

    it('read the owners of an indicator changed in place again unless its writer kept its earlier row (keepIndicatorRows)', async () => {
      const { store } = await backend.create();
      try {
        const indicators = [indicator(1, { risk: 'high', properties: { country: 'NL' } }), indicator(2, { risk: 'low', properties: { country: 'DE' } })];
        await importDataset(store, dataset(indicators, [feedLink(1, 1), feedLink(1, 2), feedLink(2, 2), threatLink(1, 1)]), fixedClock);
        // As a pull raises a risk: the row is updated and noted as changed, its earlier row not kept.
        let plan: AggregatePlan | null = null;
        await dbOf(store).transaction().execute(async (trx) => {
          await createChangeTables(trx, dialectOf(store), false);
          await sql`update indicators set risk = 'critical', content_hash = '' where iid = 1`.execute(trx);
          await noteChanged(trx, 'indicators', [1]);
          const changes = changeSetOf({ threats: 0, feeds: 0, indicators: 1, feedLinks: 0, threatLinks: 0, fresh: false, pulled: false });
          plan = await refreshLookupData(trx, dialectOf(store), changes);
          await dropChangeTables(trx);
        });
        const done = incremental(plan);
        assert.deepEqual(done.touched.recompute, { feeds: [1], threats: [1] });
        assert.deepEqual(done.read, { feeds: [1], threats: [1] });
        assert.deepEqual(await countRows(dbOf(store), 0, 1), ['1 0 =critical 1', '1 0 =low 1', '1 2 country=DE 1', '1 2 country=NL 1']);
        await assertAsWholePass(store, 'an indicator changed in place');

        // The same writer keeping the rows first (keepIndicatorRows): the owners are updated from their counts.
        await dbOf(store).transaction().execute(async (trx) => {
          await createChangeTables(trx, dialectOf(store), false);
          await keepIndicatorRows(trx, sql`select iid from indicators where iid in (1, 2)`);
          await sql`update indicators set risk = 'medium', content_hash = '' where iid = 2`.execute(trx);
          await noteChanged(trx, 'indicators', [2]);
          const changes = changeSetOf({ threats: 0, feeds: 0, indicators: 1, feedLinks: 0, threatLinks: 0, fresh: false, pulled: false });
          plan = await refreshLookupData(trx, dialectOf(store), changes);
          await dropChangeTables(trx);
        });
        const kept = incremental(plan);
        assert.deepEqual(kept.touched.recompute, { feeds: [1, 2], threats: [] });
        assert.deepEqual(kept.read, { feeds: [], threats: [] });
        assert.deepEqual(await countRows(dbOf(store), 0, 2), ['2 0 =medium 1', '2 2 country=DE 1']);
        await assertAsWholePass(store, 'an indicator changed in place, its row kept');
      } finally {
        await store.close();
      }
    });
  });
}

/** The whole-store pass, committed. */
async function refreshAllAggregatesCommitted(store: Store): Promise<void> {
  await dbOf(store).transaction().execute((trx) => refreshAllAggregates(trx));
}
