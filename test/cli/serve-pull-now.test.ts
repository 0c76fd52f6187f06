// "Pull now" on the built `serve --workers 2`: a worker answers 202 at once and hands the request to the primary's
// puller, which pulls the feed (trigger console); every worker's /readyz says the puller is up.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { systemClock } from '../../src/clock.js';
import { openStore } from '../../src/store/open-store.js';
import { startCli } from '../helpers/cli-process.js';
import { eventually } from '../helpers/eventually.js';
import { startFeedServer } from '../helpers/feed-server.js';
import { DEFAULT_COLLECTIONS } from '../helpers/store-backends.js';

describe('serve --workers 2 › POST /admin/api/feeds/{fid}/pull', () => {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-pull-now-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('answers 202 at once; the primary\'s puller, woken, records the run with trigger console', async () => {
    const db = join(dir, 'store.sqlite');
    const feeds = await startFeedServer();
    feeds.publishFixture('blocklist-de.txt');
    const store = await openStore(db, { collections: DEFAULT_COLLECTIONS });
    const fid = await addFeedSource(store, { feed: 'Blocklist', organization: 'Test', source: { url: `${feeds.base}/blocklist-de.txt`, format: 'text', schedule: 'daily', network: 'private' } }, systemClock, {});
    const admin = await createAdminKey(store, systemClock, 'pull now test');
    await store.close();
    // An hourly check: only the wake can make the pull happen within the test.
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ pull: { checkSeconds: 3600 } }));
    const serve = startCli(['serve', '--db', db, '--config', config, '--port', '0', '--workers', '2']);
    try {
      const base = await serve.ready;
      const auth = { authorization: `Bearer ${admin.key}` };
      // The first check at start pulls the feed (it is due); then the request asks for another pull.
      const reader = await openStore(db, { collections: DEFAULT_COLLECTIONS });
      try {
        await eventually(async () => (await reader.listFeedRuns(fid, 1)).length === 1, 'the first scheduled pull', 20_000);
        for (let i = 0; i < 4; i++) {
          const ready = await fetch(`${base}/readyz`);
          assert.equal(ready.status, 200);
          assert.equal((await ready.json()).puller, 'up');
        }
        const res = await fetch(`${base}/admin/api/feeds/${fid}/pull`, { method: 'POST', headers: auth });
        assert.equal(res.status, 202);
        const body = await res.json();
        assert.equal(body.fid, fid);
        assert.equal(res.headers.get('location'), `/admin/api/feeds/${fid}/runs?limit=5`);
        await eventually(async () => (await reader.listFeedRuns(fid, 1))[0]?.trigger === 'console', 'the console run', 20_000);
        const [run] = await reader.listFeedRuns(fid, 1);
        assert.equal(run?.outcome, 'not-modified');
        assert.equal(await reader.findPullRequest(fid), undefined);
      } finally {
        await reader.close();
      }
    } finally {
      serve.child.kill('SIGTERM');
      assert.equal(await serve.exited, 0, serve.stderr());
      await feeds.close();
    }
  });
});
