// A failed pull changes nothing (docs/interface.md section 10, "Pulls"): for each kind of failure, every table of the store is the same row for
// row before and after, but for the feed's error, its time, the failure count and the retry time, which `feeds list`
// shows; stamp_pulled stays, and the retry backs off from one minute. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { addressLines, etagOf, fixtureFeed, startFeedServer, type Failure, type FeedServer } from '../helpers/feed-server.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const TOKEN = 'tok-failures-5e0b7c';
const MINUTE = 60_000;

interface FailureCase {
  what: string;
  feed: 'text' | 'csv' | 'json';
  /** Switches the failure on; `env` is the environment the pull sees. */
  arrange(server: FeedServer): { path: string; failure?: Failure; env?: Record<string, string | undefined> };
  reason: RegExp;
}

const CASES: FailureCase[] = [
  { what: 'HTTP 500', feed: 'text', arrange: () => ({ path: '/drop.txt', failure: { kind: 'status', status: 500, body: 'upstream broke' } }), reason: /^http:\/\/127\.0\.0\.1:\d+\/drop\.txt: HTTP status 500$/ },
  { what: 'HTTP 404', feed: 'csv', arrange: () => ({ path: '/feodo-ipblocklist.csv', failure: { kind: 'status', status: 404 } }), reason: /: HTTP status 404$/ },
  // 1200 values arrive (two staged batches, written in the pull's transaction) before the body stalls.
  { what: 'a body slower than timeoutSeconds', feed: 'text', arrange: () => ({ path: '/drop.txt', failure: { kind: 'stall', lines: 1200 } }), reason: /\/drop\.txt: timed out after 1 s$/ },
  {
    what: 'a body over maxMegabytes', feed: 'text',
    arrange: () => ({ path: '/drop.txt', failure: { kind: 'oversize', bytes: 1024 * 1024 } }),
    reason: /\/drop\.txt: body larger than maxMegabytes \(0\.05\)$/,
  },
  {
    what: 'a CSV without the value column', feed: 'csv',
    arrange: () => ({ path: '/feodo-ipblocklist.csv', failure: { kind: 'body', body: fixtureFeed('feodo-ipblocklist.csv').replace('"dst_ip",', '"address",') } }),
    reason: /the header has no column "dst_ip" \(csv\.value\)/,
  },
  {
    // Feodo Tracker's own layout: its header is the first row after the "#" lines, which "comment" does not read.
    what: 'a CSV whose header is its first row, read with csv.header "comment"', feed: 'csv',
    arrange: () => ({ path: '/feodo-ipblocklist.csv', failure: { kind: 'body', body: fixtureFeed('feodo-ipblocklist.csv').replace('# "first_seen_utc"', '"first_seen_utc"') } }),
    reason: /^line 7: the header has no column "dst_ip" \(csv\.value\): no column names were found in it; line 8, the first row, holds "dst_ip": if it names the columns, set csv\.header to "first-row"$/,
  },
  {
    // The first 700 lines stage a batch before the bad line is reached.
    what: 'NDJSON that breaks off after 700 good lines', feed: 'json',
    arrange: () => ({
      path: '/drop_v4.json',
      failure: { kind: 'body', body: `${addressLines(0, 700).split('\n', 700).map((ip) => JSON.stringify({ cidr: `${ip}/32` })).join('\n')}\n{"cidr": "203.0.113.1/32",\n` },
    }),
    reason: /^line 701: not valid JSON/,
  },
  {
    what: 'JSON that is not JSON', feed: 'json',
    arrange: () => ({ path: '/drop_v4.json', failure: { kind: 'body', body: '{"cidr": "192.0.2.0/24"\n{"cidr": "198.51.100.0/25"}\n' } }),
    reason: /not valid JSON/,
  },
  {
    // The sanity gate: an error page is no list, whatever it holds.
    what: 'an HTML error page', feed: 'json',
    arrange: () => ({ path: '/drop_v4.json', failure: { kind: 'body', body: '<html><body>Service temporarily unavailable</body></html>\n' } }),
    reason: /^the body is an HTML page \(application\/json\) where a json list was expected/,
  },
  {
    what: 'an empty body where the last pull had values', feed: 'text',
    arrange: () => ({ path: '/drop.txt', failure: { kind: 'body', body: '' } }),
    reason: /^the source listed no values where its last pull listed 3; kept as an outage$/,
  },
  {
    what: 'a list of comments only where the last pull had values', feed: 'json',
    arrange: () => ({ path: '/drop_v4.json', failure: { kind: 'body', body: '{"type":"metadata","timestamp":1743508800,"size":0,"records":0}\n' } }),
    reason: /listed no values where its last pull listed 3/,
  },
  {
    what: 'an ${env:NAME} not set at pull time', feed: 'text',
    arrange: () => ({ path: '/drop.txt', env: {} }),
    reason: /^source\.headers\.X-Feed-Token: environment variable FEED_TOKEN is not set$/,
  },
];

