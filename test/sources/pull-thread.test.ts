// The puller's thread, supervised: a thread that dies is started again with a backoff and says so meanwhile, and a
// new thread releases the leases of the one it replaces before it pulls.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import type { BackgroundEvent } from '../../src/metrics/metrics.js';
import { startBackgroundPulls } from '../../src/sources/background-pulls.js';
import type { PullThreadData, PullThreadMessage } from '../../src/sources/pull-thread.js';
import { openStore } from '../../src/store/open-store.js';
import { startModuleWorker } from '../../src/threads.js';
import { eventually } from '../helpers/eventually.js';
import { startFeedServer } from '../helpers/feed-server.js';
import { DEFAULT_COLLECTIONS, storeBackends } from '../helpers/store-backends.js';

const LIFECYCLE = { threatRetireDays: 90, indicatorRetireDays: 30 };
const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-pull-thread-'));
  dirs.push(dir);
  return dir;
};

describe('the supervised pull thread', () => {
  it('a thread that stops (its store cannot be opened) is started again with a backoff, down meanwhile, and up once it runs', async () => {
    const dir = tempDir();
    // The store's folder is a file at first: opening the store fails, and the thread ends.
    const folder = join(dir, 'store');
    writeFileSync(folder, 'not a folder');
    const store = await openStore(':memory:', { collections: DEFAULT_COLLECTIONS });
    const events: BackgroundEvent[] = [];
    const statuses: boolean[] = [];
    const pulls = startBackgroundPulls({
      db: join(folder, 'store.sqlite'), setting: '--db', collections: DEFAULT_COLLECTIONS, allowlist: undefined, checkMs: 3_600_000, lifecycle: LIFECYCLE,
      store, clock: systemClock, logger: silentLogger, logLevel: 'silent', writeLog: () => undefined, env: {},
      report: (event) => events.push(event),
      onStatus: (status) => statuses.push(status.up),
    });
    try {
      await eventually(async () => pulls.status().restarts >= 1, 'a restart was scheduled', 15_000);
      assert.equal(pulls.status().up, false);
      assert.match(pulls.status().lastFailure ?? '', /cannot open SQLite database/);
      assert.ok(events.some((e) => e.kind === 'puller' && !e.up && e.restarted));
      // The folder comes back: a later restart opens the store and runs.
      rmSync(folder);
      mkdirSync(folder);
      await eventually(async () => pulls.status().up, 'the thread runs again', 30_000);
      assert.equal(pulls.status().lastFailure, null);
      assert.ok(events.some((e) => e.kind === 'puller' && e.up));
      assert.equal(statuses.at(-1), true);
    } finally {
      await pulls.stop(5000);
      await store.close();
    }
  });

});

for (const backend of storeBackends()) {
  describe(`a new pull thread (${backend.name})`, () => {
    after(() => backend.cleanup());

    it('a new thread releases the leases of the thread it replaces, then pulls the feed they held', async () => {
      const { store, location: db } = await backend.create();
      const feeds = await startFeedServer();
      feeds.publish('/held.txt', '203.0.113.9\n', { etag: false });
      const fid = await addFeedSource(store, { feed: 'Held list', organization: 'Test', source: { url: `${feeds.base}/held.txt`, format: 'text', schedule: 'daily' } }, systemClock, {});
      const now = Date.now();
      // The dead thread's leases: the feed's, and the lifecycle's, held for the next five minutes.
      assert.ok(await store.claimPullLease(fid, 'dead thread', now, now + 300_000));
      assert.ok(await store.takeLease('lifecycle', 'dead thread', now, now + 300_000));
      const data: PullThreadData = {
        db, setting: '--db', collections: DEFAULT_COLLECTIONS, allowlist: undefined, checkMs: 3_600_000, lifecycle: LIFECYCLE, logLevel: 'silent', metrics: false, env: {},
        allowPrivateNetworks: true, owner: 'new thread', releaseOwner: 'dead thread',
      };
      const worker = startModuleWorker(new URL('../../src/sources/background-pulls.ts', import.meta.url).href, 'pull-worker', { workerData: data });
      const stopped = new Promise<void>((resolve) => worker.on('message', (message: PullThreadMessage) => message.kind === 'stopped' && resolve()));
      try {
        await eventually(async () => (await store.listFeedRuns(fid, 1)).length === 1, 'the held feed was pulled by the new thread', 20_000);
        const [run] = await store.listFeedRuns(fid, 1);
        assert.equal(run?.outcome, 'ok');
        assert.notEqual((await store.findPullLease(fid))?.owner, 'dead thread');
      } finally {
        worker.postMessage('stop');
        await stopped;
        await worker.terminate();
        await store.close();
        await feeds.close();
      }
    });
  });
}
