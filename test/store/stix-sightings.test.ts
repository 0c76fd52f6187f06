// Sightings in the STIX export (docs/stix-mapping.md, "Sightings"): a sighted indicator's one sighting
// object in every collection that holds the indicator, a new version as sightings arrive, the new
// last_seen of the threats observed, and no sighting object with `stix.sightings` off. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../../src/clock.js';
import { importDataset } from '../../src/import/import-file.js';
import { stixIdForIndicator, stixIdForSighting, stixIdForThreat, THREATGATE_IDENTITY } from '../../src/stix/index.js';
import type { SightingTarget } from '../../src/store/contract/observations.js';
import { noBatches } from '../../src/store/contract/write-batch.js';
import type { Store } from '../../src/store/contract/store.js';
import type { Database } from '../../src/store/db/schema.js';
import { refreshCollections } from '../../src/store/publish/collection-views.js';
import { DateAddedClock } from '../../src/store/publish/date-added-clock.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, openTestStore } from '../helpers/store-db.js';
import { ALL, FEED_1, FEED_3, HIGH, members, minute, only, SAMPLE, snapshot, storeWithViews, THREAT_2, VIEWS, type Member } from './stix-sync-views.js';

const sight = (store: Store, target: SightingTarget, seenAt: string, count: number, clock: Clock) =>
  store.applyWrite({ kind: 'sighting', plan: { target, by: { keyId: 'k', label: 'Analyst' }, reportedAt: '2026-01-15 10:00:00', seenAt, count, note: 'private' } }, noBatches(), clock);

const SIGHTING = stixIdForSighting(3);
const threatId = (tid: number) => stixIdForThreat(buildFixture().threats.find((t) => t.tid === tid)!);
const find = (list: Member[], id: string) => list.find((m) => m.id === id);
/** Every view but FEED_3 holds indicator 3 (feed 1, critical, threats 1 and 2, among the first five). */
const HOLDING = [ALL, SAMPLE, FEED_1, HIGH, THREAT_2];

