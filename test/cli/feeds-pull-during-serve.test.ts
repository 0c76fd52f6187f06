// `feeds pull` while serve's puller writes a large pull (the built CLI): the same feed is waited for, or skipped with
// exit 75 under --no-wait; another feed is pulled once the store's writer is free; no command fails with "database
// is locked". SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock } from '../../src/clock.js';
import { BACKGROUND_BUSY_MS } from '../../src/store/open-store.js';
import { addressLines } from '../helpers/feed-server.js';
import { startCli } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';

const BIG = 120_000;

for (const backend of storeBackends()) {
  describe(`feeds pull while serve's puller writes (${backend.name})`, () => {
    const big = addressLines(0, BIG);
    // The first request for the big list (serve's pull) gets half its body, then the rest once the
    // commands have met its lease: however slowly they start, that pull is still running then.
    let requests = 0;
    let releaseBig: () => void = () => undefined;
    const bigReleased = new Promise<void>((resolve) => (releaseBig = resolve));
    const feeds = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      if (req.url !== '/big.txt') {
        res.end('203.0.113.77\n203.0.113.78\n');
        return;
      }
      const half = big.lastIndexOf('\n', big.length / 2) + 1;
      if (++requests > 1) return void res.end(big);
      res.write(big.slice(0, half));
      void bigReleased.then(() => res.end(big.slice(half)));
    });
    const config = join(tmpdir(), `threatgate-pull-during-serve-${process.pid}.json`);
    before(async () => {
      await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
      writeFileSync(config, JSON.stringify({ pull: { enabled: true, checkSeconds: 3600 }, sources: { allowPrivateNetworks: true } }));
    });
    after(async () => {
      feeds.closeAllConnections();
      feeds.close();
      await backend.cleanup();
    });

    it('waits for the lease or exits 75 with --no-wait on the same feed, pulls another feed, and never meets "database is locked"', async () => {
      // This test's own writes (adding a feed) wait behind the served puller's big write, as a command's do.
      const { store, location } = await backend.create({ busyTimeoutMs: BACKGROUND_BUSY_MS });
      const base = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
      const bigFid = await addFeedSource(store, { feed: 'Big list', organization: 'Test', source: { url: `${base}/big.txt`, format: 'text' } }, systemClock, {});
      const server = startCli(['serve', '--port', '0', '--workers', '1', '--db', location, '--config', config]);
      try {
        await server.ready;
        // serve's first check pulls the big feed, whose body stops halfway until the commands run.
        while (requests === 0) await new Promise((resolve) => setTimeout(resolve, 20));
        const smallFid = await addFeedSource(store, { feed: 'Small list', organization: 'Test', source: { url: `${base}/small.txt`, format: 'text' } }, systemClock, {});
        const skipped = startCli(['feeds', 'pull', String(bigFid), '--no-wait', '--db', location, '--config', config]);
        const other = startCli(['feeds', 'pull', String(smallFid), '--db', location, '--config', config]);
        const waiting = startCli(['feeds', 'pull', String(bigFid), '--db', location, '--config', config]);
        // Once the waiting command says it waits, the rest of the body goes: the pull stages and writes it
        // while the other feed's pull may be writing too. (Bounded: a command that never says so fails below.)
        for (let tries = 0; tries < 600 && !/waiting for it to finish/.test(waiting.stderr()); tries++) await new Promise((resolve) => setTimeout(resolve, 50));
        releaseBig();
        assert.equal(await skipped.exited, 75, skipped.stderr());
        assert.match(skipped.stdout(), new RegExp(`^fid ${bigFid} is being pulled by \\S+`));
        assert.equal(await other.exited, 0, other.stderr());
        assert.match(other.stdout(), new RegExp(`^fid ${smallFid} Small list: ok 2 values`));
        assert.equal(await waiting.exited, 0, waiting.stderr());
        assert.match(waiting.stderr(), new RegExp(`fid ${bigFid} is being pulled by .*; waiting for it to finish`));
        assert.match(waiting.stdout(), new RegExp(`^fid ${bigFid} Big list: ok ${BIG} values, 0 new indicators`));
        for (const run of [skipped, other, waiting, server]) assert.doesNotMatch(run.stderr() + run.stdout(), /database is locked/);
        const runs = await store.listFeedRuns(bigFid, 5);
        assert.deepEqual(runs.map((r) => [r.trigger, r.outcome]), [['command', 'not-modified'], ['schedule', 'ok']]);
      } finally {
        releaseBig();
        server.child.kill('SIGTERM');
        await server.exited;
        await store.close();
      }
    });
  });
}
