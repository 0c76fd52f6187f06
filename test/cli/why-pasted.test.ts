// `threatgate why VALUE` as built (dist/main.js) with values as analysts paste them and an address inside listed
// blocks (docs/lookup-api.md, "Values as analysts paste them" and "An address inside a listed block"): the
// indicator found, every block holding the address listed, and the exit code a script reads. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import type { Provenance } from '../../src/sources/value-provenance.js';
import { startCli } from '../helpers/cli-process.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const indicator = (iid: number, value: string, type: string, risk = 'high') => ({
  iid, indicator: value, type, risk, stamp_added: '2025-02-01 00:00:00', stamp_updated: '2025-02-02 00:00:00', stamp_seen: '2025-02-03 00:00:00',
  retired: risk === 'retired' ? true : null, attributes: {}, properties: {},
});
const DATA = {
  threats: [], feeds: [], links: [],
  indicators: [
    indicator(1, 'login-2002c.net', 'domain'),
    indicator(2, 'https://evil.example/login', 'url'),
    indicator(3, '138.90.115.251', 'ip'),
    indicator(4, '2001:db8::1', 'ipv6'),
    indicator(5, '1.2.3.4', 'ip'),
    indicator(6, '157.59.90.0/23', 'ip', 'high'),
    indicator(7, '157.59.90.0/24', 'ip', 'retired'),
  ],
};

for (const backend of storeBackends()) {
  describe(`why, built, with pasted values and listed blocks (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, DATA, world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    /** The built CLI's `why ARGS --db STORE`: its exit code and output. */
    async function why(...args: string[]) {
      const cli = startCli(['why', ...args, '--db', world.location], { LOG_LEVEL: 'warn' });
      const code = await cli.exited;
      return { code, stdout: cli.stdout(), stderr: cli.stderr() };
    }

    for (const [pasted, iid, value] of [
      ['hxxps://evil[.]example/login', 2, 'https://evil.example/login'],
      ['1.2.3[.]4', 5, '1.2.3.4'],
      ['login-2002c[.]net', 1, 'login-2002c.net'],
      ['138.90.115.251:80', 3, '138.90.115.251'],
      ['[2001:db8::1]:443', 4, '2001:db8::1'],
    ] as const) {
      it(`finds ${JSON.stringify(pasted)} as iid ${iid}, exit 0`, async () => {
        const run = await why(pasted, '--json');
        assert.equal(run.code, 0, run.stderr);
        const p = JSON.parse(run.stdout) as Provenance;
        assert.deepEqual([p.value, p.normalized?.value, p.indicator?.iid, p.indicator?.value], [pasted, value, iid, value]);
      });
    }

    it('lists every block holding an address no indicator holds, and exits 0: the blocks know it', async () => {
      const json = await why('157.59.90[.]5', '--json');
      assert.equal(json.code, 0, json.stderr);
      const p = JSON.parse(json.stdout) as Provenance;
      assert.equal(p.indicator, null);
      assert.deepEqual(p.blocks, [
        { iid: 7, value: '157.59.90.0/24', risk: 'retired', retired: true },
        { iid: 6, value: '157.59.90.0/23', risk: 'high', retired: false },
      ]);
      const text = await why('157.59.90.5');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^block +iid 7, 157\.59\.90\.0\/24 holds it, risk retired, retired$/m);
      assert.match(text.stdout, /^block +iid 6, 157\.59\.90\.0\/23 holds it, risk high, active$/m);
    });

    it('exits 1 for an address no block holds', async () => {
      const run = await why('157.60.0.1', '--json');
      assert.equal(run.code, 1, run.stderr);
      assert.deepEqual((JSON.parse(run.stdout) as Provenance).blocks, []);
    });
  });
}
