// An import that changed little recomputes the aggregates of the feeds and threats it touched, and
// only theirs. After every step the store must hold what the whole-store pass computes, byte for
// byte, and no other feed or threat may have been written.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { generateDemo } from '../../src/demo/generate-demo.js';
import type { Feed, Indicator, Link, Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { refreshAllAggregates } from '../../src/store/derive/derive.js';
import { type AggregatePlan } from '../../src/store/contract/commands.js';
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

const linkKey = (l: Link) => ('fid' in l ? `f${l.fid}:${l.iid}` : `t${l.tid}:${l.iid}`);

/** The data after an import of `delta`: records replaced by key, links added or restamped. */
function applied(data: Dataset, delta: Partial<Dataset>): Dataset {
  const merge = <T>(list: T[], more: T[] | undefined, key: (x: T) => string | number) => {
    const byKey = new Map(list.map((x) => [key(x), x]));
    for (const x of more ?? []) byKey.set(key(x), x);
    return [...byKey.values()];
  };
  return {
    threats: merge(data.threats, delta.threats, (t) => t.tid),
    feeds: merge(data.feeds, delta.feeds, (f) => f.fid),
    indicators: merge(data.indicators, delta.indicators, (i) => i.iid),
    links: merge(data.links, delta.links, linkKey),
  };
}

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
const feedsOf = (data: Dataset, iids: number[]) => sorted(data.links.flatMap((l) => ('fid' in l && iids.includes(l.iid) ? [l.fid] : [])));
const threatsOf = (data: Dataset, iids: number[]) => sorted(data.links.flatMap((l) => ('tid' in l && iids.includes(l.iid) ? [l.tid] : [])));
const iidsOf = (data: Dataset, owner: { fid: number } | { tid: number }) =>
  sorted(data.links.flatMap((l) => (('fid' in owner ? 'fid' in l && l.fid === owner.fid : 'tid' in l && l.tid === owner.tid) ? [l.iid] : [])));
const STAMP = '2026-01-10 00:00:00';

/** Two indicators linked to a threat and only to small feeds, so that changing them touches few owners. */
const twoIndicatorsOfSmallOwners = (data: Dataset) =>
  data.indicators
    .map((i) => i.iid)
    .filter((iid) => threatsOf(data, [iid]).length > 0 && feedsOf(data, [iid]).every((fid) => fid >= 6))
    .slice(0, 2);

interface Step {
  name: string;
  delta(data: Dataset): Partial<Dataset>;
  /** The owners the step touches (from the data before it), or 'whole' for the whole-store pass. */
  touched(data: Dataset, delta: Partial<Dataset>): { recompute: [number[], number[]]; relist: [number[], number[]] } | 'whole';
  /** The touched feeds and threats read again through their links (default none: all updated from their value counts). */
  read?: [number[], number[]];
  /** Feeds (f) and threats (t) whose stored aggregates cannot change: their rows must not be written. */
  untouched(data: Dataset): string[];
}

const STEPS: Step[] = [
  {
    name: 'ten new links to one feed',
    delta: (data) => {
      const inFeed = new Set(iidsOf(data, { fid: 9 }));
      const iids = data.links.filter((l) => 'tid' in l && !inFeed.has(l.iid)).map((l) => l.iid);
      return { links: sorted(iids).slice(0, 10).map((iid) => ({ iid, fid: 9, stamp_linked: STAMP })) };
    },
    touched: (data, delta) => ({ recompute: [[9], []], relist: [[], threatsOf(data, delta.links!.map((l) => l.iid))] }),
    untouched: () => ['f2', 'f3'],
  },
  {
    name: 'an indicator with another risk and one with other attributes',
    delta: (data) => {
      const [a, b] = twoIndicatorsOfSmallOwners(data).map((iid) => data.indicators.find((i) => i.iid === iid)!) as [Indicator, Indicator];
      return { indicators: [{ ...a, risk: a.risk === 'critical' ? 'low' : 'critical' }, { ...b, attributes: { ...b.attributes, port: ['8443', '22'], protocol: ['tcp'] } }] };
    },
    touched: (data) => {
      const iids = twoIndicatorsOfSmallOwners(data);
      return { recompute: [feedsOf(data, iids), threatsOf(data, iids)], relist: [[], []] };
    },
    untouched: (data) => [1, 2, 3, 4, 5].filter((fid) => !feedsOf(data, twoIndicatorsOfSmallOwners(data)).includes(fid)).map((fid) => `f${fid}`),
  },
  {
    name: 'a threat renamed: the feeds that list it',
    delta: (data) => ({ threats: [{ ...data.threats.find((t) => t.tid === 5)!, threat: 'Renamed Five', category: 'ransomware' }] }),
    touched: (data) => ({ recompute: [[], []], relist: [feedsOf(data, iidsOf(data, { tid: 5 })), [5]] }),
    // A threat's own summary does not show its name.
    untouched: () => ['t5', 't1', 't2'],
  },
  {
    name: 'a feed renamed: the threats that list it',
    delta: (data) => ({ feeds: [{ ...data.feeds.find((f) => f.fid === 10)!, feed: 'Renamed Ten', organization: 'Other Org' }] }),
    touched: (data) => ({ recompute: [[], []], relist: [[10], threatsOf(data, iidsOf(data, { fid: 10 }))] }),
    untouched: () => ['f10', 'f1', 'f2'],
  },
  {
    name: 'a new threat link: the threat, and the feeds of its indicator',
    delta: (data) => {
      const inThreat = new Set(iidsOf(data, { tid: 7 }));
      const iid = data.links.find((l) => 'fid' in l && l.fid >= 11 && !inThreat.has(l.iid))!.iid;
      return { links: [{ iid, tid: 7, stamp_linked: STAMP }] };
    },
    touched: (data, delta) => ({ recompute: [[], [7]], relist: [feedsOf(data, [delta.links![0]!.iid]), []] }),
    untouched: () => ['f2', 't1'],
  },
  {
    name: 'a new feed with links, a new threat without, and a new indicator',
    delta: (data) => {
      const template = data.indicators[0]!;
      const iid = Math.max(...data.indicators.map((i) => i.iid)) + 1;
      const links: Link[] = [30, 31, 32, iid].map((i) => ({ iid: i, fid: 13, stamp_linked: STAMP }));
      return {
        feeds: [{ ...data.feeds[0]!, fid: 13, feed: 'Brand New', organization: 'New Org' }],
        threats: [{ ...data.threats[0]!, tid: 31, threat: 'Brand New Threat', othernames: [] }],
        indicators: [{ ...template, iid, indicator: '198.51.100.200', type: 'ip', risk: 'high' }],
        links,
      };
    },
    touched: (data) => ({ recompute: [[13], []], relist: [[], sorted([...threatsOf(data, [30, 31, 32]), 31])] }),
    // The new feed starts from no counts; the new threat, relisted, has no summary to keep yet.
    read: [[], [31]],
    untouched: () => ['f1', 'f2'],
  },
  {
    name: 'a feed changed in none of the fields a summary shows',
    delta: (data) => ({ feeds: [{ ...data.feeds.find((f) => f.fid === 1)!, stamp_pulled: STAMP }] }),
    touched: (data) => ({ recompute: [[], []], relist: [[1], threatsOf(data, iidsOf(data, { fid: 1 }))] }),
    untouched: (data) => [...data.feeds.map((f) => `f${f.fid}`), ...data.threats.map((t) => `t${t.tid}`)],
  },
  {
    name: 'most indicators changed: the whole-store pass',
    delta: (data) => ({ indicators: data.indicators.filter((i) => i.iid % 2 === 0).map((i) => ({ ...i, risk: i.risk === 'high' ? 'medium' : 'high' })) }),
    touched: () => 'whole',
    untouched: () => [],
  },
];

/** Every feed's and threat's computed columns, and their value counts. */
async function computedColumns(db: Kysely<Database>) {
  return {
    feeds: await db.selectFrom('feeds').select(['fid', 'indicators', 'summary']).orderBy('fid').execute(),
    threats: await db.selectFrom('threats').select(['tid', 'summary', 'updated_last_domain']).orderBy('tid').execute(),
    valueCounts: (
      await db.selectFrom('owner_value_counts').selectAll().orderBy('kind').orderBy('owner').orderBy('facet').orderBy('name').orderBy('value').execute()
    ).map((r) => ({ ...r, owner: Number(r.owner), count: Number(r.count) })),
    feedLinks: await db.selectFrom('feed_links').selectAll().orderBy('fid').orderBy('iid').execute(),
    threatLinks: await db.selectFrom('threat_links').selectAll().orderBy('tid').orderBy('iid').execute(),
  };
}

/** Notes every write of a feed's or threat's computed columns in `written_rows` (an import's own upserts do not set them). */
async function watchWrites(store: Store): Promise<() => Promise<string[]>> {
  await sql`create table written_rows (kind text not null, id bigint not null)`.execute(dbOf(store));
  for (const [table, kind, key, columns] of [
    ['feeds', 'f', 'fid', 'indicators, summary'],
    ['threats', 't', 'tid', 'summary, updated_last_domain'],
  ] as const) {
    if (dialectOf(store) === 'sqlite') {
      await sql.raw(`create trigger ${table}_written after update of ${columns} on ${table} begin insert into written_rows values ('${kind}', new.${key}); end`).execute(dbOf(store));
    } else {
      await sql.raw(`create function note_${table}() returns trigger language plpgsql as $$ begin insert into written_rows values ('${kind}', new.${key}); return null; end $$`).execute(dbOf(store));
      await sql.raw(`create trigger ${table}_written after update of ${columns} on ${table} for each row execute function note_${table}()`).execute(dbOf(store));
    }
  }
  return async () => {
    const { rows } = await sql<{ kind: string; id: number }>`delete from written_rows returning kind, id`.execute(dbOf(store));
    return [...new Set(rows.map((r) => `${r.kind}${Number(r.id)}`))].sort();
  };
}

/** What the whole-store pass would write over the store's aggregates, in a transaction rolled back. */
async function wholePass(store: Store): Promise<{ written: number; columns: Awaited<ReturnType<typeof computedColumns>> }> {
  const rollback = new Error('rollback');
  let result: { written: number; columns: Awaited<ReturnType<typeof computedColumns>> } | undefined;
  await dbOf(store)
    .transaction()
    .execute(async (trx) => {
      result = { written: await refreshAllAggregates(trx), columns: await computedColumns(trx) };
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  return result!;
}

for (const backend of storeBackends()) {
  describe(`incremental aggregates (${backend.name})`, () => {
    after(() => backend.cleanup());

    it('leave after every import what the whole-store pass computes, writing only the owners each import touched', async () => {
      const plans: (AggregatePlan | null)[] = [];
      const { store } = await backend.create();
      const demo = generateDemo({ indicators: 1500 });
      let data: Dataset = { threats: demo.threats, feeds: demo.feeds, indicators: demo.indicators, links: demo.links };
      try {
        plans.push((await importDataset(store, data, fixedClock)).aggregates);
        const writes = await watchWrites(store);
        for (const [n, step] of STEPS.entries()) {
          const delta = step.delta(data);
          const touched = step.touched(data, delta);
          const untouched = step.untouched(data);
          const summary = await importDataset(store, { threats: [], feeds: [], indicators: [], links: [], ...delta }, { now: () => fixedClock.now() + (n + 1) * 60_000 });
          plans.push(summary.aggregates);
          data = applied(data, delta);
          const plan = plans.at(-1)!;
          const written = await writes();
          if (touched === 'whole') assert.deepEqual(plan, { whole: true }, step.name);
          else {
            assert.deepEqual(plan, {
              whole: false,
              touched: { recompute: { feeds: touched.recompute[0], threats: touched.recompute[1] }, relist: { feeds: touched.relist[0], threats: touched.relist[1] } },
              read: { feeds: step.read?.[0] ?? [], threats: step.read?.[1] ?? [] },
            }, `${step.name}: the owners touched, and those read again`);
            const mayWrite = new Set([...touched.recompute[0], ...touched.relist[0]].map((id) => `f${id}`).concat([...touched.recompute[1], ...touched.relist[1]].map((id) => `t${id}`)));
            assert.deepEqual(written.filter((key) => !mayWrite.has(key)), [], `${step.name}: only touched owners written`);
          }
          assert.deepEqual(written.filter((key) => untouched.includes(key)), [], `${step.name}: owners it cannot change are not written`);
          const whole = await wholePass(store);
          assert.deepEqual(await computedColumns(dbOf(store)), whole.columns, `${step.name}: as the whole-store pass computes`);
          assert.equal(whole.written, 0, `${step.name}: the whole-store pass has nothing to write`);
        }
        assert.ok(plans.filter((p) => p?.whole === false).length >= STEPS.length - 1);

        // The same final data imported at once into an empty store.
        const { store: reference } = await backend.create();
        try {
          await importDataset(reference, data, fixedClock);
          assert.deepEqual(await computedColumns(dbOf(store)), await computedColumns(dbOf(reference)));
        } finally {
          await reference.close();
        }
      } finally {
        await store.close();
      }
    });
  });
}
