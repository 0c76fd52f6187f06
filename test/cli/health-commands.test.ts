// `threatgate feeds status`, `feeds history FID` and `why VALUE` (docs/interface.md section 12) on a store filled by real
// pulls of a local feed server, one feed failing: the JSON contracts, the text a person reads, the
// usage errors; in this process with a stopped clock, then `why` and `feeds status` as the real
// command line. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { feedsCommand } from '../../src/cli/feeds-command.js';
import { whyCommand } from '../../src/cli/health-commands.js';
import { UsageError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import type { FeedStatus } from '../../src/sources/feed-health.js';
import type { Provenance } from '../../src/sources/value-provenance.js';
import type { FeedRun } from '../../src/store/contract/runs.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, runCli, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const INDICATORS = { id: 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37', title: 'Indicators', alias: 'indicators' };
const DAY = 86_400_000;

for (const backend of storeBackends()) {
  describe(`feeds status, feeds history and why (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let broken = '';
    let pulledAt = '';
    const allowlist = createAllowlist(undefined);

    /** `feeds ARGS` in this process: its exit code and output lines. */
    async function feeds(args: string[], flags: { json?: boolean; limit?: string } = {}, terminal = false) {
      const lines: string[] = [];
      const deps = { store: world.store, clock: world.clock, env: {}, allowlist, logger: silentLogger, out: (line: string) => lines.push(line), terminal };
      return { code: await feedsCommand(args, flags, deps), lines };
    }
    async function why(value: string, json = true) {
      const lines: string[] = [];
      const code = await whyCommand([value], { json }, { store: world.store, allowlist, collections: world.config.collections, out: (line) => lines.push(line) });
      return { code, lines, provenance: json ? (JSON.parse(lines.join('\n')) as Provenance) : undefined };
    }
    const statusJson = async () => JSON.parse((await feeds(['status'], { json: true })).lines.join('\n')) as FeedStatus[];
    const historyJson = async (fid: string, limit?: string) =>
      JSON.parse((await feeds(['history', fid], { json: true, ...(limit === undefined ? {} : { limit }) })).lines.join('\n')) as FeedRun[];

    before(async () => {
      server = await startFeedServer();
      // 10.0.0.5 is kept out by the default allowlist, 999.1.2.3 is no address at all.
      server.publish('/drop.txt', '203.0.113.10\n203.0.113.11\nevil.example.com\n10.0.0.5\n999.1.2.3\n');
      server.publish('/second.txt', '203.0.113.10 ; shared with the DROP list\nbad.example.net\n');
      server.publish('/broken.txt', '203.0.113.60\n');
      server.fail('/broken.txt', { kind: 'status', status: 500 });
      broken = `${server.base}/broken.txt: HTTP status 500`;
      world = await openPullWorld(backend);
      assert.equal(await world.addSource('Example DROP', { url: `${server.base}/drop.txt`, format: 'text', risk: 'high', threat: 'Drop Bot' }), 1);
      assert.equal(await world.addSource('Second list', { url: `${server.base}/second.txt`, format: 'text', risk: 'medium', schedule: 'every 6h' }), 2);
      assert.equal(await world.addSource('Broken list', { url: `${server.base}/broken.txt`, format: 'text', schedule: 'hourly' }), 3);
      world.clock.advance(60_000);
      pulledAt = world.clock.stamp();
      const pulled = await feeds(['pull', '1', '2', '3']);
      assert.equal(pulled.code, 1, pulled.lines.join('\n'));
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('feeds status --json', () => {
      it('gives every feed its state, last good pull, last run, values and last error', async () => {
        const statuses = await statusJson();
        assert.deepEqual(
          statuses.map((s) => ({ fid: s.fid, feed: s.feed, state: s.state, schedule: s.schedule, values: s.values, new: s.new_in_last_run, churn: s.churn, error: s.last_error })),
          [
            // A first pull has no churn: there was no listing to replace.
            { fid: 1, feed: 'Example DROP', state: 'ok', schedule: 'daily', values: 3, new: 3, churn: null, error: null },
            { fid: 2, feed: 'Second list', state: 'ok', schedule: 'every 6h', values: 2, new: 1, churn: null, error: null },
            { fid: 3, feed: 'Broken list', state: 'failing', schedule: 'hourly', values: 0, new: null, churn: null, error: broken },
          ],
        );
        const [drop, , failing] = statuses;
        assert.deepEqual(Object.keys(drop!).sort(), [
          'churn', 'feed', 'fid', 'last_error', 'last_good_pull', 'last_good_pull_age_seconds', 'last_run', 'new_in_last_run', 'organization', 'schedule', 'stamp_modified', 'state',
          'values',
        ]);
        assert.equal(drop?.organization, 'Pull Tests');
        assert.equal(drop?.last_good_pull, pulledAt);
        assert.equal(drop?.last_good_pull_age_seconds, 0);
        assert.equal(drop?.stamp_modified, pulledAt);
        assert.deepEqual({ outcome: drop?.last_run?.outcome, trigger: drop?.last_run?.trigger, rejected: drop?.last_run?.rejected }, {
          outcome: 'ok', trigger: 'command', rejected: { unparseable: 1, allowlisted: 1 },
        });
        assert.equal(failing?.last_good_pull, null);
        assert.equal(failing?.last_run?.outcome, 'failed');
      });

      it('calls a feed with no good pull for two schedule periods stale, and a removed one paused', async () => {
        world.clock.advance(2 * DAY + 1000);
        const statuses = await statusJson();
        assert.deepEqual(statuses.map((s) => s.state), ['stale', 'stale', 'failing']);
        assert.equal(statuses[0]?.last_good_pull_age_seconds, 2 * 86_400 + 1);
        // Pulled again, the DROP list is ok; its upstream unchanged, stamp_modified stays.
        assert.equal((await feeds(['pull', '1'])).code, 0);
        const [drop] = await statusJson();
        assert.equal(drop?.state, 'ok');
        assert.equal(drop?.stamp_modified, pulledAt);
        assert.equal(drop?.last_good_pull, world.clock.stamp());
      });
    });

    describe('feeds status', () => {
      it('prints tab-separated lines when piped, with the age of the last good pull', async () => {
        const { code, lines } = await feeds(['status']);
        assert.equal(code, 0);
        assert.deepEqual(lines, [
          'fid\tfeed\tstate\tlast_good_pull_age\tlast_run\tvalues\tnew\tchurn\tlast_error',
          '1\tExample DROP\tok\t0s\tnot-modified\t3\t0\t0%\t-',
          '2\tSecond list\tstale\t2d\tok\t2\t1\t-\t-',
          `3\tBroken list\tfailing\t-\tfailed\t0\t-\t-\t${broken}`,
        ]);
      });

      it('aligns the columns on a terminal', async () => {
        const { lines } = await feeds(['status'], {}, true);
        assert.equal(lines[0], 'fid  feed          state    last_good_pull_age  last_run      values  new  churn  last_error');
        assert.equal(lines[3], `3    Broken list   failing  -                   failed        0       -    -      ${broken}`);
      });
    });

    describe('feeds history', () => {
      it('lists a feed\'s runs newest first, each with its trigger, outcome and counts', async () => {
        const runs = await historyJson('1');
        assert.deepEqual(
          runs.map((r) => [r.outcome, r.trigger, r.http_status, r.values, r.new_indicators, r.new_links, r.churn, r.rejected.unparseable, r.rejected.allowlisted, r.error]),
          [
            // A 304 replaces nothing of the listing (churn 0); a first pull has none to replace (null).
            ['not-modified', 'command', 304, 3, 0, 0, 0, 0, 0, null],
            // Three links to the feed, three to the source's threat.
            ['ok', 'command', 200, 3, 3, 6, null, 1, 1, null],
          ],
        );
        assert.ok(runs[0]!.run > runs[1]!.run);
        assert.equal(runs[1]?.started, pulledAt);
        assert.deepEqual(Object.keys(runs[0]!).sort(), [
          'bytes', 'churn', 'error', 'etag', 'fid', 'finished', 'http_status', 'last_modified', 'new_indicators', 'new_links', 'outcome', 'rejected', 'run', 'seconds', 'started',
          'threats', 'trigger', 'unlisted', 'values',
        ]);
      });

      it('gives a failed run its HTTP status and error, and no counts', async () => {
        const [run] = await historyJson('3');
        assert.deepEqual([run?.outcome, run?.http_status, run?.values, run?.new_indicators, run?.error], ['failed', 500, null, null, broken]);
      });

      it('keeps to --limit, and prints tab-separated lines when piped', async () => {
        assert.equal((await historyJson('1', '1')).length, 1);
        const { lines } = await feeds(['history', '1']);
        assert.equal(lines[0], 'run\tstarted\ttrigger\toutcome\tseconds\thttp_status\tbytes\tvalues\tnew_indicators\tnew_links\tunlisted\tchurn\tunparseable\tallowlisted\terror');
        assert.match(lines[1]!, /\t304\t0\t3\t0\t0\t0\t0%\t0\t0\t-$/);
        assert.match(lines[2]!, new RegExp(`^\\d+\\t${pulledAt}\\tcommand\\tok\\t0\\.0\\t200\\t\\d+\\t3\\t3\\t6\\t0\\t-\\t1\\t1\\t-$`));
      });

      for (const limit of ['0', '1001', 'ten', '-1']) {
        it(`refuses --limit ${limit} with a usage error`, async () => {
          await assert.rejects(feeds(['history', '1'], { limit }), (error: unknown) =>
            error instanceof UsageError && error.message === `feeds history: --limit must be a whole number from 1 to 1000, not "${limit}"`);
        });
      }

      it('names a feed that has neither a source nor runs', async () => {
        await assert.rejects(feeds(['history', '99']), /feeds history: feed 99 has no source and no runs/);
      });
    });

    describe('why', () => {
      it('names both feeds of a value two list, the feed whose risk it has, its threat and collections', async () => {
        const { code, provenance: p } = await why(' 203.0.113.10 ');
        assert.equal(code, 0);
        assert.deepEqual(Object.keys(p!).sort(), [
          'allowlist', 'blocks', 'collections', 'exports', 'feeds', 'indicator', 'normalized', 'rejection', 'risk_from', 'sightings', 'submissions', 'threats', 'unparseable', 'value',
        ]);
        // No stored block holds it.
        assert.deepEqual(p?.blocks, []);
        assert.equal(p?.value, ' 203.0.113.10 ');
        assert.deepEqual(p?.normalized, { value: '203.0.113.10', type: 'ip' });
        assert.equal(p?.unparseable, null);
        assert.deepEqual({ type: p?.indicator?.type, value: p?.indicator?.value, risk: p?.indicator?.risk, retired: p?.indicator?.retired }, {
          type: 'ip', value: '203.0.113.10', risk: 'high', retired: false,
        });
        assert.deepEqual(
          p?.feeds.map((f) => [f.fid, f.feed, f.listed_now, f.first_listed, f.risk, f.linked_by]),
          [
            [1, 'Example DROP', true, pulledAt, 'high', 'pull'],
            [2, 'Second list', true, pulledAt, 'medium', 'pull'],
          ],
        );
        assert.deepEqual(p?.risk_from, [{ fid: 1, feed: 'Example DROP' }]);
        assert.deepEqual(p?.threats.map((t) => [t.name, t.retired, t.linked_by]), [['Drop Bot', false, { fid: 1, feed: 'Example DROP' }]]);
        assert.equal(p?.allowlist, null);
        assert.equal(p?.rejection, null);
        assert.ok(p?.collections.some((c) => c.id === INDICATORS.id && c.title === INDICATORS.title && c.alias === INDICATORS.alias));
        assert.deepEqual(p?.exports, p?.collections.map((c) => ({ collection: c.id, url: `/export/${c.id}.txt` })));
      });

      it('names the allowlist entry that keeps a value out, and the pull that rejected it', async () => {
        const { code, provenance: p } = await why('10.0.0.5');
        assert.equal(code, 0);
        assert.deepEqual(
          { indicator: p?.indicator, feeds: p?.feeds, allowlist: p?.allowlist, collections: p?.collections, exports: p?.exports },
          { indicator: null, feeds: [], allowlist: { entry: '10.0.0.0/8' }, collections: [], exports: [] },
        );
        assert.deepEqual(p?.rejection, { fid: 1, feed: 'Example DROP', at: pulledAt, reason: 'allowlisted' });
      });

      it('says why text is no indicator, and which pull rejected it as written', async () => {
        const { code, provenance: p } = await why('999.1.2.3');
        assert.equal(code, 0);
        assert.equal(p?.normalized, null);
        assert.match(p?.unparseable ?? '', /./);
        assert.deepEqual(p?.rejection, { fid: 1, feed: 'Example DROP', at: pulledAt, reason: 'unparseable' });
      });

      it('exits 1 for a value nothing knows', async () => {
        const { code, provenance: p } = await why('198.51.100.99');
        assert.equal(code, 1);
        assert.deepEqual([p?.indicator, p?.feeds, p?.rejection, p?.allowlist], [null, [], null, null]);
      });

      it('prints a readable block: the indicator, one line per feed, the threat and the exports', async () => {
        const { lines } = await why('203.0.113.10', false);
        assert.equal(lines[0], 'value       203.0.113.10');
        assert.equal(lines[1], 'type        ip');
        assert.match(lines[2]!, /^indicator   iid \d+, ip 203\.0\.113\.10, risk high, active; added /);
        assert.equal(lines[3], 'risk from   fid 1 Example DROP');
        assert.equal(lines[4], `feed        fid 1 Example DROP (Pull Tests): lists it now; first listed ${pulledAt}, last pulled ${world.clock.stamp()}, risk high, by pull`);
        assert.match(lines[5]!, /^feed        fid 2 Second list \(Pull Tests\): lists it now; /);
        assert.equal(lines[6], `threat      tid 1 Drop Bot: linked ${pulledAt} by fid 1 Example DROP`);
        assert.ok(lines.includes(`collection  ${INDICATORS.id} Indicators (indicators); export /export/${INDICATORS.id}.txt`));
      });

      it('refuses no value or two with a usage error', async () => {
        const out = () => undefined;
        const deps = { store: world.store, allowlist, collections: world.config.collections, out };
        await assert.rejects(whyCommand([], {}, deps), UsageError);
        await assert.rejects(whyCommand(['a.example', 'b.example'], {}, deps), UsageError);
      });
    });

    describe('as the command line', () => {
      it('why exits 0 with the JSON for a known value, 1 for an unknown one', async () => {
        const known = await runCli(['why', 'evil.example.com', '--json', '--db', world.location]);
        assert.equal(known.status, 0, known.stderr);
        assert.deepEqual((JSON.parse(known.stdout) as Provenance).feeds.map((f) => f.fid), [1]);
        const unknown = await runCli(['why', 'nowhere.example.org', '--db', world.location]);
        assert.equal(unknown.status, 1, unknown.stderr);
        assert.match(unknown.stdout, /^unknown +no indicator, feed, rejection or allowlist entry knows this value$/m);
      });

      it('feeds status --json prints the array of every feed', async () => {
        const res = await runCli(['feeds', 'status', '--json', '--db', world.location]);
        assert.equal(res.status, 0, res.stderr);
        assert.deepEqual((JSON.parse(res.stdout) as FeedStatus[]).map((s) => s.fid), [1, 2, 3]);
      });
    });

    describe('after feeds remove', () => {
      it('shows the removed feed as paused, its history kept', async () => {
        assert.equal((await feeds(['remove', '2'])).code, 0);
        const statuses = await statusJson();
        assert.deepEqual(statuses.map((s) => [s.fid, s.state]), [[1, 'ok'], [2, 'paused'], [3, 'failing']]);
        assert.equal((await historyJson('2')).length, 1);
      });
    });
  });
}
