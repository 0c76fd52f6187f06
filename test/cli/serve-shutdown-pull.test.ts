// SIGTERM while `serve` pulls a feed (docs/deployment.md, "Shutdown"): the pull still reading is cancelled, logged as such, records no
// failure on the feed and releases its lease, and the process exits within the grace period. The built CLI on
// SQLite and PostgreSQL, against a TAXII source whose pages come slowly.
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
import { startCli } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';

const TAXII = 'application/taxii+json;version=2.1';

for (const backend of storeBackends()) {
  describe(`SIGTERM during a background pull (${backend.name})`, () => {
    // Every page names a next one and comes after a second: the walk is still reading when the signal comes.
    let page = 0;
    const slow = createServer((_req, res) => {
      const body = JSON.stringify({ more: true, next: `page-${++page}`, objects: [] });
      setTimeout(() => res.writeHead(200, { 'content-type': TAXII }).end(body), 1000);
    });
    const config = join(tmpdir(), `threatgate-shutdown-${process.pid}.json`);
    before(async () => {
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
      writeFileSync(config, JSON.stringify({ pull: { enabled: true, checkSeconds: 1 } }));
    });
    after(async () => {
      slow.closeAllConnections();
      slow.close();
      await backend.cleanup();
    });

    it('cancels the walk, logs it, records no failure, releases the lease and exits within the grace period', async () => {
      const { store, location } = await backend.create();
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/taxii2/api/collections/c1/objects/`;
      const fid = await addFeedSource(store, { feed: 'Slow walk', organization: 'Test', source: { url, format: 'taxii' } }, systemClock, {});
      const server = startCli(['serve', '--port', '0', '--workers', '1', '--db', location, '--config', config]);
      try {
        await server.ready;
        while ((await store.findPullLease(fid)) === undefined || page < 2) await new Promise((resolve) => setTimeout(resolve, 50));
        const signalled = Date.now();
        server.child.kill('SIGTERM');
        assert.equal(await server.exited, 0, server.stderr());
        assert.ok(Date.now() - signalled < SHUTDOWN_GRACE_MS, `exited after ${Date.now() - signalled} ms`);
        assert.ok(server.logs().some((e) => e.msg === 'pull cancelled: the process is stopping' && e.fid === fid), server.stderr());
        assert.equal(await store.findPullLease(fid), undefined, 'the lease was released');
        const [listed] = await store.listFeedSources();
        assert.equal(listed?.last_error, null);
      } finally {
        server.child.kill('SIGKILL');
        await store.close();
      }
    });
  });
}