for (const backend of storeBackends()) {
  describe(`a failed pull (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    const fids = { text: 0, csv: 0, json: 0 };
    const paths = { text: '/drop.txt', csv: '/feodo-ipblocklist.csv', json: '/drop_v4.json' };

    const pullState = async (fid: number) => {
      const row = await dbOf(world.store).selectFrom('feed_sources').selectAll().where('fid', '=', fid).executeTakeFirstOrThrow();
      return { last_error: row.last_error, last_error_at: row.last_error_at, failures: Number(row.failures), next_due: row.next_due === null ? null : Number(row.next_due), etag: row.etag };
    };
    const listLine = async (fid: number) => (await world.feeds(['list'])).lines.find((line) => line.startsWith(`${fid}\t`))!.split('\t');
    const stampPulled = async (fid: number) => (await world.store.findFeed(fid))?.stamp_pulled;

    before(async () => {
      server = await startFeedServer();
      server.publishFixture('drop.txt');
      server.publishFixture('feodo-ipblocklist.csv');
      server.publishFixture('drop_v4.json');
      world = await openPullWorld(backend, { FEED_TOKEN: TOKEN });
      // 0.05 MiB: some 3,700 lines of the oversize body, several staged batches, arrive before the limit stops it.
      const limits = { timeoutSeconds: 1, maxMegabytes: 0.05, schedule: 'every 6h' };
      fids.text = await world.addSource('Failing DROP', { url: `${server.base}/drop.txt`, format: 'text', risk: 'high', headers: { 'X-Feed-Token': '${env:FEED_TOKEN}' }, ...limits });
      fids.csv = await world.addSource('Failing Feodo', {
        url: `${server.base}/feodo-ipblocklist.csv`, format: 'csv', csv: { header: 'comment', value: 'dst_ip', threat: 'malware' }, risk: 'critical', ...limits,
      });
      fids.json = await world.addSource('Failing DROP json', { url: `${server.base}/drop_v4.json`, format: 'json', json: { value: 'cidr' }, risk: 'medium', ...limits });
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    /** Each case starts from a good pull of every feed: the feeds hold values, no error, no failure counted. */
    const goodPulls = async () => {
      for (const kind of ['text', 'csv', 'json'] as const) {
        server.fail(paths[kind], undefined);
        const outcome = await world.pull(fids[kind]);
        assert.ok(outcome.ok, `the good pull of ${kind} failed: ${!outcome.ok && outcome.reason}`);
      }
    };

    for (const failureCase of CASES) {
      describe(`with ${failureCase.what}`, () => {
        let outcome: PullOutcome;
        let snapshot: Record<string, string[]>;
        let pulledBefore: string | null | undefined;
        let at: string;
        let fid: number;
        before(async () => {
          await goodPulls();
          fid = fids[failureCase.feed];
          pulledBefore = await stampPulled(fid);
          const { path, failure, env } = failureCase.arrange(server);
          if (failure) server.fail(path, failure);
          snapshot = await snapshotStore(world.store);
          outcome = await world.pull(fid, env ? { env } : {});
          at = world.clock.stamp();
        });

        it('fails with a reason naming what went wrong, and changes no row of any table', async () => {
          assert.equal(outcome.ok, false);
          assert.match((outcome as { reason: string }).reason, failureCase.reason);
          assertSameStore(await snapshotStore(world.store), snapshot, failureCase.what);
        });

        it('records a failed run with its reason and no counts', async () => {
          const [run] = await world.store.listFeedRuns(fid, 1);
          assert.equal(run?.outcome, 'failed');
          assert.equal(run?.error, (outcome as { reason: string }).reason);
          assert.equal(run?.finished, at);
          assert.deepEqual([run?.values, run?.new_indicators, run?.new_links, run?.unlisted, run?.threats], [null, null, null, null, null]);
          // The upstream's status: the failing one, none when no request was made, else the 200 whose body failed.
          const status = /HTTP status (\d+)$/.exec(run?.error ?? '')?.[1];
          const requested = !failureCase.what.startsWith('an ${env:NAME}');
          assert.equal(run?.http_status, status !== undefined ? Number(status) : requested ? 200 : null);
        });

        it('records the reason and its time on the feed, keeps stamp_pulled, and retries in one minute', async () => {
          const reason = (outcome as { reason: string }).reason;
          assert.deepEqual(
            { ...(await pullState(fid)), etag: undefined },
            { last_error: reason, last_error_at: at, failures: 1, next_due: world.clock.now() + MINUTE, etag: undefined },
          );
          assert.equal(await stampPulled(fid), pulledBefore);
          const line = await listLine(fid);
          assert.deepEqual([line[5], line[8]], [pulledBefore, `${at} ${reason}`], 'feeds list: stamp_pulled and last_error');
          const logged = world.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).findLast((l) => l.msg === 'pull');
          assert.deepEqual([logged?.level, logged?.fid, logged?.outcome, logged?.reason], ['warn', fid, 'failed', reason]);
        });
      });
    }

    const sqliteOnly = backend.name !== 'SQLite' && 'SQLite only: PostgreSQL has no per-connection page cache';
    it('gives back the SQLite page caches a pull takes, after a good pull and after a failed one', { skip: sqliteOnly }, async () => {
      const caches = async () => ({
        main: (await sql<{ cache_size: number }>`pragma main.cache_size`.execute(dbOf(world.store))).rows,
        temp: (await sql<{ cache_size: number }>`pragma temp.cache_size`.execute(dbOf(world.store))).rows,
      });
      // Values of the test's own, so that a cache the pull left at its size could not pass for given back.
      await sql`pragma main.cache_size = -3000`.execute(dbOf(world.store));
      await sql`pragma temp.cache_size = -2500`.execute(dbOf(world.store));
      const before = await caches();
      assert.deepEqual(before, { main: [{ cache_size: -3000 }], temp: [{ cache_size: -2500 }] });
      server.fail('/drop.txt', undefined);
      assert.ok((await world.pull(fids.text)).ok);
      assert.deepEqual(await caches(), before);
      server.fail('/drop.txt', { kind: 'body', body: '' });
      assert.equal((await world.pull(fids.text)).ok, false);
      assert.deepEqual(await caches(), before);
      server.fail('/drop.txt', undefined);
    });

    describe('the comparison itself', () => {
      it('sees what a successful pull of a changed body writes', async () => {
        await goodPulls();
        const snapshot = await snapshotStore(world.store);
        server.fail('/drop.txt', { kind: 'body', body: '192.0.2.0/24\n203.0.113.200\n' });
        assert.ok((await world.pull(fids.text)).ok);
        const changed = await snapshotStore(world.store);
        assert.throws(() => assertSameStore(changed, snapshot, 'a good pull'), /a good pull: table \w+ changed/);
        // Only the failure columns of feed_sources are left out: a good pull's etag is compared.
        assert.notDeepEqual(changed.feed_sources, snapshot.feed_sources);
      });
    });

    describe('failing again and again', () => {
      it('doubles the wait after each failure, up to the schedule, and a good pull clears the error', async () => {
        await goodPulls();
        server.fail('/drop.txt', { kind: 'status', status: 503 });
        const waits: number[] = [];
        for (let i = 0; i < 10; i++) {
          const outcome = await world.pull(fids.text, { advance: 30 * 1000 });
          assert.equal(outcome.ok, false);
          waits.push((await pullState(fids.text)).next_due! - world.clock.now());
        }
        // 1, 2, 4, ... minutes; capped at the time to the next regular run of `every 6h`, which is 6 h.
        assert.deepEqual(waits, [1, 2, 4, 8, 16, 32, 64, 128, 256, 360].map((m) => m * MINUTE));
        assert.equal((await pullState(fids.text)).failures, 10);
        server.fail('/drop.txt', undefined);
        const outcome = await world.pull(fids.text);
        assert.ok(outcome.ok);
        const state = await pullState(fids.text);
        assert.deepEqual([state.last_error, state.last_error_at, state.failures], [null, null, 0]);
        assert.equal((await listLine(fids.text))[8], '-');
      });
    });

    describe('the pull after a failed one', () => {
      it('asks with the ETag of the last good pull, not of the body that failed, and its 304 is a success', async () => {
        await goodPulls();
        const good = etagOf(fixtureFeed('drop.txt'));
        server.fail('/drop.txt', { kind: 'body', body: '' });
        assert.equal((await world.pull(fids.text)).ok, false);
        assert.equal((await pullState(fids.text)).etag, good);
        server.fail('/drop.txt', undefined);
        const outcome = await world.pull(fids.text);
        assert.ok(outcome.ok && outcome.values === 3);
        const last = server.requestsFor('/drop.txt').at(-1);
        assert.deepEqual([last?.headers['if-none-match'], last?.status], [good, 304]);
      });
    });
  });
}
