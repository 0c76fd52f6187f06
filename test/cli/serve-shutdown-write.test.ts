// SIGTERM while the cluster primary's puller is writing a large pull (the built CLI, `serve --workers 2`): the write
// rolls back or finishes within the grace period, never after the process has exited; the lease is released; a
// `serve` started right after finds a consistent store that nothing writes to late. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { SHUTDOWN_GRACE_MS } from '../../src/cli/serve-command.js';
import { systemClock } from '../../src/clock.js';
import { addressLines } from '../helpers/feed-server.js';
import { startCli } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';

const VALUES = 120_000;

for (const backend of storeBackends()) {
  describe(`SIGTERM while the puller writes (${backend.name})`, () => {
    const body = addressLines(0, VALUES);
    let sent = false;
    const feed = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(body, () => (sent = true));
    });
    const config = join(tmpdir(), `threatgate-shutdown-write-${process.pid}.json`);
    before(async () => {
      await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
      writeFileSync(config, JSON.stringify({ pull: { enabled: true, checkSeconds: 1 }, sources: { allowPrivateNetworks: true } }));
    });
    after(async () => {
      feed.closeAllConnections();
      feed.close();
      await backend.cleanup();
    });

    it('exits within the grace period with the write rolled back or finished, and no late commit', async () => {
      const { store, location } = await backend.create();
      const url = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/big.txt`;
      const fid = await addFeedSource(store, { feed: 'Big list', organization: 'Test', source: { url, format: 'text' } }, systemClock, {});
      const server = startCli(['serve', '--port', '0', '--workers', '2', '--db', location, '--config', config]);
      try {
        await server.ready;
        // The body is read: the pull is staging and writing it now.
        while (!sent) await new Promise((resolve) => setTimeout(resolve, 20));
        await new Promise((resolve) => setTimeout(resolve, 300));
        const signalled = Date.now();
        server.child.kill('SIGTERM');
        assert.equal(await server.exited, 0, server.stderr());
        assert.ok(Date.now() - signalled < SHUTDOWN_GRACE_MS + 5000, `exited after ${Date.now() - signalled} ms`);
        assert.doesNotMatch(server.stderr(), /FATAL ERROR|Segmentation/);
        assert.equal(await store.findPullLease(fid), undefined, 'the lease was released');
        // All or nothing, and nothing after the exit: the same counts now and a few seconds later.
        const counts = async () => ({ runs: (await store.listFeedRuns(fid, 10)).length, listed: (await store.findFeedSource(fid))?.listed });
        const atExit = await counts();
        assert.ok((atExit.runs === 0 && atExit.listed === 0) || (atExit.runs === 1 && atExit.listed === VALUES), JSON.stringify(atExit));
        await new Promise((resolve) => setTimeout(resolve, 3000));
        assert.deepEqual(await counts(), atExit);
        // A serve started right after finds the store ready.
        const next = startCli(['serve', '--port', '0', '--workers', '1', '--no-pull', '--db', location, '--config', config]);
        try {
          const base = await next.ready;
          assert.equal((await fetch(`${base}/readyz`)).status, 200);
        } finally {
          next.child.kill('SIGTERM');
          await next.exited;
        }
      } finally {
        server.child.kill('SIGKILL');
        await store.close();
      }
    });
  });
}
