// Observations in the store (docs/observations.md): the `sighting` and `submission` writes, the
// counters they keep, what they observe (stamp_seen of an indicator and its threats), what they leave
// alone (a retired threat, an aged-out indicator's risk), what they refuse, and the reads. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import type { Clock } from '../../src/clock.js';
import { SightingRefused, type Reporter, type SightingTarget } from '../../src/store/contract/observations.js';
import { noBatches } from '../../src/store/contract/write-batch.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';

const REPORTED = '2026-01-15 10:00:00';
const ANALYST: Reporter = { keyId: 'key-analyst', label: 'Analyst' };
const COMMAND_LINE: Reporter = { keyId: null, label: 'command line' };

const sight = (store: Store, target: SightingTarget, seenAt: string, count = 1, by: Reporter = ANALYST, note: string | null = null, clock: Clock = fixedClock) =>
  store.applyWrite({ kind: 'sighting', plan: { target, by, reportedAt: REPORTED, seenAt, count, note } }, noBatches(), clock);

const submit = (store: Store, keyId: string, value: string, iid: number | null, at = REPORTED) =>
  store.applyWrite({ kind: 'submission', plan: { keyId, value, type: iid === null ? null : 'ip', iid, at } }, noBatches(), fixedClock);

/** Rows of the tables an observation writes, and the data version: what a refused write must leave as it was. */
async function footprint(store: Store) {
  const db = dbOf(store);
  const count = async (table: 'sightings' | 'submissions' | 'indicators') => Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const stamps = await db.selectFrom('threats').select(['tid', 'stamp_seen', 'sightings']).orderBy('tid').execute();
  const indicator = await db.selectFrom('indicators').select(['stamp_seen', 'sightings', 'submissions']).where('iid', '=', 1).executeTakeFirstOrThrow();
  return { sightings: await count('sightings'), submissions: await count('submissions'), indicators: await count('indicators'), stamps, indicator, version: await store.dataVersion() };
}

const threatSeen = async (store: Store, tid: number) => (await store.findThreat(tid))?.stamp_seen;

