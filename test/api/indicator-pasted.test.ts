// GET /api/indicator.php and info.php with values as analysts paste them, and an address inside a listed block
// (docs/lookup-api.md, "Values as analysts paste them" and "An address inside a listed block"). SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Risk } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { buildFixture } from '../helpers/fixture.js';

type Extra = { risk?: Risk; retired?: boolean };
const indicator = (iid: number, value: string, type: string, extra: Extra = {}) => ({
  iid, indicator: value, type, risk: extra.risk ?? 'high', stamp_added: '2025-02-01 00:00:00', stamp_updated: '2025-02-02 00:00:00', stamp_seen: '2025-02-03 00:00:00',
  retired: extra.retired ?? null, attributes: {}, properties: {},
});
const only = (...indicators: ReturnType<typeof indicator>[]) => ({ threats: [], feeds: [], indicators, links: [] });

function dataset() {
  const data = buildFixture();
  data.indicators.push(
    indicator(201, 'login-2002c.net', 'domain'),
    indicator(202, '1.2.3.4', 'ip'),
    indicator(203, 'https://evil.example/login', 'url'),
    indicator(204, '138.90.115.251', 'ip'),
    indicator(205, '2001:db8::1', 'ipv6'),
    indicator(206, '157.59.90.0/23', 'ip', { risk: 'high' }),
    indicator(207, '157.59.0.0/16', 'ip', { risk: 'medium' }),
    // Narrower than the /23, but retired: it answers for no address.
    indicator(208, '157.59.90.0/24', 'ip', { risk: 'retired', retired: true }),
    indicator(209, '157.59.90.7', 'ip', { risk: 'low' }),
    indicator(210, '2001:db8:1::/48', 'ipv6'),
    // An import's alias type for blocks.
    indicator(211, '10.0.0.0/8', 'cidr', { risk: 'low' }),
  );
  return data;
}

for (const backend of storeBackends()) {
  describe(`GET /api/indicator.php with pasted values and listed blocks (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, dataset(), world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    const lookup = (query: Record<string, string | number>, status = 200, path = 'indicator.php') => world.api(path, query, status);

    describe('a value as analysts paste it', () => {
      for (const [pasted, iid, stored] of [
        ['hxxps://evil[.]example/login', 203, 'https://evil.example/login'],
        ['1.2.3[.]4', 202, '1.2.3.4'],
        ['login-2002c[.]net', 201, 'login-2002c.net'],
        ['138.90.115.251:80', 204, '138.90.115.251'],
        ['[2001:db8::1]:443', 205, '2001:db8::1'],
        ['login-2002c(.)net', 201, 'login-2002c.net'],
      ] as const) {
        it(`${JSON.stringify(pasted)} finds iid ${iid}, answering the stored form in "indicator"`, async () => {
          const body = await lookup({ indicator: pasted });
          assert.deepEqual([body.iid, body.indicator, body.matched], [iid, stored, undefined]);
          assert.deepEqual(await lookup({ indicator: pasted }, 200, 'info.php'), body);
          assert.deepEqual(await lookup({ indicator: stored }), body);
        });
      }

      it('answers 400 for pasted text that is no indicator once refanged', async () => {
        const body = await lookup({ indicator: '1.2.3.4:99999' }, 400);
        assert.match(body.error, /^Parameter "indicator": "1\.2\.3\.4:99999" is no indicator/);
      });
    });

    describe('an address inside a listed block', () => {
      it('answers the narrowest active block holding it, with "matched"', async () => {
        const block = await lookup({ iid: 206 });
        const body = await lookup({ indicator: '157.59.90.5' });
        assert.deepEqual(body, { ...block, matched: { query: '157.59.90.5', by: 'block' } });
        assert.deepEqual(Object.keys(body).at(-1), 'matched');
      });

      it('skips a narrower block that is retired', async () => {
        assert.equal((await lookup({ indicator: '157.59.90.200' })).iid, 206);
      });

      it('answers a wider block where the narrower ones do not reach', async () => {
        assert.deepEqual((await lookup({ indicator: '157.59.1.1' })).matched, { query: '157.59.1.1', by: 'block' });
        assert.equal((await lookup({ indicator: '157.59.1.1' })).iid, 207);
      });

      it('answers an address held itself with its own record and no "matched"', async () => {
        const body = await lookup({ indicator: '157.59.90.7' });
        assert.deepEqual([body.iid, 'matched' in body], [209, false]);
      });

      it('finds the block for a pasted address, IPv6, and a block stored under an import\u2019s alias type', async () => {
        const pasted = await lookup({ indicator: '157.59.90[.]5:443' }, 200, 'info.php');
        assert.deepEqual([pasted.iid, pasted.matched], [206, { query: '157.59.90.5', by: 'block' }]);
        const v6 = await lookup({ indicator: '[2001:DB8:1::5]:8443' });
        assert.deepEqual([v6.iid, v6.indicator, v6.matched], [210, '2001:db8:1::/48', { query: '2001:db8:1::5', by: 'block' }]);
        const alias = await lookup({ indicator: '10.1.2.3' });
        assert.deepEqual([alias.iid, alias.type, alias.matched.by], [211, 'cidr', 'block']);
      });

      it('answers 404 for an address no active block holds, and for a block no indicator holds', async () => {
        assert.deepEqual(await lookup({ indicator: '157.60.0.1' }, 404), { error: 'Indicator not found.' });
        assert.deepEqual(await lookup({ indicator: '157.59.90.0/25' }, 404), { error: 'Indicator not found.' });
      });

      it('answers a block stored after the address was asked for, and a narrower one stored later still', async () => {
        await lookup({ indicator: '192.0.2.77' }, 404);
        await importDataset(world.store, only(indicator(220, '192.0.2.0/24', 'ip')), world.clock);
        const first = await lookup({ indicator: '192.0.2.77' });
        assert.deepEqual([first.iid, first.matched], [220, { query: '192.0.2.77', by: 'block' }]);
        await importDataset(world.store, only(indicator(221, '192.0.2.64/26', 'ip')), world.clock);
        assert.equal((await lookup({ indicator: '192.0.2.77' })).iid, 221);
        // The address itself, stored at last, answers for itself.
        await importDataset(world.store, only(indicator(222, '192.0.2.77', 'ip')), world.clock);
        const own = await lookup({ indicator: '192.0.2.77' });
        assert.deepEqual([own.iid, 'matched' in own], [222, false]);
      });
    });
  });
}
