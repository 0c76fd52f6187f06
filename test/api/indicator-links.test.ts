// GET /api/indicator.php and info.php with `iid` and `get=links` or `get=properties` (docs/lookup-api.md, "An
// indicator's links and properties"), as the pulsedive client's indicator.links and indicator.properties send
// them: each relation of each type, paging, the plan's pages, the errors. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import type { Risk } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { openPullWorld, PULL_CONFIG, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { GENEROUS_PLANS } from '../helpers/test-app.js';

const PROPERTIES = { country: 'NL', asn: 64500, whois: { registrar: 'Example Registrar' } };
const indicator = (iid: number, value: string, type: string, risk: Risk = 'high', properties: object = {}) => ({
  iid, indicator: value, type, risk, stamp_added: '2025-02-01 00:00:00', stamp_updated: '2025-02-02 00:00:00', stamp_seen: '2025-02-03 00:00:00',
  retired: risk === 'retired' ? true : null, attributes: {}, properties,
});
const DATA = {
  threats: [], feeds: [], links: [],
  indicators: [
    indicator(1, 'evil.example', 'domain', 'high', PROPERTIES),
    indicator(2, 'a.evil.example', 'domain', 'medium'),
    indicator(3, 'b.c.evil.example', 'hostname', 'low'),
    // Neither is under evil.example.
    indicator(4, 'notevil.example', 'domain'),
    indicator(5, 'evil.example.attacker.net', 'domain'),
    indicator(6, 'http://evil.example/login', 'url'),
    indicator(7, 'https://evil.example:8443/x', 'url', 'critical'),
    // On a subdomain, and one that only quotes evil.example in its query: not URLs on evil.example.
    indicator(8, 'http://a.evil.example/', 'url'),
    indicator(9, 'http://other.example/?u=http://evil.example/', 'url'),
    indicator(10, 'ftp://evil.example', 'uri', 'retired'),
    indicator(11, '157.59.90.5', 'ip'),
    indicator(12, '157.59.90.0/24', 'ip', 'medium'),
    indicator(13, '157.59.90.0/23', 'cidr', 'low'),
    indicator(14, '157.59.91.9', 'ip'),
    indicator(15, '157.60.0.1', 'ip'),
    indicator(16, 'http://157.59.90.5/gate.php', 'url'),
    indicator(17, 'd41d8cd98f00b204e9800998ecf8427e', 'md5'),
  ],
};
/** A related indicator as the body lists it. */
const row = (iid: number) => {
  const i = DATA.indicators.find((x) => x.iid === iid)!;
  return { iid, indicator: i.indicator, type: i.type, risk: i.risk };
};

/** Two rows a relation a page, so that paging shows on a small data set. */
const SMALL_PAGES = loadConfig({ overrides: { ...GENEROUS_PLANS, linksPageSize: 2, cache: { versionCheckMs: 0 }, collections: PULL_CONFIG.collections } });

for (const backend of storeBackends()) {
  describe(`GET /api/indicator.php?iid=N&get=links|properties (${backend.name})`, () => {
    let world: PullWorld;
    let small: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, DATA, world.clock);
      small = await openPullWorld(backend, {}, SMALL_PAGES);
      await importDataset(small.store, DATA, small.clock);
    });
    after(async () => {
      await world.close();
      await small.close();
      await backend.cleanup();
    });

    const links = (iid: number, extra: Record<string, string | number> = {}, status = 200, path = 'indicator.php') => world.api(path, { iid, get: 'links', ...extra }, status);

    describe('get=properties', () => {
      it('answers the indicator\u2019s stored properties, on indicator.php and on info.php as the pulsedive client sends it', async () => {
        assert.deepEqual(await world.api('indicator.php', { iid: 1, get: 'properties' }), { properties: PROPERTIES });
        assert.deepEqual(await world.api('info.php', { iid: 1, get: 'properties', pretty: 0, sanitize: 1 }), { properties: PROPERTIES });
        assert.deepEqual(await world.api('indicator.php', { iid: 2, get: 'properties' }), { properties: {} });
      });

      it('answers 404 for an unknown iid', async () => {
        assert.deepEqual(await world.api('info.php', { iid: 999, get: 'properties' }, 404), { error: 'Indicator not found.' });
      });
    });

    describe('get=links', () => {
      it('a domain: its subdomains at any depth and the URLs whose host it is, newest first, whatever type stored them', async () => {
        assert.deepEqual(await links(1), { results: { Subdomains: [row(3), row(2)], URLs: [row(10), row(7), row(6)] } });
      });

      it('a URL: its host, a domain or an address', async () => {
        assert.deepEqual(await links(6), { results: { Host: [row(1)] } });
        assert.deepEqual(await links(8), { results: { Host: [row(2)] } });
        assert.deepEqual(await links(16), { results: { Host: [row(11)] } });
        assert.deepEqual(await links(9), { results: { Host: [] } });
      });

      it('an address: every stored block holding it, narrowest first', async () => {
        assert.deepEqual(await links(11), { results: { Blocks: [row(12), row(13)] } });
        assert.deepEqual(await links(15), { results: { Blocks: [] } });
      });

      it('a block: the wider blocks holding it, and the addresses and blocks inside it', async () => {
        assert.deepEqual(await links(13), { results: { Blocks: [], Inside: [row(14), row(12), row(11)] } });
        assert.deepEqual(await links(12), { results: { Blocks: [row(13)], Inside: [row(11)] } });
      });

      it('a type the store relates nothing to: no relations', async () => {
        assert.deepEqual(await links(17), { results: {} });
      });

      it('answers the same on info.php, with what the pulsedive client sends', async () => {
        assert.deepEqual(await links(1, { pretty: 0, sanitize: 1 }, 200, 'info.php'), await links(1));
      });

      it('answers 404 for an unknown iid', async () => {
        assert.deepEqual(await links(999, {}, 404), { error: 'Indicator not found.' });
      });
    });

    describe('paging', () => {
      const smallLinks = (iid: number, page?: number, status = 200) => small.api('indicator.php', { iid, get: 'links', ...(page === undefined ? {} : { page }) }, status);

      it('pages every relation alike: page_next while any has more, page_current on every page', async () => {
        assert.deepEqual(await smallLinks(1), { page_current: 0, page_next: 1, results: { Subdomains: [row(3), row(2)], URLs: [row(10), row(7)] } });
        assert.deepEqual(await smallLinks(1, 1), { page_current: 1, results: { Subdomains: [], URLs: [row(6)] } });
        assert.deepEqual(await smallLinks(1, 2, 403), { error: await small.api('feed.php', { fid: 1, get: 'links', page: 2 }, 403).then((b) => b.error) });
      });

      it('pages a relation read in full (the blocks holding an address) the same way', async () => {
        assert.deepEqual(await smallLinks(13), { page_current: 0, page_next: 1, results: { Blocks: [], Inside: [row(14), row(12)] } });
        assert.deepEqual(await smallLinks(13, 1), { page_current: 1, results: { Blocks: [], Inside: [row(11)] } });
        assert.deepEqual(await smallLinks(11), { results: { Blocks: [row(12), row(13)] } });
      });
    });
  });
}
