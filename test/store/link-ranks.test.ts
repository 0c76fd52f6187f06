// Link page ranks (seq) after imports that add links to owners that have some: a few new links
// shift the links after each of them, many rank the owner again from its first new link; either way
// every owner's links must be ranked 0, 1, 2, ... in iid order, as a fresh import ranks them.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { generateDemo } from '../../src/demo/generate-demo.js';
import type { Indicator, Link } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Database } from '../../src/store/db/schema.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';
import { openExplainingStore } from '../helpers/query-plans.js';

const demo = generateDemo({ indicators: 20 });

const indicator = (iid: number): Indicator => ({
  iid,
  indicator: `198.51.${Math.floor(iid / 256)}.${iid % 256}`,
  type: 'ip',
  risk: 'low',
  stamp_added: '2025-01-01 00:00:00',
  stamp_updated: null,
  stamp_seen: null,
  retired: false,
  attributes: {},
  properties: {},
});

/** Links whose rank is not their place in iid order within their owner, for both tables. */
async function misranked(db: Kysely<Database>): Promise<string[]> {
  const out: string[] = [];
  for (const [table, owner] of [
    ['feed_links', 'fid'],
    ['threat_links', 'tid'],
  ] as const) {
    const { rows } = await sql<{ owner: number; iid: number; seq: number; rn: number }>`
      select owner, iid, seq, rn from (
        select ${sql.ref(owner)} as owner, iid, seq, row_number() over (partition by ${sql.ref(owner)} order by iid) - 1 as rn from ${sql.table(table)}) as r
      where seq <> rn`.execute(db);
    for (const r of rows) out.push(`${table} ${Number(r.owner)}:${Number(r.iid)} seq ${Number(r.seq)} not ${Number(r.rn)}`);
  }
  return out;
}

