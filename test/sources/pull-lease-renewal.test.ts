// A long pull renews its lease one renewal at a time (src/sources/pull-lease.ts): on PostgreSQL a
// renewal waits behind any transaction holding the feed's row, and renewals started on a timer
// regardless of the last one would each hold a pooled connection until that transaction ends.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { underPullLease } from '../../src/sources/pull-lease.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { addressLines, startFeedServer, type FeedServer } from '../helpers/feed-server.js';

const OWNER = 'serve on this host pid 1';
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

for (const backend of storeBackends()) {
  describe(`pull lease renewal (${backend.name})`, () => {
    let world: PullWorld;
    let server: FeedServer;
    let fid: number;
    before(async () => {
      world = await openPullWorld(backend);
      server = await startFeedServer();
      server.publish('/list.txt', addressLines(0, 3));
      fid = await world.addSource('Renewed list', { url: `${server.base}/list.txt`, format: 'text' });
    });
    after(async () => {
      await server.close();
      await world.close();
      await backend.cleanup();
    });

    it('renews while the pull runs, never two renewals at once, and frees the lease at the end', async () => {
      let inFlight = 0;
      let most = 0;
      let renewals = 0;
      // The real store, its renewals counted as they start and end.
      const store = new Proxy(world.store, {
        get(target, name, receiver) {
          if (name !== 'renewPullLease') return Reflect.get(target, name, receiver);
          return async (...args: Parameters<typeof target.renewPullLease>) => {
            inFlight += 1;
            renewals += 1;
            most = Math.max(most, inFlight);
            try {
              return await target.renewPullLease(...args);
            } finally {
              inFlight -= 1;
            }
          };
        },
      });
      // On PostgreSQL another transaction holds the feed's row for most of the pull, as the pull's
      // own transaction does once it has written it: every renewal meanwhile waits.
      const url = world.location.startsWith('postgres') ? world.location : undefined;
      const holder = url === undefined ? undefined : new pg.Client({ connectionString: url.replace(/[?&]schema=[^&]*/, '') });
      const schema = url === undefined ? undefined : new URL(url).searchParams.get('schema');
      const now = world.clock.now();
      const leased = await underPullLease(fid, { store, clock: world.clock, owner: OWNER, take: 'any', leaseMs: 60_000, renewMs: 20 }, async () => {
        if (holder !== undefined) {
          await holder.connect();
          await holder.query('begin');
          await holder.query(`select fid from ${schema === null ? '' : `"${schema}".`}feed_sources where fid = $1 for update`, [fid]);
          await sleep(400);
          await holder.query('commit');
          await holder.end();
        }
        await sleep(100);
        return 'pulled';
      });
      assert.deepEqual(leased, { taken: true, result: 'pulled' });
      assert.ok(renewals >= 2, `renewed ${renewals} times`);
      assert.equal(most, 1, 'one renewal at a time');
      assert.equal(inFlight, 0, 'no renewal left running');
      // Free again: another holder takes it at once.
      assert.equal(await world.store.claimPullLease(fid, 'another holder', now, now + 60_000), true);
    });

    it('a renewal goes through while the pull derives and publishes: the pull writes its source\'s row just before it commits', { skip: backend.name !== 'PostgreSQL' && 'SQLite has one writer and no row locks' }, async () => {
      const base = world.location.replace(/[?&]schema=[^&]*/, '');
      const schema = new URL(world.location).searchParams.get('schema');
      const table = (name: string) => (schema === null ? name : `"${schema}".${name}`);
      // Another transaction holds the run history: the pull stops at its run, after derive and publish.
      const holder = new pg.Client({ connectionString: base });
      const renewer = new pg.Client({ connectionString: base });
      await holder.connect();
      await renewer.connect();
      try {
        server.publish('/list.txt', addressLines(10, 40));
        await holder.query('begin');
        await holder.query(`lock table ${table('feed_runs')} in exclusive mode`);
        const pulled = world.pull(fid);
        let waiting = 0;
        for (let tries = 0; waiting === 0 && tries < 500; tries += 1) {
          await sleep(20);
          const { rows } = await renewer.query(`select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation where not l.granted and c.relname = 'feed_runs'`);
          waiting = rows[0].n;
        }
        assert.equal(waiting, 1, 'the pull waits on its run');
        // The renewal's own statement, bounded: it fails if the pull holds the source's row.
        await renewer.query(`set lock_timeout = '2s'`);
        const renewed = await renewer.query(`update ${table('feed_sources')} set lease_until = lease_until where fid = $1`, [fid]);
        assert.equal(renewed.rowCount, 1);
        await holder.query('commit');
        const outcome = await pulled;
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
      } finally {
        await holder.query('rollback').catch(() => undefined);
        await holder.end();
        await renewer.end();
      }
    });
  });
}
