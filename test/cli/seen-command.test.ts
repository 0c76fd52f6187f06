// `threatgate seen` as built (dist/main.js; docs/observations.md, "On the command line"): a pasted value and a
// threat sighted, one line saying what was recorded, `why` listing the sighting after it, and each refusal
// exiting 1 with one line naming the flag while the store stays as it was. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { startCli } from '../helpers/cli-process.js';
import { buildFixture } from '../helpers/fixture.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

for (const backend of storeBackends()) {
  describe(`threatgate seen, built (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, buildFixture(), world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    /** The built CLI's `ARGS --db STORE`: its exit code and output. */
    async function cli(...args: string[]) {
      const run = startCli([...args, '--db', world.location], { LOG_LEVEL: 'warn' });
      const code = await run.exited;
      return { code, stdout: run.stdout(), stderr: run.stderr() };
    }

    it('VALUE as pasted, with --note, --at and --count › one line with what was recorded; the sighting is the command line\u2019s', async () => {
      const run = await cli('seen', 'HOST3[.]example[.]net', '--note', 'ticket 7', '--at', '2026-01-02T04:04:05+01:00', '--count', '3');
      assert.equal(run.code, 0, run.stderr);
      const match = /^recorded sighting (\d+) of indicator 3 host3\.example\.net \(domain\): count 3, seen 2026-01-02 03:04:05\n$/.exec(run.stdout);
      assert.ok(match, run.stdout);
      const [sighting] = await world.store.listSightings({ iid: 3 }, 1);
      assert.deepEqual({ ...sighting, reported_at: '' }, {
        id: Number(match[1]), iid: 3, tid: null, reported_by: null, reported_by_label: 'command line', reported_at: '', seen_at: '2026-01-02 03:04:05', count: 3, note: 'ticket 7',
      });
      const body = await world.api('indicator.php', { indicator: 'host3.example.net' });
      assert.deepEqual([body.sightings, body.stamp_sighted, body.stamp_seen], [3, '2026-01-02 03:04:05', '2026-01-02 03:04:05']);
    });

    it('--threat TID › the threat sighted, seen now', async () => {
      const run = await cli('seen', '--threat', '2');
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^recorded sighting \d+ of threat 2 Emotet: count 1, seen \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\n$/);
      assert.deepEqual((await world.store.listSightings({ tid: 2 }, 5)).map((s) => [s.count, s.reported_by_label]), [[1, 'command line']]);
    });

    it('why VALUE then lists the sighting, and --json carries it', async () => {
      const text = await cli('why', 'host3.example.net');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^sighting +seen 2026-01-02 03:04:05, count 3, by command line: ticket 7$/m);
      const json = await cli('why', 'host3.example.net', '--json');
      const provenance = JSON.parse(json.stdout) as { sightings: { note: string }[]; submissions: unknown[] };
      assert.deepEqual([provenance.sightings.map((s) => s.note), provenance.submissions], [['ticket 7'], []]);
    });

    describe('refused: exit 1, one line naming what is wrong, nothing written', () => {
      const refusals: [what: string, args: string[], message: RegExp][] = [
        ['a value no indicator holds', ['seen', 'never-seen.example'], /^threatgate: seen: VALUE names no stored indicator: "never-seen\.example"\n$/],
        ['a tid no threat has', ['seen', '--threat', '999'], /^threatgate: seen: --threat names no stored threat: 999\n$/],
        ['--count 0', ['seen', 'host3.example.net', '--count', '0'], /^threatgate: seen: --count must be a whole number from 1 to 1000000000\n$/],
        ['--count that is no number', ['seen', 'host3.example.net', '--count', 'many'], /^threatgate: seen: --count must be a whole number from 1 to 1000000000, not "many"\n$/],
        ['--at in the future', ['seen', '--threat', '1', '--at', '2999-01-01'], /^threatgate: seen: --at is in the future \(it is .* UTC now\)\n$/],
        ['both VALUE and --threat', ['seen', 'host3.example.net', '--threat', '1'], /^threatgate: seen: give a VALUE or --threat TID, not both/],
      ];
      for (const [what, args, message] of refusals) {
        it(what, async () => {
          const before = await snapshotStore(world.store);
          const run = await cli(...args);
          assert.equal(run.code, 1, run.stdout);
          assert.equal(run.stdout, '');
          assert.match(run.stderr, message);
          assertSameStore(await snapshotStore(world.store), before, what);
        });
      }
    });
  });
}
