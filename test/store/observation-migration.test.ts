// Migration 0020 (observations: observation-migration.ts) on a store that already holds data: a store
// as written at 0019 is made by taking the migration's tables, columns and record away from a current
// one; migrating gives every indicator and threat counters of 0, and observations work at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { noBatches } from '../../src/store/contract/write-batch.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { migrateRewound, rewindObservations } from '../helpers/store-db.js';
import { fixedClock } from '../helpers/test-app.js';


for (const backend of storeBackends()) {
  describe(`migration 0020 on ${backend.name} (observations)`, () => {
    let store: Store;
    before(async () => {
      const created = await backend.create();
      store = created.store;
      await importDataset(store, buildFixture(), fixedClock);
      await rewindObservations(store);
      await migrateRewound(store, created.location);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    it('keeps every indicator and threat, none of them observed yet', async () => {
      const one = await store.findIndicator(1);
      assert.deepEqual([one?.indicator, one?.sightings, one?.stamp_sighted, one?.submissions], ['198.51.100.1', 0, null, 0]);
      assert.deepEqual(await store.observationCounts({ tid: 1 }), { sightings: 0, stamp_sighted: null, submissions: 0 });
      assert.deepEqual(await store.listSightings({ iid: 1 }, 10), []);
    });

    it('takes sightings and submissions at once', async () => {
      const plan = { target: { iid: 1 }, by: { keyId: null, label: 'command line' }, reportedAt: '2026-01-15 10:00:00', seenAt: '2026-01-15 09:00:00', count: 3, note: null };
      const { sighted } = await store.applyWrite({ kind: 'sighting', plan }, noBatches(), fixedClock);
      const { submitted } = await store.applyWrite(
        { kind: 'submission', plan: { keyId: 'key-a', value: '198.51.100.1', type: 'ip', iid: 1, at: '2026-01-15 10:00:00' } }, noBatches(), fixedClock,
      );
      assert.deepEqual(await store.listSightings({ iid: 1 }, 10), [sighted]);
      assert.deepEqual(await store.findSubmission(submitted.qid, 'key-a'), submitted);
      assert.deepEqual(await store.observationCounts({ iid: 1 }), { sightings: 3, stamp_sighted: '2026-01-15 09:00:00', submissions: 1 });
    });
  });
}
