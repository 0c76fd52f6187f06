// An explore query on an SQLite store runs on a thread of its own (docs/explore.md, "How queries stay
// bounded"): the serving thread keeps running while it does, and the query stops at its deadline
// rather than running to its end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importDataset } from '../../src/import/import-file.js';
import { exploreFilter } from '../../src/explore/explore-filters.js';
import type { ExploreResult } from '../../src/store/contract/explore.js';
import type { Store } from '../../src/store/contract/store.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeOptions } from '../helpers/store-backends.js';
import { openTestStore } from '../helpers/store-db.js';
import { addFiller, exploreData, EXPLORE_NOW } from '../helpers/explore-data.js';

/** Every filler row passes the wildcard and is checked against the second: a query that reads them all. */
const SLOW = 'ioc=*filler* and not ioc=*zzz*';

describe('explore on an SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-explore-'));
  let store: Store;
  before(async () => {
    store = await openTestStore(join(dir, 'store.sqlite'), storeOptions());
    await importDataset(store, exploreData(), fixedClock);
    await addFiller(store, 200_000);
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const explore = (maxMillis: number): Promise<ExploreResult> =>
    store.explore({ mode: 'indicators', filter: exploreFilter('indicators', SLOW, EXPLORE_NOW), offset: 150_000, limit: 100, maxMillis });

  it('keeps the calling thread free while a long query runs', async () => {
    await explore(60_000); // the worker's start-up, out of the measure
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 5);
    const started = Date.now();
    const result = await explore(60_000);
    const elapsed = Date.now() - started;
    clearInterval(timer);
    assert.ok(result.timedOut !== true && result.rows.length === 100);
    assert.ok(elapsed >= 100, `the query took ${elapsed} ms: too short to tell`);
    // A blocked thread would fire the timer at most once, after the query.
    assert.ok(ticks >= elapsed / 25, `${ticks} ticks in ${elapsed} ms`);
  });

  it('stops a query at its deadline, well before it would end', async () => {
    const started = Date.now();
    await explore(60_000);
    const whole = Date.now() - started;
    const cut = Date.now();
    assert.deepEqual(await explore(Math.floor(whole / 10)), { timedOut: true });
    assert.ok(Date.now() - cut < whole / 2, `stopped after ${Date.now() - cut} ms of ${whole}`);
  });

  it('counts a query\'s wait behind another against its deadline', async () => {
    const started = Date.now();
    await explore(60_000);
    const whole = Date.now() - started;
    const exact = (maxMillis: number) =>
      store.explore({ mode: 'indicators', filter: exploreFilter('indicators', 'ioc=login.evil.example', EXPLORE_NOW), offset: 0, limit: 10, maxMillis });
    const alone = await exact(60_000);
    assert.ok(alone.timedOut !== true && alone.mode === 'indicators' && alone.rows.length === 1);
    // Asked while the long query runs, a quick one whose time is a tenth of the long one's ends unanswered.
    const long = explore(60_000);
    const quick = exact(Math.floor(whole / 10));
    assert.deepEqual(await quick, { timedOut: true });
    assert.ok((await long).timedOut !== true);
  });
});
