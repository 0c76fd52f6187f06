// Two `threatgate feeds pull` processes on one feed (docs/interface.md section 10, `feeds pull`): the second, with --no-wait, says who pulls it and
// exits 75 at once; without it, it waits and then pulls; neither fails with "database is locked". The built CLI
// against a source that answers once the test lets it; SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock } from '../../src/clock.js';
import { addressLines } from '../helpers/feed-server.js';
import { startCli } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';

for (const backend of storeBackends()) {
  describe(`two feeds pull processes on one feed (${backend.name})`, () => {
    // The list is held until the test has seen the two other processes meet the first's lease: a fixed
    // delay can pass before they start when the machine is busy (other test files run beside this one).
    const held: ServerResponse[] = [];
    let released = false;
    const answer = (res: ServerResponse) => void res.writeHead(200, { 'content-type': 'text/plain' }).end(addressLines(0, 8));
    const release = () => {
      released = true;
      for (const res of held.splice(0)) answer(res);
    };
    const slow = createServer((_req, res) => (released ? answer(res) : void held.push(res)));
    before(() => new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve)));
    after(async () => {
      slow.closeAllConnections();
      slow.close();
      await backend.cleanup();
    });

    it('the second says who pulls the feed and exits 75 with --no-wait, or waits and pulls without it', async () => {
      const { store, location } = await backend.create();
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/list.txt`;
      const fid = await addFeedSource(store, { feed: 'Slow list', organization: 'Test', source: { url, format: 'text' } }, systemClock, {});
      try {
        const first = startCli(['feeds', 'pull', String(fid), '--db', location]);
        // Until the first holds the lease; should it end first (it cannot have pulled: the list takes 6 s), what it said fails the test.
        while ((await store.findPullLease(fid)) === undefined) {
          const ended = first.child.exitCode ?? first.child.signalCode;
          assert.equal(ended, null, `the first pull ended (${ended}) before it took the lease: ${first.stderr()}${first.stdout()}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        const busy = startCli(['feeds', 'pull', String(fid), '--no-wait', '--db', location]);
        const waiting = startCli(['feeds', 'pull', String(fid), '--db', location]);
        assert.equal(await busy.exited, 75, busy.stderr());
        assert.match(busy.stdout(), new RegExp(`^fid ${fid} is being pulled by feeds pull on \\S+ pid ${first.child.pid} since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\n$`));
        while (!waiting.stderr().includes('waiting for it to finish')) {
          const ended = waiting.child.exitCode ?? waiting.child.signalCode;
          assert.equal(ended, null, `the waiting pull ended (${ended}) before it met the lease: ${waiting.stderr()}${waiting.stdout()}`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        release();
        assert.equal(await first.exited, 0, first.stderr());
        assert.match(first.stdout(), /: ok 8 values, 8 new indicators/);
        assert.equal(await waiting.exited, 0, waiting.stderr());
        assert.match(waiting.stderr(), new RegExp(`fid ${fid} is being pulled by feeds pull on \\S+ pid ${first.child.pid} since .*; waiting for it to finish`));
        assert.match(waiting.stdout(), /: ok 8 values, 0 new indicators/);
        const [listed] = await store.listFeedSources();
        assert.equal(listed?.last_error, null);
      } finally {
        await store.close();
      }
    });
  });
}