for (const backend of storeBackends()) {
  describe(`STIX sightings (${backend.name})`, () => {
    after(() => backend.cleanup());

    describe('with stix.sightings on (the default)', () => {
      let store: Store;
      let first: Member;
      before(async () => {
        ({ store } = await storeWithViews(backend));
      });
      after(() => store.close());

      it('a sighted indicator has one sighting object in every collection that holds it, and in no other', async () => {
        const before_ = await snapshot(store, ALL);
        await sight(store, { iid: 3 }, '2026-01-10 08:00:00', 2, minute(1));
        for (const collection of HOLDING) {
          const list = await members(store, collection);
          assert.deepEqual(list.filter((m) => m.type === 'sighting').map((m) => m.id), [SIGHTING], collection);
        }
        assert.equal(find(await members(store, FEED_3), SIGHTING), undefined);
        first = find(await members(store, ALL), SIGHTING)!;
        assert.deepEqual(first.object, {
          type: 'sighting', spec_version: '2.1', id: SIGHTING, created_by_ref: THREATGATE_IDENTITY.id, created: first.modified, modified: first.modified,
          first_seen: '2026-01-10T08:00:00.000Z', last_seen: '2026-01-10T08:00:00.000Z', count: 2, sighting_of_ref: stixIdForIndicator(3),
          where_sighted_refs: [THREATGATE_IDENTITY.id],
        });
        // Besides it, only the two threats indicator 3 is linked to have new versions (their last_seen).
        const after_ = await snapshot(store, ALL);
        const changed = [...after_.keys()].filter((id) => before_.get(id) !== after_.get(id)).sort();
        assert.deepEqual(changed, [SIGHTING, threatId(1), threatId(2)].sort());
      });

      it('the threats it is linked to show the sighting as their last_seen', async () => {
        const list = await members(store, ALL);
        for (const tid of [1, 2]) assert.equal(find(list, threatId(tid))?.object.last_seen, '2026-01-10T08:00:00.000Z');
      });

      it('more sightings make a new version: the total, the whole period, a later modified, the same created', async () => {
        await sight(store, { iid: 3 }, '2026-01-02 00:00:00', 3, minute(2));
        await sight(store, { iid: 3 }, '2026-01-12 00:00:00', 1, minute(3));
        for (const collection of HOLDING) {
          const now = find(await members(store, collection), SIGHTING)!;
          assert.deepEqual([now.object.count, now.object.first_seen, now.object.last_seen], [6, '2026-01-02T00:00:00.000Z', '2026-01-12T00:00:00.000Z'], collection);
          assert.ok(now.modified > first.modified, `${collection}: modified ${now.modified} did not move on`);
          assert.equal(now.object.created, first.object.created);
        }
        assert.ok(find(await members(store, ALL), SIGHTING)!.dateAdded > first.dateAdded);
      });

      it("leaves out who reported each sighting and their notes", async () => {
        const body = JSON.stringify(find(await members(store, ALL), SIGHTING)!.object);
        assert.doesNotMatch(body, /private|Analyst/);
      });

      it('a threat sighted directly gets a new last_seen and no sighting object', async () => {
        await sight(store, { tid: 1 }, '2026-01-14 00:00:00', 1, minute(4));
        const list = await members(store, ALL);
        assert.equal(find(list, threatId(1))?.object.last_seen, '2026-01-14T00:00:00.000Z');
        assert.deepEqual(list.filter((m) => m.type === 'sighting').map((m) => m.id), [SIGHTING]);
      });

      it('each view then holds what a full refresh would give it', async () => {
        // Sightings of indicators in no view but the unfiltered one, and beyond the sample's five.
        const { indicators } = buildFixture();
        for (const indicator of indicators.slice(-3)) await sight(store, { iid: indicator.iid }, '2026-01-14 00:00:00', 1, minute(4));
        const views = async (db: Kysely<Database>) => {
          const { rows } = await sql<{ collection: string; id: string; modified: string }>`select collection, id, modified from collection_objects order by collection, id`.execute(db);
          return rows.map((r) => `${r.collection} ${r.id} ${r.modified}`);
        };
        const kept = await views(dbOf(store));
        const ROLLBACK = new Error('roll back');
        await assert.rejects(
          dbOf(store).transaction().execute(async (trx) => {
            await refreshCollections(trx, VIEWS, await DateAddedClock.open(trx, minute(4).now()));
            assert.deepEqual(await views(trx), kept);
            throw ROLLBACK;
          }),
          (error) => error === ROLLBACK,
        );
      });

      it("a retired threat's final version stays its last", async () => {
        const retired = find(await members(store, ALL), threatId(3))!;
        await sight(store, { tid: 3 }, '2026-01-14 00:00:00', 1, minute(5));
        assert.deepEqual(find(await members(store, ALL), threatId(3)), retired);
      });

      it('an indicator that leaves the export takes its sighting with it: revoked in every view that held it', async () => {
        const three = { ...buildFixture().indicators[2]!, type: 'md5', indicator: 'Global\\zeus-mutex' };
        await importDataset(store, only({ indicators: [three] }), minute(6));
        for (const collection of HOLDING) assert.equal(find(await members(store, collection), SIGHTING)?.object.revoked, true as unknown as string, collection);
        // Revocation is final: a later sighting makes no version.
        const revoked = find(await members(store, ALL), SIGHTING);
        await sight(store, { iid: 3 }, '2026-01-14 00:00:00', 1, minute(7));
        assert.deepEqual(find(await members(store, ALL), SIGHTING), revoked);
      });
    });

    describe('with stix.sightings off', () => {
      let store: Store;
      before(async () => {
        const made = await storeWithViews(backend);
        await made.store.close();
        store = await openTestStore(made.location, { collections: VIEWS, sightings: false });
      });
      after(() => store.close());

      it('a sighted indicator has no sighting object; its threats still show when they were last seen', async () => {
        await sight(store, { iid: 3 }, '2026-01-10 08:00:00', 2, minute(1));
        const list = await members(store, ALL);
        assert.deepEqual(list.filter((m) => m.type === 'sighting'), []);
        assert.equal(find(list, threatId(2))?.object.last_seen, '2026-01-10T08:00:00.000Z');
        assert.equal((await store.observationCounts({ iid: 3 }))?.sightings, 2);
      });
    });
  });
}
