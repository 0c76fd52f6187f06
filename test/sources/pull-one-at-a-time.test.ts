// One pull of a feed at a time, everywhere (docs/interface.md section 10, "Background pulls"): `feeds pull`
// takes the lease `serve` takes, waits for a holder or with --no-wait says who holds it and exits 75, never
// recording that as the feed's error; `feeds list` shows a live lease; the scheduler logs a feed it skips for
// another's lease; a pull cancelled by a shutdown records no failure. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXIT_BUSY, feedsCommand } from '../../src/cli/feeds-command.js';
import type { FeedsDeps } from '../../src/cli/feeds-deps.js';
import { createLogger } from '../../src/logger.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { pullFeed } from '../../src/sources/pull-feed.js';
import { startPullScheduler } from '../../src/sources/pull-scheduler.js';
import { addressLines, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const HOLDER = 'serve on intel-2 pid 4242';

for (const backend of storeBackends()) {
  describe(`one pull of a feed at a time (${backend.name})`, () => {
    let world: PullWorld;
    let server: FeedServer;
    let fid: number;
    before(async () => {
      world = await openPullWorld(backend);
      server = await startFeedServer();
      server.publish('/list.txt', addressLines(0, 5));
      fid = await world.addSource('Leased list', { url: `${server.base}/list.txt`, format: 'text' });
    });
    after(async () => {
      await server.close();
      await world.close();
      await backend.cleanup();
    });

    /** `feeds ARGS` in this process: its exit code, output and notes. */
    async function feeds(args: string[], flags: Record<string, boolean> = {}, extra: Partial<FeedsDeps> = {}) {
      const out: string[] = [];
      const err: string[] = [];
      const deps: FeedsDeps = {
        store: world.store, clock: world.clock, env: {}, allowlist: createAllowlist(undefined), logger: createLogger('silent', () => undefined),
        out: (line) => out.push(line), err: (line) => err.push(line), ...extra,
      };
      const code = await feedsCommand(args, flags, deps);
      return { code, out, err };
    }

    it('feeds pull --no-wait on a feed another holds says who and since when, exits 75, and records nothing on the feed', async () => {
      const now = world.clock.now();
      assert.equal(await world.store.claimPullLease(fid, HOLDER, now, now + 300_000), true);
      const asked = server.requestsFor('/list.txt').length;
      const { code, out } = await feeds(['pull', String(fid)], { 'no-wait': true });
      assert.equal(code, EXIT_BUSY);
      assert.deepEqual(out, [`fid ${fid} is being pulled by ${HOLDER} since ${world.clock.stamp()}`]);
      assert.equal(server.requestsFor('/list.txt').length, asked, 'the source was not asked');
      const [listed] = await world.store.listFeedSources();
      assert.equal(listed?.last_error, null);
    });

    it('feeds list shows the live lease: holder, since, until and the seconds left', async () => {
      const { out } = await feeds(['list']);
      assert.equal(out[0]!.split('\t').at(-1), 'lease');
      assert.match(out[1]!.split('\t').at(-1)!, new RegExp(`^${HOLDER} since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\(300 s left\\)$`));
    });

    it('the scheduler logs a due feed it skips for another holder\'s lease, once per lease', async () => {
      const lines: string[] = [];
      const scheduler = startPullScheduler({
        store: world.store, clock: world.clock, env: {}, allowlist: createAllowlist(undefined), logger: createLogger('info', (line) => lines.push(line)), checkMs: 3_600_000,
      });
      try {
        await scheduler.tick();
        await scheduler.tick();
      } finally {
        await scheduler.stop();
      }
      const skipped = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((e) => e.msg === "pull skipped: another holder has the feed's lease");
      assert.equal(skipped.length, 1, lines.join('\n'));
      assert.equal(skipped[0]!.fid, fid);
      assert.equal(skipped[0]!.holder, HOLDER);
      assert.equal(skipped[0]!.secondsLeft, 300);
    });

    it('feeds pull without --no-wait waits for the holder, says so once, then pulls', async () => {
      let waits = 0;
      const sleep = async () => {
        // The holder finishes while we wait.
        if (++waits === 2) await world.store.releasePullLease(fid, HOLDER);
      };
      const { code, out, err } = await feeds(['pull', String(fid)], {}, { sleep });
      assert.equal(code, 0, out.join('\n'));
      assert.deepEqual(err, [`fid ${fid} is being pulled by ${HOLDER} since ${world.clock.stamp()}; waiting for it to finish`]);
      assert.match(out[0]!, /: ok 5 values/);
      assert.equal(waits, 2);
      assert.equal(await world.store.findPullLease(fid), undefined, 'the command released its lease');
    });

    it('a pull cancelled by a shutdown records no failure and stays due', async () => {
      server.fail('/list.txt', { kind: 'stall', lines: 3 });
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 200);
      const outcome = await pullFeed(fid, { store: world.store, clock: world.clock, env: {}, allowlist: createAllowlist(undefined), logger: createLogger('silent', () => undefined), signal: stop.signal });
      server.fail('/list.txt', undefined);
      assert.deepEqual(outcome.ok ? 'ok' : outcome.reason, 'cancelled: the process is stopping');
      const [listed] = await world.store.listFeedSources();
      assert.equal(listed?.last_error, null);
    });
  });
}