for (const backend of storeBackends()) {
  describe(`link page ranks after new links (${backend.name})`, () => {
    after(() => backend.cleanup());

    it('rank every owner in iid order, whether its later links are shifted or ranked again', async () => {
      const { store } = await backend.create();
      try {
        const indicators = Array.from({ length: 1200 }, (_, k) => indicator(k + 1));
        const feeds = [1, 2, 3].map((fid) => ({ ...demo.feeds[fid - 1]!, fid }));
        const threats = [1, 2].map((tid) => ({ ...demo.threats[tid - 1]!, tid, related: [] }));
        // Feed 1 holds every third indicator, feed 2 the even ones up to 400, threat 1 every fifth.
        const links: Link[] = [
          ...indicators.filter((i) => i.iid % 3 === 0).map((i) => ({ fid: 1, iid: i.iid, stamp_linked: '2025-01-01 00:00:00' })),
          ...indicators.filter((i) => i.iid % 2 === 0 && i.iid <= 400).map((i) => ({ fid: 2, iid: i.iid, stamp_linked: '2025-01-01 00:00:00' })),
          ...indicators.filter((i) => i.iid % 5 === 0).map((i) => ({ tid: 1, iid: i.iid, stamp_linked: '2025-01-01 00:00:00' })),
        ];
        await importDataset(store, { threats, feeds, indicators, links }, fixedClock);
        assert.deepEqual(await misranked(dbOf(store)), []);
        const at = (minutes: number) => ({ now: () => fixedClock.now() + minutes * 60_000 });
        const stamp = '2026-02-01 00:00:00';

        // A few: the first indicator, two in the middle, one after the last, a restamped link
        // among them (it keeps its place), into feed 1; and to threat 1, and to feed 3 (no links yet).
        await importDataset(
          store,
          {
            threats: [],
            feeds: [],
            indicators: [],
            links: [
              ...[1, 500, 501, 1199].map((iid) => ({ fid: 1, iid, stamp_linked: stamp })),
              { fid: 1, iid: 600, stamp_linked: stamp },
              ...[2, 3, 1198].map((iid) => ({ tid: 1, iid, stamp_linked: stamp })),
              ...[7, 8].map((iid) => ({ fid: 3, iid, stamp_linked: stamp })),
            ],
          },
          at(1),
        );
        assert.deepEqual(await misranked(dbOf(store)), [], 'a few new links');

        // Many (more than 200) into feed 2, after its first 50 links: the odd indicators from 101 to
        // 799, and the even ones from 402 to 700.
        const many = indicators.filter((i) => (i.iid % 2 === 1 && i.iid > 100 && i.iid <= 800) || (i.iid % 2 === 0 && i.iid > 400 && i.iid <= 700));
        assert.ok(many.length > 200);
        await importDataset(store, { threats: [], feeds: [], indicators: [], links: many.map((i) => ({ fid: 2, iid: i.iid, stamp_linked: stamp })) }, at(2));
        assert.deepEqual(await misranked(dbOf(store)), [], 'many new links');

        // New indicators, linked after every link the feeds hold.
        const more = [1201, 1202, 1203].map(indicator);
        await importDataset(store, { threats: [], feeds: [], indicators: more, links: more.map((i) => ({ fid: 1, iid: i.iid, stamp_linked: stamp })) }, at(3));
        assert.deepEqual(await misranked(dbOf(store)), [], 'links at the end');
        // Many new indicators, linked after every link of threat 1 and of feed 2, and to feed 3,
        // whose two links are below them: ranked as they go in, the renumbering finds them in place.
        const tail = Array.from({ length: 250 }, (_, k) => indicator(1301 + k));
        await importDataset(
          store,
          {
            threats: [], feeds: [], indicators: tail,
            links: tail.flatMap((i) => [{ tid: 1, iid: i.iid, stamp_linked: stamp }, { fid: 2, iid: i.iid, stamp_linked: stamp }, { fid: 3, iid: i.iid, stamp_linked: stamp }]),
          },
          at(4),
        );
        assert.deepEqual(await misranked(dbOf(store)), [], 'many links at the end');
        const page = await store.findLinksPage({ kind: 'feed', fid: 3 }, 0, 3);
        assert.deepEqual(page.rows.map((r) => r.iid), [7, 8, 1301]);
        const last = await store.findLinksPage({ kind: 'feed', fid: 1 }, 0, 1000);
        assert.deepEqual(last.rows.slice(0, 3).map((r) => r.iid), [1, 3, 6]);
      } finally {
        await store.close();
      }
    });

    it('rank a feed the statistics have not seen yet in one pass, and leave appended links as they went in', async () => {
      const { store, location } = await backend.create();
      const explaining = await openExplainingStore(location, dialectOf(store), [], []);
      try {
        const indicators = Array.from({ length: 3000 }, (_, k) => indicator(k + 1));
        const feeds = [1, 2].map((fid) => ({ ...demo.feeds[fid - 1]!, fid }));
        const linked = (fid: number, iids: number[]) => iids.map((iid) => ({ fid, iid, stamp_linked: '2025-01-01 00:00:00' }));
        await importDataset(store, { threats: [], feeds, indicators, links: linked(1, indicators.map((i) => i.iid)) }, fixedClock);
        // The statistics know feed 1's links only: feed 2 holds none when they are taken.
        await sql`analyze feed_links`.execute(dbOf(store));
        const at = (minutes: number) => ({ now: () => fixedClock.now() + minutes * 60_000 });
        const ranking = /set seq = r\.rn/;

        // Feed 2's first links all come after its (no) last one: ranked as they go in, none rewritten.
        explaining.take();
        await importDataset(explaining.store, { threats: [], feeds: [], indicators: [], links: linked(2, indicators.filter((i) => i.iid >= 1500).map((i) => i.iid)) }, at(1));
        assert.deepEqual(explaining.take().filter((st) => ranking.test(st.sql)).map((st) => st.sql), [], 'appended links ranked again');
        assert.deepEqual(await misranked(dbOf(store)), [], 'appended links');

        // 749 links below feed 2's first: its 1,501 links are ranked again from the first new one.
        // With statistics that put feed 2 at no rows, PostgreSQL would rerun the ranking once for
        // every link (a nested loop); the ranks and the links are both read in iid order, once.
        await importDataset(explaining.store, { threats: [], feeds: [], indicators: [], links: linked(2, indicators.filter((i) => i.iid < 1500 && i.iid % 2 === 0).map((i) => i.iid)) }, at(2));
        const ranked = explaining.take().filter((st) => ranking.test(st.sql));
        assert.equal(ranked.length, 1, 'the ranking statement');
        if (backend.name === 'PostgreSQL') assert.deepEqual(ranked[0]!.lines.filter((line) => /Nested Loop/.test(line)), [], ranked[0]!.lines.join('\n'));
        assert.deepEqual(await misranked(dbOf(store)), [], 'links below the first');
      } finally {
        await explaining.close();
        await store.close();
      }
    });
  });
}
