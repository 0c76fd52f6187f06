// `threatgate feeds pull FID... | --all` (docs/interface.md section 10): one line per feed in the order given,
// `fid N NAME: ok V values, A new indicators, L new links, R rejected, S s` or `fid N NAME: failed: REASON`,
// exit 1 when any failed; usage errors. In this process with a stopped clock for the exact lines, then as the
// real command line. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/errors.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, runCli, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const SECONDS = String.raw`\d+\.\d s`;

for (const backend of storeBackends()) {
  describe(`feeds pull (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let broken = '';
    const pull = (...args: string[]) => world.feeds(['pull', ...args]);
    const pullAll = () => world.feeds(['pull'], { all: true });
    const cli = (...args: string[]) => runCli(['feeds', 'pull', ...args, '--db', world.location]);

    before(async () => {
      server = await startFeedServer();
      server.publishFixture('drop.txt');
      server.publishFixture('feodo-ipblocklist.csv');
      server.publish('/broken.txt', '203.0.113.60\n');
      server.fail('/broken.txt', { kind: 'status', status: 500 });
      broken = `${server.base}/broken.txt: HTTP status 500`;
      world = await openPullWorld(backend);
      assert.equal(await world.addSource('Example DROP', { url: `${server.base}/drop.txt`, format: 'text', risk: 'high' }), 1);
      assert.equal(
        await world.addSource('Example Feodo', { url: `${server.base}/feodo-ipblocklist.csv`, format: 'csv', csv: { header: 'comment', value: 'dst_ip', threat: 'malware' } }),
        2,
      );
      assert.equal(await world.addSource('Broken list', { url: `${server.base}/broken.txt`, format: 'text' }), 3);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('in this process', () => {
      it('prints an ok line per feed, in the order given, and succeeds', async () => {
        assert.deepEqual(await pull('2', '1'), {
          ok: true,
          lines: [
            'fid 2 Example Feodo: ok 3 values, 3 new indicators, 5 new links, 0 rejected, 0.0 s',
            'fid 1 Example DROP: ok 3 values, 3 new indicators, 3 new links, 0 rejected, 0.0 s',
          ],
        });
      });

      it('prints a failed line with the reason and fails', async () => {
        assert.deepEqual(await pull('3'), { ok: false, lines: [`fid 3 Broken list: failed: ${broken}`] });
      });

      it('pulls a FID given twice once, says so for a feed without a source, and goes on after a failure', async () => {
        assert.deepEqual(await pull('1', '3', '99', '1'), {
          ok: false,
          lines: [
            'fid 1 Example DROP: ok 3 values, 0 new indicators, 0 new links, 0 rejected, 0.0 s',
            `fid 3 Broken list: failed: ${broken}`,
            'fid 99 -: failed: feed 99 has no source',
          ],
        });
      });

      it('with --all pulls every source in fid order', async () => {
        server.fail('/broken.txt', undefined);
        assert.deepEqual(await pullAll(), {
          ok: true,
          lines: [
            'fid 1 Example DROP: ok 3 values, 0 new indicators, 0 new links, 0 rejected, 0.0 s',
            'fid 2 Example Feodo: ok 3 values, 0 new indicators, 0 new links, 0 rejected, 0.0 s',
            'fid 3 Broken list: ok 1 values, 1 new indicators, 1 new links, 0 rejected, 0.0 s',
          ],
        });
      });

      it('counts rejected values on the line', async () => {
        server.publish('/broken.txt', '203.0.113.60\n203.0.113.61\n203.0.113.62\nnot-a-value\n300.1.2.3\n');
        assert.deepEqual(await pull('3'), { ok: true, lines: ['fid 3 Broken list: ok 3 values, 2 new indicators, 2 new links, 2 rejected, 0.0 s'] });
      });

      const usage: [string, string[], boolean, string][] = [
        ['no FID', [], false, 'feeds pull: give one or more FIDs, or --all'],
        ['a FID that is not a number', ['abc'], false, 'feeds pull: give FIDs, a positive whole number, not "abc"'],
        ['FID 0', ['1', '0'], false, 'feeds pull: give FIDs, a positive whole number, not "0"'],
        ['a negative FID', ['-2'], false, 'feeds pull: give FIDs, a positive whole number, not "-2"'],
        ['FIDs and --all', ['1'], true, 'feeds pull: give FIDs or --all, not both'],
      ];
      for (const [what, args, all, message] of usage) {
        it(`refuses ${what} before pulling anything`, async () => {
          const asked = server.requests.length;
          await assert.rejects(world.feeds(['pull', ...args], { all }), (error: unknown) => error instanceof UsageError && error.message === message);
          assert.equal(server.requests.length, asked);
        });
      }
    });

    describe('as the command line', () => {
      it('exits 0 with one ok line per feed, and nothing on stderr', async () => {
        const run = await cli('2', '1');
        assert.equal(run.status, 0, run.stderr);
        assert.match(
          run.stdout,
          new RegExp(`^fid 2 Example Feodo: ok 3 values, 0 new indicators, 0 new links, 0 rejected, ${SECONDS}\\nfid 1 Example DROP: ok 3 values, 0 new indicators, 0 new links, 0 rejected, ${SECONDS}\\n$`),
        );
        assert.equal(run.stderr, '');
      });

      it('exits 1 when one pull of --all failed, with every line on stdout and the failure logged', async () => {
        server.fail('/broken.txt', { kind: 'status', status: 500 });
        const run = await cli('--all');
        assert.equal(run.status, 1, run.stderr);
        const lines = run.stdout.split('\n');
        assert.equal(lines.length, 4, run.stdout);
        assert.match(lines[0]!, new RegExp(`^fid 1 Example DROP: ok 3 values, 0 new indicators, 0 new links, 0 rejected, ${SECONDS}$`));
        assert.match(lines[1]!, new RegExp(`^fid 2 Example Feodo: ok 3 values, 0 new indicators, 0 new links, 0 rejected, ${SECONDS}$`));
        assert.equal(lines[2], `fid 3 Broken list: failed: ${broken}`);
        assert.equal(lines[3], '');
        const logged = run.stderr.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
        assert.deepEqual(logged.map((l) => [l.level, l.msg, l.fid, l.outcome, l.reason]), [['warn', 'pull', 3, 'failed', broken]]);
      });

      // Each usage error's message is checked in this process above; here, what the command line makes of one.
      it('exits 1 on a usage error with its message on stderr and pulls nothing', async () => {
        const asked = server.requests.length;
        const run = await cli('1', 'x1');
        assert.deepEqual([run.status, run.stdout, run.stderr.split('\n')[0]], [1, '', 'threatgate: feeds pull: give FIDs, a positive whole number, not "x1"']);
        assert.equal(server.requests.length, asked);
      });
    });
  });
}
