// The run history and provenance facts (docs/interface.md section 12), as real pulls of a local feed server write
// them: one run per pull with its counts, the listings a feed drops, the threat links a pull makes, the
// values it rejects, the runs kept, and a store from before the migration. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, migrationsCurrent } from '../../src/store/db/migrations.js';
import type { FeedRun } from '../../src/store/contract/runs.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf, rewindFeedHealth } from '../helpers/store-db.js';

const LIST = ['198.18.0.1', '198.18.0.2', 'bad.example.org', 'not-a-value!', '10.1.2.3', ''].join('\n');
const schemaIn = (location: string) => (location.startsWith('postgres') ? (new URL(location).searchParams.get('schema') ?? undefined) : undefined);

for (const backend of storeBackends()) {
  describe(`feed runs and provenance facts (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid: number;
    const runs = async (limit = 10): Promise<FeedRun[]> => world.store.listFeedRuns(fid, limit);
    const facts = (value: string, types: readonly string[] = ['ip', 'ipv4', 'cidr'], asGiven = value) => world.store.findValueFacts({ value, types, asGiven });

    before(async () => {
      server = await startFeedServer();
      server.publish('/list.txt', `${LIST}\n`);
      world = await openPullWorld(backend);
      fid = await world.addSource('Run Feed', { url: `${server.base}/list.txt`, format: 'text', risk: 'high', threat: 'Runbot', schedule: 'every 1h' });
    });
    after(async () => {
      await world.close();
      await server.close();
      await backend.cleanup();
    });

    it('records an ok run with what the pull read, kept and rejected', async () => {
      const started = world.clock.now() + 60_000;
      const outcome = await world.pull(fid, { deps: { trigger: 'schedule' } });
      assert.ok(outcome.ok);
      const [run] = await runs();
      assert.ok(run);
      assert.deepEqual(
        { ...run, run: 0, etag: typeof run.etag },
        {
          run: 0, fid, started: new Date(started).toISOString().slice(0, 19).replace('T', ' '), finished: world.clock.stamp(), seconds: 0,
          trigger: 'schedule', outcome: 'ok', http_status: 200, bytes: Buffer.byteLength(`${LIST}\n`),
          values: 3, new_indicators: 3, new_links: 6, unlisted: 0, churn: null, rejected: { unparseable: 1, allowlisted: 1 }, threats: 1,
          error: null, etag: 'string', last_modified: null,
        },
      );
    });

    it('records a 304 as not-modified, with the listing it saw again', async () => {
      await world.pull(fid);
      const [run, previous] = await runs();
      assert.equal(run?.outcome, 'not-modified');
      assert.equal(run?.trigger, 'command');
      assert.equal(run?.http_status, 304);
      assert.deepEqual([run?.values, run?.new_indicators, run?.new_links, run?.unlisted, run?.churn], [3, 0, 0, 0, 0]);
      assert.ok(run!.run > previous!.run, 'run ids grow');
    });

    it('knows which feed listed a value, the risk it gave and the threat link its pull made', async () => {
      const value = await facts('198.18.0.1');
      assert.equal(value.indicator?.value, '198.18.0.1');
      assert.deepEqual(value.feeds.map((f) => ({ ...f, first_listed: typeof f.first_listed })), [
        { fid, feed: 'Run Feed', organization: 'Pull Tests', listed_now: true, first_listed: 'string', last_listed: (await world.store.findFeed(fid))?.stamp_pulled, risk: 'high', linked_by: 'pull' },
      ]);
      assert.deepEqual(value.threats.map((t) => [t.name, t.linked_by]), [['Runbot', { fid, feed: 'Run Feed' }]]);
      // The indicators collection holds every indicator (config/default.json); the sample one may or may not.
      assert.ok(value.collections.includes('a5cffbfe-c0ff-4842-a235-cb3a7a040a37'), JSON.stringify(value.collections));
      assert.equal(value.rejection, null);
    });

    it('keeps the values the pull rejected, as written or normalized, for the value to tell', async () => {
      const kept = await facts('10.1.2.3');
      assert.equal(kept.indicator, null);
      assert.deepEqual({ ...kept.rejection, at: typeof kept.rejection?.at }, { fid, feed: 'Run Feed', at: 'string', reason: 'allowlisted' });
      const garbage = await facts('not-a-value!', []);
      assert.equal(garbage.rejection?.reason, 'unparseable');
    });

    it('remembers the last pull that listed a value the feed dropped, until it lists it again', async () => {
      const listedBy = (await world.store.findFeed(fid))?.stamp_pulled;
      server.publish('/list.txt', '198.18.0.2\nbad.example.org\n198.18.0.9\n');
      const outcome = await world.pull(fid);
      assert.ok(outcome.ok);
      const [run] = await runs();
      assert.deepEqual([run?.outcome, run?.values, run?.new_indicators, run?.unlisted, run?.churn, run?.rejected], ['ok', 3, 1, 1, 0.3333, { unparseable: 0, allowlisted: 0 }]);
      const dropped = await facts('198.18.0.1');
      assert.deepEqual(dropped.feeds.map((f) => [f.listed_now, f.last_listed, f.risk, f.linked_by]), [[false, listedBy, 'high', 'pull']]);
      server.publish('/list.txt', '198.18.0.1\n198.18.0.2\nbad.example.org\n198.18.0.9\n');
      await world.pull(fid);
      const back = await facts('198.18.0.1');
      assert.deepEqual(back.feeds.map((f) => [f.listed_now, f.last_listed]), [[true, (await world.store.findFeed(fid))?.stamp_pulled]]);
      const past = await dbOf(world.store).selectFrom('past_listings').selectAll().execute();
      assert.deepEqual(past, []);
    });

    it('keeps the latest keepRuns runs of a feed, and the rejections of those only', async () => {
      // A new body each time: every pull reads and rejects (a 304 reads nothing).
      for (let i = 0; i < 3; i++) {
        server.publish('/list.txt', `198.18.0.1\n198.18.0.2\nbad.example.org\n198.18.0.9\nnot-a-value-${i}!\n`);
        assert.ok((await world.pull(fid, { deps: { keepRuns: 2 } })).ok);
      }
      const left = await runs(100);
      assert.equal(left.length, 2);
      const rejectionRuns = await dbOf(world.store).selectFrom('pull_rejections').select('run').where('fid', '=', fid).execute();
      assert.ok(rejectionRuns.length > 0);
      for (const { run } of rejectionRuns) assert.ok(left.some((r) => r.run === Number(run)), `rejection of pruned run ${run} kept`);
    });

    it('lists a feed whose source was removed as one with runs and no definition', async () => {
      assert.equal((await world.store.feedHealthFacts()).find((f) => f.fid === fid)?.definition !== null, true);
      await world.store.removeFeedSource(fid);
      const [entry] = (await world.store.feedHealthFacts()).filter((f) => f.fid === fid);
      assert.equal(entry?.definition, null);
      assert.equal(entry?.last_run?.fid, fid);
      assert.equal(entry?.last_good_run?.outcome, 'ok');
      assert.equal(entry?.listed, 4);
    });

    it("gives one feed's entry alone when asked by fid, and none for a feed with neither source nor runs", async () => {
      const all = await world.store.feedHealthFacts();
      assert.deepEqual(await world.store.feedHealthFacts(fid), all.filter((f) => f.fid === fid));
      assert.deepEqual(await world.store.feedHealthFacts(987_654), []);
    });
  });

  describe(`migration 0014 on ${backend.name} (feed health)`, () => {
    it('carries a store from before it forward: keys are no admin keys, no feed has runs', async () => {
      const { store, location } = await backend.create();
      try {
        await store.insertKey({ id: 'k_0123456789ab', hash: 'f'.repeat(64), plan: 'pro', label: 'old', created_at: '2026-01-01 00:00:00' });
        await rewindFeedHealth(store);
        const db = dbOf(store);
        assert.equal(await migrationsCurrent(db, dialectOf(store), schemaIn(location)), false);
        await migrateToLatest(db, dialectOf(store), schemaIn(location));
        assert.deepEqual((await store.listKeys()).map((k) => [k.id, k.plan, k.admin]), [['k_0123456789ab', 'pro', false]]);
        assert.deepEqual(await store.listFeedRuns(1, 10), []);
        const { rows } = await sql<{ n: number }>`select count(*) as n from feed_runs`.execute(db);
        assert.equal(Number(rows[0]?.n), 0);
      } finally {
        await store.close();
        await backend.cleanup();
      }
    });
  });
}