for (const backend of storeBackends()) {
  describe(`observations in the store (${backend.name})`, () => {
    let store: Store;
    before(async () => {
      ({ store } = await backend.create());
      await importDataset(store, buildFixture(), fixedClock);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    describe('a sighting of an indicator', () => {
      it('is stored as given and given back', async () => {
        const result = await sight(store, { iid: 1 }, '2026-01-10 08:00:00', 2, ANALYST, 'case 42');
        assert.deepEqual({ ...result.sighted, id: 0 }, {
          id: 0, iid: 1, tid: null, reported_by: 'key-analyst', reported_by_label: 'Analyst', reported_at: REPORTED, seen_at: '2026-01-10 08:00:00', count: 2, note: 'case 42',
        });
        assert.deepEqual(await store.listSightings({ iid: 1 }, 10), [result.sighted]);
      });

      it('adds up: the sum of the counts, the latest seen, on the indicator and its lookup', async () => {
        await sight(store, { iid: 1 }, '2026-01-12 09:30:00', 3, COMMAND_LINE);
        await sight(store, { iid: 1 }, '2026-01-05 00:00:00', 1);
        assert.deepEqual(await store.observationCounts({ iid: 1 }), { sightings: 6, stamp_sighted: '2026-01-12 09:30:00', submissions: 0 });
        const found = await store.findIndicator(1);
        assert.deepEqual([found?.sightings, found?.stamp_sighted, found?.submissions], [6, '2026-01-12 09:30:00', 0]);
        const byValue = await store.findIndicatorByValue('198.51.100.1', ['ip']);
        assert.equal(byValue?.sightings, 6);
      });

      it('is an observation: the indicator and each linked threat are seen at its time, never earlier than before', async () => {
        assert.equal((await store.findIndicator(1))?.stamp_seen, '2026-01-12 09:30:00');
        assert.equal(await threatSeen(store, 1), '2026-01-12 09:30:00');
        // Indicator 3 is linked to threats 1 and 2; a sighting seen before threat 1's last observation leaves it.
        await sight(store, { iid: 3 }, '2026-01-11 00:00:00');
        assert.equal(await threatSeen(store, 1), '2026-01-12 09:30:00');
        assert.equal(await threatSeen(store, 2), '2026-01-11 00:00:00');
        assert.equal((await store.findIndicator(3))?.stamp_seen, '2026-01-11 00:00:00');
      });

      it('makes a new data version', async () => {
        const version = await store.dataVersion();
        await sight(store, { iid: 2 }, '2026-01-13 00:00:00');
        assert.notEqual(await store.dataVersion(), version);
      });
    });

    describe('a sighting of a threat', () => {
      it('counts on the threat and observes it', async () => {
        await sight(store, { tid: 2 }, '2026-01-14 00:00:00', 4);
        await sight(store, { tid: 2 }, '2026-01-13 00:00:00', 1);
        assert.deepEqual(await store.observationCounts({ tid: 2 }), { sightings: 5, stamp_sighted: '2026-01-14 00:00:00', submissions: 0 });
        assert.equal(await threatSeen(store, 2), '2026-01-14 00:00:00');
        assert.deepEqual((await store.listSightings({ tid: 2 }, 10)).map((s) => [s.tid, s.count]), [[2, 1], [2, 4]]);
      });

      it('leaves a retired threat retired', async () => {
        const old = await store.findThreat(3);
        assert.equal(old?.retired, true);
        await sight(store, { tid: 3 }, '2026-01-14 00:00:00');
        const now = await store.findThreat(3);
        assert.deepEqual([now?.retired, now?.risk, now?.stamp_retired, now?.stamp_seen], [true, old?.risk, old?.stamp_retired, '2026-01-14 00:00:00']);
      });
    });

    describe('what a sighting leaves alone', () => {
      it('an aged-out indicator keeps the risk its sources gave it', async () => {
        // Listed by a pull once, long ago, and by no source since: the lifecycle ages it out.
        await sql`update indicators set stamp_listed = '2025-01-01 00:00:00' where iid = 4`.execute(dbOf(store));
        await sql`insert into unlisted_indicators (iid, stamp_unlisted) values (4, '2025-01-01 00:00:00')`.execute(dbOf(store));
        const plan = { at: REPORTED, threatCutoff: '2000-01-01 00:00:00', indicatorCutoffs: { byType: {}, default: '2025-12-01 00:00:00' } };
        const { lifecycle } = await store.applyWrite({ kind: 'lifecycle', plan }, noBatches(), fixedClock);
        assert.equal(lifecycle.agedIndicators, 1);
        await sight(store, { iid: 4 }, '2026-01-14 00:00:00');
        const four = await store.findIndicator(4);
        assert.deepEqual([four?.risk, four?.retired, four?.retired_reason, four?.sightings], ['retired', true, 'aged-out', 1]);
      });
    });

    describe('refusals', () => {
      for (const [name, target] of [['an unknown iid', { iid: 9999 }], ['an unknown tid', { tid: 9999 }]] as const) {
        it(`a sighting of ${name} is refused and changes nothing`, async () => {
          const before_ = await footprint(store);
          await assert.rejects(sight(store, target, '2026-01-14 00:00:00'), (error: unknown) => error instanceof SightingRefused && /9999/.test(error.message));
          assert.deepEqual(await footprint(store), before_);
        });
      }
      it('a count below 1 is refused and changes nothing', async () => {
        const before_ = await footprint(store);
        await assert.rejects(sight(store, { iid: 1 }, '2026-01-14 00:00:00', 0), SightingRefused);
        assert.deepEqual(await footprint(store), before_);
      });
      it('a submission naming an unknown iid is refused and changes nothing', async () => {
        const before_ = await footprint(store);
        await assert.rejects(submit(store, 'key-a', '203.0.113.250', 9999), SightingRefused);
        assert.deepEqual(await footprint(store), before_);
      });
    });

    describe('submissions', () => {
      it('count the distinct keys that submitted an indicator, and observe it', async () => {
        const first = await submit(store, 'key-a', '198.51.100.5', 5, '2026-01-14 12:00:00');
        await submit(store, 'key-a', '198.51.100.5', 5);
        await submit(store, 'key-b', '198.51.100.5', 5);
        assert.equal(first.submitted.iid, 5);
        assert.deepEqual(await store.observationCounts({ iid: 5 }), { sightings: 0, stamp_sighted: null, submissions: 2 });
        assert.equal((await store.findIndicator(5))?.submissions, 2);
        assert.equal((await store.findIndicator(5))?.stamp_seen, REPORTED);
        assert.deepEqual((await store.listSubmissions(5, 10)).map((s) => s.key_id), ['key-b', 'key-a', 'key-a']);
        assert.deepEqual((await store.listSubmissions(5, 1)).map((s) => s.key_id), ['key-b']);
      });

      it('a qid is readable by the key that made it only', async () => {
        const { submitted } = await submit(store, 'key-a', '198.51.100.7', 7);
        assert.deepEqual(await store.findSubmission(submitted.qid, 'key-a'), submitted);
        assert.equal(await store.findSubmission(submitted.qid, 'key-b'), undefined);
        assert.equal(await store.findSubmission(submitted.qid + 1000, 'key-a'), undefined);
      });

      it('an unknown value is kept for its key and creates no indicator, nor a new data version', async () => {
        const before_ = await footprint(store);
        const { submitted } = await submit(store, 'key-a', 'unknown.example.org', null);
        assert.deepEqual({ ...submitted, qid: 0 }, { qid: 0, key_id: 'key-a', value: 'unknown.example.org', type: null, iid: null, submitted_at: REPORTED });
        assert.deepEqual(await store.findSubmission(submitted.qid, 'key-a'), submitted);
        assert.equal(await store.findIndicatorByValue('unknown.example.org', ['domain']), undefined);
        assert.deepEqual(await footprint(store), { ...before_, submissions: before_.submissions + 1 });
      });

      it('qids increase', async () => {
        const one = await submit(store, 'key-c', 'a.example.org', null);
        const two = await submit(store, 'key-c', 'b.example.org', null);
        assert.ok(two.submitted.qid > one.submitted.qid);
      });
    });

    describe('paging the sightings', () => {
      it('gives the newest first, a page at a time, to the last', async () => {
        for (let day = 1; day <= 5; day++) await sight(store, { iid: 8 }, `2026-01-0${day} 00:00:00`, day);
        const all = await store.listSightings({ iid: 8 }, 100);
        assert.deepEqual(all.map((s) => s.count), [5, 4, 3, 2, 1]);
        assert.ok(all.every((s, n) => n === 0 || s.id < all[n - 1]!.id));
        const pages: number[][] = [];
        for (let beforeId: number | undefined; ; ) {
          const page = await store.listSightings({ iid: 8 }, 2, beforeId);
          if (page.length === 0) break;
          pages.push(page.map((s) => s.count));
          beforeId = page.at(-1)!.id;
        }
        assert.deepEqual(pages, [[5, 4], [3, 2], [1]]);
      });

      it('gives nothing for a record never sighted, and no counts for one not stored', async () => {
        assert.deepEqual(await store.listSightings({ iid: 9 }, 10), []);
        assert.deepEqual(await store.observationCounts({ iid: 9 }), { sightings: 0, stamp_sighted: null, submissions: 0 });
        assert.equal(await store.observationCounts({ iid: 9999 }), undefined);
        assert.equal(await store.observationCounts({ tid: 9999 }), undefined);
      });
    });
  });
}
