// The demo stays alive (docs/interface.md section 10, `demo`): loaded at some moment, the lifecycle run then retires only the
// few threats the demo marks stale, and a year later the same holds for a demo loaded then.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { generateDemo } from '../../src/demo/generate-demo.js';
import { importDataset } from '../../src/import/import-file.js';
import { runLifecycle } from '../../src/lifecycle/run-lifecycle.js';
import { storeBackends } from '../helpers/store-backends.js';

const STALE = [
  { tid: 10, name: 'Sable Tern' },
  { tid: 26, name: 'Ghostreed' },
  { tid: 29, name: 'Petrel Proxy' },
  { tid: 30, name: 'Driftglass DGA' },
];
const SETTINGS = loadConfig({}).lifecycle;
const fixedClock = (now: number): Clock => ({ now: () => now });

describe('the demo under the lifecycle (SQLite)', () => {
  const [sqlite] = storeBackends();
  after(async () => sqlite!.cleanup());

  for (const loaded of [Date.UTC(2026, 10, 25, 9, 30, 15), Date.UTC(2027, 10, 25, 9, 30, 15)]) {
    it(`retires exactly the stale threats of a demo loaded on ${new Date(loaded).toISOString().slice(0, 10)}, then nothing`, async () => {
      const { store } = await sqlite!.create();
      try {
        const clock = fixedClock(loaded);
        await importDataset(store, generateDemo({ indicators: 400, now: loaded }), clock);
        assert.equal(SETTINGS.threatRetireDays, 90);
        assert.deepEqual(await runLifecycle(store, SETTINGS, clock), { retiredThreats: STALE, agedIndicators: 0 });
        assert.deepEqual(await runLifecycle(store, SETTINGS, clock), { retiredThreats: [], agedIndicators: 0 });
        const active = [];
        for (let tid = 1; tid <= 30; tid++) if ((await store.findThreat(tid))?.retired === false) active.push(tid);
        assert.equal(active.length, 30 - 4 - STALE.length);
      } finally {
        await store.close();
      }
    });
  }
});
