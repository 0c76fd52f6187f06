// The console's value page and GET /admin/api/why with values as analysts paste them and addresses inside listed
// blocks (docs/lookup-api.md, "Values as analysts paste them" and "An address inside a listed block"): the same
// provenance on both, every stored block holding the address listed. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Provenance } from '../../src/sources/value-provenance.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { signIn, type ConsoleClient } from './console-world.js';

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
    indicator(7, '157.59.0.0/16', 'ip', 'medium'),
    indicator(8, '157.59.90.0/24', 'ip', 'retired'),
  ],
};
const PASTED: [pasted: string, iid: number, normalized: string][] = [
  ['hxxps://evil[.]example/login', 2, 'https://evil.example/login'],
  ['1.2.3[.]4', 5, '1.2.3.4'],
  ['login-2002c[.]net', 1, 'login-2002c.net'],
  ['138.90.115.251:80', 3, '138.90.115.251'],
  ['[2001:db8::1]:443', 4, '2001:db8::1'],
];

for (const backend of storeBackends()) {
  describe(`the value page and the admin API's why with pasted values and listed blocks (${backend.name})`, () => {
    let world: PullWorld;
    let client: ConsoleClient;
    let adminKey: string;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, DATA, world.clock);
      adminKey = (await createAdminKey(world.store, world.clock, 'value tests')).key;
      client = await signIn(world.app, adminKey);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    const page = async (value: string) => (await client.get(`/console/value?${new URLSearchParams({ value })}`).expect(200)).text;
    const why = async (value: string) =>
      (await request(world.app).get(`/admin/api/why?${new URLSearchParams({ value })}`).set('Authorization', `Bearer ${adminKey}`).expect(200)).body as Provenance;

    for (const [pasted, iid, normalized] of PASTED) {
      it(`${JSON.stringify(pasted)} shows indicator ${iid} on the value page and in the admin API's why`, async () => {
        const provenance = await why(pasted);
        assert.deepEqual([provenance.value, provenance.normalized?.value, provenance.indicator?.iid], [pasted, normalized, iid]);
        const html = await page(pasted);
        assert.match(html, new RegExp(`<dt>Indicator id</dt><dd>${iid}</dd>`));
        assert.ok(html.includes(`<code>${normalized}</code>`), 'the page shows the value as pulls store it');
        assert.ok(!html.includes('id="value-unknown"'));
      });
    }

    it('lists every stored block holding an address, narrowest first, retired ones said so', async () => {
      const provenance = await why('157.59.90[.]5');
      assert.equal(provenance.indicator, null);
      assert.deepEqual(provenance.blocks, [
        { iid: 8, value: '157.59.90.0/24', risk: 'retired', retired: true },
        { iid: 6, value: '157.59.90.0/23', risk: 'high', retired: false },
        { iid: 7, value: '157.59.0.0/16', risk: 'medium', retired: false },
      ]);
      const html = await page('157.59.90[.]5');
      assert.ok(!html.includes('id="value-unknown"'), 'an address a block holds is known');
      const rows = [...html.slice(html.indexOf('id="value-blocks"')).matchAll(/<tr><th scope="row"><a href="[^"]*"><code>([^<]+)<\/code><\/a><\/th><td class="number">(\d+)<\/td><td>(\w+)<\/td><td>(\w+)<\/td><\/tr>/g)];
      assert.deepEqual(rows.map((m) => m.slice(1)), [
        ['157.59.90.0/24', '8', 'retired', 'Yes'],
        ['157.59.90.0/23', '6', 'high', 'No'],
        ['157.59.0.0/16', '7', 'medium', 'No'],
      ]);
    });

    it('lists the wider blocks holding a stored block, and none for a value of another type', async () => {
      assert.deepEqual((await why('157.59.90.0/24')).blocks.map((b) => b.iid), [6, 7]);
      assert.deepEqual((await why('login-2002c.net')).blocks, []);
      assert.ok(!(await page('login-2002c.net')).includes('id="value-blocks"'));
    });

    it('says nothing knows an address outside every block', async () => {
      assert.deepEqual((await why('157.60.0.1')).blocks, []);
      assert.ok((await page('157.60.0.1')).includes('id="value-unknown"'));
    });
  });
}
