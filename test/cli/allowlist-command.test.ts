// `threatgate allowlist` (docs/console-and-operations.md) on a store filled by real pulls of a local feed server: the dry run counts
// exactly what adding retires, the retired indicators expire in STIX and stay out of later pulls, removing
// an entry lets the next pull bring them back, and bad entries are refused by name. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { allowlistCommand } from '../../src/cli/allowlist-command.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { ConfigError, UsageError } from '../../src/errors.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { addEntry } from '../../src/sources/runtime-allowlist.js';
import { provenanceOf } from '../../src/sources/value-provenance.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { indicatorsByPattern, openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const LIST = ['198.18.0.1', '198.18.0.2', '198.19.5.5', 'bad.example.org', 'http://x.bad.example.org/path', 'good.example.net'];

for (const backend of storeBackends()) {
  describe(`threatgate allowlist (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid: number;
    const run = async (args: string[], flags: { reason?: string; 'dry-run'?: boolean } = {}) => {
      const lines: string[] = [];
      await allowlistCommand(args, flags, { store: world.store, config: world.config, clock: world.clock, out: (line) => lines.push(line) });
      return lines;
    };
    const lookup = (value: string) => world.api('indicator.php', { indicator: value });

    before(async () => {
      server = await startFeedServer();
      server.publish('/list.txt', `${LIST.join('\n')}\n`);
      world = await openPullWorld(backend);
      fid = await world.addSource('Allow Feed', { url: `${server.base}/list.txt`, format: 'text', risk: 'high', schedule: 'every 1h' });
      assert.ok((await world.pull(fid)).ok);
    });
    after(async () => {
      await world.close();
      await server.close();
      await backend.cleanup();
    });

    it('counts in a dry run what adding the entry retires, and changes nothing', async () => {
      const before = await world.taxii();
      const lines = await run(['add', '198.18.0.0/24'], { 'dry-run': true });
      assert.equal(lines[0], 'would retire 2 indicators');
      assert.deepEqual(lines.slice(1).map((l) => l.split('\t').slice(1)), [['ip', '198.18.0.1'], ['ip', '198.18.0.2']]);
      assert.equal((await lookup('198.18.0.1')).risk, 'high');
      assert.equal((await world.taxii()).objects.length, before.objects.length);
    });

    it('retires exactly those on add: risk retired for the allowlist, and their STIX indicators expire', async () => {
      world.clock.advance(60_000);
      const lines = await run(['add', '198.18.0.0/24'], { reason: 'our own office range' });
      assert.deepEqual(lines, ['added 198.18.0.0/24: retired 2 indicators']);
      for (const value of ['198.18.0.1', '198.18.0.2']) {
        const body = await lookup(value);
        assert.deepEqual([body.risk, body.retired, body.retired_reason], ['retired', 1, 'allowlisted']);
      }
      assert.equal((await lookup('198.19.5.5')).risk, 'high');
      const why = await provenanceOf('198.18.0.1', { store: world.store, allowlist: createAllowlist(undefined), collections: world.config.collections });
      assert.deepEqual(why.allowlist, { entry: '198.18.0.0/24' });
      const objects = indicatorsByPattern((await world.taxii()).objects);
      assert.ok(objects.get("[ipv4-addr:value = '198.18.0.1']")?.valid_until, 'the retired indicator expires');
      assert.equal(objects.get("[ipv4-addr:value = '198.19.5.5']")?.valid_until, undefined);
    });

    it('keeps them out of later pulls, counted as allowlisted in the run', async () => {
      server.publish('/list.txt', `${LIST.join('\n')}\n203.0.113.77\n`);
      const outcome = await world.pull(fid);
      assert.ok(outcome.ok);
      assert.equal(outcome.allowlisted, 2);
      assert.equal((await lookup('198.18.0.1')).risk, 'retired');
      const [latest] = await world.store.listFeedRuns(fid, 1);
      assert.deepEqual(latest?.rejected, { unparseable: 0, allowlisted: 2 });
    });

    it('covers a domain and the URLs on it', async () => {
      const dry = await run(['add', 'bad.example.org'], { 'dry-run': true });
      assert.equal(dry[0], 'would retire 2 indicators');
      assert.deepEqual(await run(['add', 'bad.example.org']), ['added bad.example.org: retired 2 indicators']);
      assert.equal((await lookup('http://x.bad.example.org/path')).retired_reason, 'allowlisted');
      assert.equal((await lookup('good.example.net')).risk, 'high');
    });

    it('lists the config entries and the run-time ones with who added them (an admin key\'s id and label), when and why', async () => {
      // As the console and the operator API add an entry: under the admin key's id.
      world.clock.advance(1000);
      const admin = await createAdminKey(world.store, world.clock, 'night\tshift');
      await addEntry(world.store, { entry: 'quiet.example', reason: 'ours', addedBy: admin.id }, world.clock);
      const lines = await run(['list']);
      assert.equal(lines[0], 'entry\torigin\tadded_by\tadded_at\treason\tadded_by_label');
      assert.ok(lines.includes('10.0.0.0/8\tconfig\t-\t-\t-\t-'));
      const runtime = lines.filter((l) => l.includes('\truntime\t'));
      assert.deepEqual(runtime.map((l) => l.split('\t').filter((_, i) => i !== 3)), [
        ['198.18.0.0/24', 'runtime', 'command line', 'our own office range', '-'],
        ['bad.example.org', 'runtime', 'command line', '-', '-'],
        ['quiet.example', 'runtime', admin.id, 'ours', 'night shift'],
      ]);
    });

    it('lets the next pull bring them back once removed', async () => {
      assert.deepEqual(await run(['remove', '198.18.0.0/24']), ['removed 198.18.0.0/24: the next pulls may list what it kept out']);
      server.publish('/list.txt', `${LIST.join('\n')}\n203.0.113.78\n`);
      assert.ok((await world.pull(fid)).ok);
      const body = await lookup('198.18.0.1');
      assert.deepEqual([body.risk, body.retired, body.retired_reason], ['high', 0, null]);
      assert.equal((await lookup('bad.example.org')).risk, 'retired');
    });

    it('refuses a bad entry, one added twice, and removing what is not there, by name', async () => {
      await assert.rejects(run(['add', '300.1.2.3/40']), (error: unknown) => error instanceof UsageError && /allowlist: entry "300\.1\.2\.3\/40"/.test(error.message));
      await assert.rejects(run(['add', 'bad.example.org']), (error: unknown) => error instanceof ConfigError && /on the allowlist already/.test(error.message));
      await assert.rejects(run(['add', '10.0.0.0/8']), (error: unknown) => error instanceof ConfigError && /in the config's allowlist already/.test(error.message));
      await assert.rejects(run(['remove', '10.0.0.0/8']), (error: unknown) => error instanceof ConfigError && /remove it there/.test(error.message));
      await assert.rejects(run(['remove', 'nothing.example']), (error: unknown) => error instanceof ConfigError && /not on the run-time allowlist/.test(error.message));
      await assert.rejects(run(['add']), UsageError);
      await assert.rejects(run(['drop']), UsageError);
    });
  });
}
