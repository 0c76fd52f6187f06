// `threatgate feeds pull` stopped by a signal (the built CLI, real signals): the pull under way is cancelled, changes
// nothing, and leaves no lease behind; the command exits 128 + the signal. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock } from '../../src/clock.js';
import { addressLines } from '../helpers/feed-server.js';
import { startCli } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';

for (const backend of storeBackends()) {
  describe(`feeds pull stopped by a signal (${backend.name})`, () => {
    // The list starts at once and never ends: the pull is under way when the signal comes.
    const endless = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(addressLines(0, 50));
    });
    before(() => new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve)));
    after(async () => {
      endless.closeAllConnections();
      endless.close();
      await backend.cleanup();
    });

    for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
      it(`${signal} › cancels the pull, records nothing, releases the lease and exits ${code}`, async () => {
        const { store, location } = await backend.create();
        const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/list.txt`;
        const fid = await addFeedSource(store, { feed: 'Endless list', organization: 'Test', source: { url, format: 'text', timeoutSeconds: 120 } }, systemClock, {});
        try {
          const pull = startCli(['feeds', 'pull', String(fid), '--db', location]);
          while ((await store.findPullLease(fid)) === undefined) {
            assert.equal(pull.child.exitCode ?? pull.child.signalCode, null, `the pull ended before it took the lease: ${pull.stderr()}`);
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
          pull.child.kill(signal);
          assert.equal(await pull.exited, code, pull.stderr());
          assert.match(pull.stderr(), new RegExp(`${signal}: cancelling`));
          assert.match(pull.stdout(), new RegExp(`^fid ${fid} Endless list: failed: cancelled: the process is stopping\\n$`));
          assert.equal(await store.findPullLease(fid), undefined);
          assert.deepEqual(await store.listFeedRuns(fid, 5), []);
        } finally {
          await store.close();
        }
      });
    }
  });
}
