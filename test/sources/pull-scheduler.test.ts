// The background puller (src/sources/pull-scheduler.ts) on real stores: one pull per due feed across
// instances sharing a database, leases, retry backoff. A local HTTP server counts the requests.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Clock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { LEASE_MS, startPullScheduler } from '../../src/sources/pull-scheduler.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends, storeOptions } from '../helpers/store-backends.js';

/** A feed server: `body` is served at /list.txt (status `status`), every request counted. */
function feedServer(): { server: Server; url: () => string; requests: () => number; set(status: number, body: string): void } {
  let status = 200;
  let body = '';
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(status, { 'content-type': 'text/plain' });
    res.end(body);
  });
  return {
    server,
    url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/list.txt`,
    requests: () => requests,
    set(nextStatus, nextBody) {
      status = nextStatus;
      body = nextBody;
    },
  };
}

/** A clock the test moves. */
function testClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

const START = Date.parse('2026-03-01T10:00:00Z');

for (const backend of storeBackends()) {
  describe(`pull scheduler (${backend.name})`, () => {
    const feeds = feedServer();
    before(() => new Promise<void>((resolve) => feeds.server.listen(0, '127.0.0.1', resolve)));
    after(async () => {
      await new Promise((resolve) => feeds.server.close(resolve));
      await backend.cleanup();
    });

    /** Two stores over one database (two connections, as two instances have), with a feed due at once. */
    async function twoInstances(clock: Clock): Promise<{ a: Store; b: Store; fid: number; close(): Promise<void> }> {
      const { store: a, location } = await backend.create();
      const b = await openStore(location, storeOptions());
      const fid = await addFeedSource(a, { feed: 'Hourly list', organization: 'Test', source: { url: feeds.url(), format: 'text', schedule: 'hourly' } }, clock, {});
      return { a, b, fid, close: async () => void (await Promise.all([a.close(), b.close()])) };
    }

    const schedulerOf = (store: Store, clock: Clock, owner: string, withLifecycle = false) =>
      startPullScheduler({
        store, clock, env: {}, allowlist: createAllowlist(undefined), logger: silentLogger, checkMs: 3_600_000, owner,
        ...(withLifecycle ? { lifecycle: { threatRetireDays: 90, indicatorRetireDays: 30 } } : {}),
      });

    it('two instances that check at once pull a due feed exactly once', async () => {
      const clock = testClock(START);
      const { a, b, fid, close } = await twoInstances(clock);
      feeds.set(200, '192.0.2.1\n198.51.100.7\n');
      const before = feeds.requests();
      const first = schedulerOf(a, clock, 'instance-a');
      const second = schedulerOf(b, clock, 'instance-b');
      try {
        await Promise.all([first.tick(), second.tick(), first.tick(), second.tick()]);
        assert.equal(feeds.requests() - before, 1);
        const feed = await a.findFeed(fid);
        assert.equal(feed?.stamp_pulled, '2026-03-01 10:00:00');
        assert.equal((await a.findLinksPage({ kind: 'feed', fid }, 0, 10)).rows.length, 2);
        // Not due again before the next hour, on either instance; due after it.
        clock.advance(30 * 60_000);
        await Promise.all([first.tick(), second.tick()]);
        assert.equal(feeds.requests() - before, 1);
        clock.advance(31 * 60_000);
        await Promise.all([first.tick(), second.tick()]);
        assert.equal(feeds.requests() - before, 2);
      } finally {
        await Promise.all([first.stop(), second.stop()]);
        await close();
      }
    });

    it('a live lease of another instance holds the feed; an expired one does not', async () => {
      const clock = testClock(START);
      const { a, b, close } = await twoInstances(clock);
      feeds.set(200, '192.0.2.1\n');
      const before = feeds.requests();
      const [fid] = await a.dueFeedSources(clock.now());
      // Another instance took the lease and died without releasing it.
      assert.equal(await b.takePullLease(fid!, 'dead-instance', clock.now(), clock.now() + LEASE_MS), true);
      const scheduler = schedulerOf(a, clock, 'instance-a');
      try {
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 0);
        clock.advance(LEASE_MS + 1);
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 1);
        assert.notEqual((await a.findFeed(fid!))?.stamp_pulled, null);
      } finally {
        await scheduler.stop();
        await close();
      }
    });

    it('runs the lifecycle after a pull, one instance at a time: a live lifecycle lease holds it off', async () => {
      const clock = testClock(START);
      const { a, b, close } = await twoInstances(clock);
      feeds.set(200, '192.0.2.1\n');
      const stale = { tid: 1, threat: 'Quiet for a year', category: 'malware', risk: 'high', stamp_added: '2025-01-01 00:00:00', stamp_seen: '2025-02-01 00:00:00' };
      await importDataset(a, { threats: [stale], feeds: [], indicators: [], links: [] }, clock);
      // Another instance runs the lifecycle now (and holds its lease for a while).
      assert.equal(await b.takeLease('lifecycle', 'instance-b', clock.now(), clock.now() + LEASE_MS), true);
      const scheduler = schedulerOf(a, clock, 'instance-a', true);
      try {
        await scheduler.tick();
        assert.notEqual((await a.findThreat(1))?.retired, true);
        await b.releaseLease('lifecycle', 'instance-b');
        // Not due again, nothing pulled: the lifecycle has not run this hour, so the next check runs it.
        await scheduler.tick();
        assert.equal((await a.findThreat(1))?.retired, true);
        assert.equal((await a.findThreat(1))?.stamp_retired, '2026-03-01 10:00:00');
      } finally {
        await scheduler.stop();
        await close();
      }
    });

    it('retries a failed pull after a minute, then after two, and records the error', async () => {
      const clock = testClock(START);
      const { a, b, fid, close } = await twoInstances(clock);
      feeds.set(500, 'down');
      const before = feeds.requests();
      const scheduler = schedulerOf(a, clock, 'instance-a');
      try {
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 1);
        const [listed] = await b.listFeedSources();
        assert.match(listed?.last_error ?? '', /HTTP status 500/);
        assert.equal(listed?.last_error_at, '2026-03-01 10:00:00');
        assert.equal(listed?.stamp_pulled, null);
        clock.advance(59_000);
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 1);
        clock.advance(1_000);
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 2);
        // The second failure in a row waits two minutes.
        clock.advance(119_000);
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 2);
        feeds.set(200, '192.0.2.9\n');
        clock.advance(1_000);
        await scheduler.tick();
        assert.equal(feeds.requests() - before, 3);
        const [recovered] = await b.listFeedSources();
        assert.equal(recovered?.last_error, null);
        assert.equal((await a.findFeed(fid))?.stamp_pulled, '2026-03-01 10:03:00');
      } finally {
        await scheduler.stop();
        await close();
      }
    });
  });
}
