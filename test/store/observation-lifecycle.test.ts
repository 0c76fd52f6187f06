// A sighting keeps a threat active (docs/interface.md section 3): the lifecycle retires a threat by
// its last observation, and a sighting of the threat, or of an indicator linked to it, is one. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import type { LifecyclePlan } from '../../src/store/contract/commands.js';
import type { SightingTarget } from '../../src/store/contract/observations.js';
import { noBatches } from '../../src/store/contract/write-batch.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';

const NOW = '2026-01-15 10:00:00';

/** Every threat of the fixture was last seen on 2025-06-02: this cutoff would retire each active one. */
const RUN: LifecyclePlan = { at: NOW, threatCutoff: '2025-10-17 10:00:00', indicatorCutoffs: { byType: {}, default: '2000-01-01 00:00:00' } };

const sight = (store: Store, target: SightingTarget, seenAt: string) =>
  store.applyWrite({ kind: 'sighting', plan: { target, by: { keyId: null, label: 'command line' }, reportedAt: NOW, seenAt, count: 1, note: null } }, noBatches(), fixedClock);

const runLifecycle = async (store: Store) => (await store.applyWrite({ kind: 'lifecycle', plan: RUN }, noBatches(), fixedClock)).lifecycle;

for (const backend of storeBackends()) {
  describe(`the lifecycle after sightings (${backend.name})`, () => {
    after(() => backend.cleanup());

    describe('a threat sighted directly', () => {
      let store: Store;
      before(async () => {
        ({ store } = await backend.create());
        await importDataset(store, buildFixture(), fixedClock);
      });
      after(() => store.close());

      it('stays active past the cutoff it would otherwise meet, while an unseen one retires', async () => {
        await sight(store, { tid: 1 }, '2026-01-02 00:00:00');
        const { retiredThreats } = await runLifecycle(store);
        assert.deepEqual(retiredThreats, [{ tid: 2, name: 'Emotet' }]);
        assert.equal((await store.findThreat(1))?.retired, false);
        assert.equal((await store.findThreat(2))?.retired, true);
      });
    });

    describe('a threat whose indicator is sighted', () => {
      let store: Store;
      before(async () => {
        ({ store } = await backend.create());
        await importDataset(store, buildFixture(), fixedClock);
      });
      after(() => store.close());

      it('stays active: indicator 24 is linked to threat 2 only, so threat 1 retires', async () => {
        await sight(store, { iid: 24 }, '2026-01-02 00:00:00');
        const { retiredThreats } = await runLifecycle(store);
        assert.deepEqual(retiredThreats, [{ tid: 1, name: 'Zeus' }]);
        assert.equal((await store.findThreat(2))?.retired, false);
      });

      it('retires once its latest observation, sighted or not, is older than the cutoff', async () => {
        await sight(store, { tid: 2 }, '2025-09-01 00:00:00');
        const later: LifecyclePlan = { ...RUN, threatCutoff: '2026-01-10 00:00:00' };
        const { lifecycle } = await store.applyWrite({ kind: 'lifecycle', plan: later }, noBatches(), fixedClock);
        assert.deepEqual(lifecycle.retiredThreats, [{ tid: 2, name: 'Emotet' }]);
      });
    });
  });
}
