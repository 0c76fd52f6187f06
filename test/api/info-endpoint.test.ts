// GET /api/info.php, the older single entry point (docs/interface.md section 4.4): each parameter form answers
// exactly what the endpoint it stands for answers, bodies and errors alike. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { loadConfig } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture } from '../helpers/fixture.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { GENEROUS_PLANS } from '../helpers/test-app.js';

const FEED = `feed=${encodeURIComponent('Botnet C&C (IPv4)')}&organization=${encodeURIComponent('example labs, inc.')}`;

/** info.php's query, and the endpoint and query it stands for. */
const SAME_AS: [info: string, endpoint: string, query: string][] = [
  ['iid=3', 'indicator.php', 'iid=3'],
  ['indicator=HOST3.example.net.', 'indicator.php', 'indicator=host3.example.net'],
  ['tid=1', 'threat.php', 'tid=1'],
  ['tname=zbot', 'threat.php', 'threat=Zbot'],
  ['tid=1&tname=Emotet', 'threat.php', 'tid=1'],
  ['tid=1&get=links', 'threat.php', 'tid=1&get=links'],
  ['fid=1', 'feed.php', 'fid=1'],
  [FEED, 'feed.php', FEED],
  ['fid=1&get=links&page=1', 'feed.php', 'fid=1&get=links&page=1'],
  ['fid=2&get=links', 'feed.php', 'fid=2&get=links'],
  ['tid=2&pretty=1', 'threat.php', 'tid=2&pretty=1'],
  // What the pulsedive client and the analyzers always send is accepted and changes nothing.
  ['indicator=198.51.100.1&sanitize=1&schema=1', 'indicator.php', 'indicator=198.51.100.1'],
  // `summary=1` with `get=links` (the pulsedive client's threat summary) asks for the record, whose
  // `summary` sums up its links; `splitrisk` changes nothing, and another `summary` value is a page.
  ['tid=1&get=links&summary=1&splitrisk=1', 'threat.php', 'tid=1'],
  ['tname=zbot&get=links&summary=1', 'threat.php', 'threat=Zbot'],
  ['fid=1&get=links&summary=1&splitrisk=0', 'feed.php', 'fid=1'],
  ['tid=1&get=links&summary=0&splitrisk=1', 'threat.php', 'tid=1&get=links'],
  // A request naming several lookups is the first of iid/indicator, tid/tname, fid/feed.
  ['fid=1&tid=2&iid=3', 'indicator.php', 'iid=3'],
  // The pulsedive client's indicator.links and indicator.properties, with what it always sends.
  ['iid=3&get=links&pretty=0&sanitize=1', 'indicator.php', 'iid=3&get=links'],
  ['iid=3&get=properties&pretty=0&sanitize=1', 'indicator.php', 'iid=3&get=properties'],
];

const ERRORS: [query: string, status: number, error: string][] = [
  ['', 400, 'Parameter "iid", "indicator", "tid", "tname", "fid" or "feed" is required.'],
  ['organization=Sinkhole%20Org&get=links&pretty=1', 400, 'Parameter "iid", "indicator", "tid", "tname", "fid" or "feed" is required.'],
  ['indicator=', 400, 'Parameter "indicator" is required.'],
  ['indicator=no%20such%20thing', 400, 'Parameter "indicator": "no such thing" is no indicator (an IP address or CIDR block, domain, URL, email address, hash or AS number).'],
  ['iid=x', 400, 'Parameter "iid" must be a positive integer.'],
  ['iid=3&get=all', 400, 'Parameter "get" must be "links" or "properties".'],
  ['tname=', 400, 'Parameter "tname" is required.'],
  ['tid=1&tid=2', 400, 'Parameter "tid" must be given once.'],
  ['tname=Zeus&get=links', 400, 'Parameter "tid" is required.'],
  ['fid=1&get=all', 400, 'Parameter "get" must be "links".'],
  ['fid=1&get=links&page=-1', 400, 'Parameter "page" must be a non-negative integer.'],
  ['feed=Empty%20Feed', 400, 'Parameter "organization" is required.'],
  ['tid=1&pretty=yes', 400, 'Parameter "pretty" must be 0 or 1.'],
  ['iid=999999', 404, 'Indicator not found.'],
  ['indicator=unknown.example.com', 404, 'Indicator not found.'],
  ['tid=999', 404, 'Threat not found.'],
  ['tname=Nobody', 404, 'Threat not found.'],
  ['tid=999&get=links', 404, 'Threat not found.'],
  ['tid=999&get=links&summary=1', 404, 'Threat not found.'],
  ['indicator=example.com&get=properties', 400, 'Parameter "iid" is required with get=properties.'],
  ['tid=1&get=all&summary=1', 400, 'Parameter "get" must be "links".'],
  ['fid=999', 404, 'Feed not found.'],
  ['feed=Nothing&organization=Nobody', 404, 'Feed not found.'],
];

for (const backend of storeBackends()) {
  describe(`GET /api/info.php (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend, {}, loadConfig({ overrides: { ...GENEROUS_PLANS, cache: { versionCheckMs: 0 } } }));
      await importDataset(world.store, buildFixture(), world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    const get = (path: string) => request(world.app).get(`/api/${path}${path.includes('?') ? '&' : '?'}key=${world.key}`);

    describe('stands for the endpoint its parameters name', () => {
      for (const [info, endpoint, query] of SAME_AS) {
        it(`?${info} answers what ${endpoint}?${query} answers`, async () => {
          const expected = await get(`${endpoint}?${query}`).expect(200);
          const res = await get(`info.php?${info}`).expect(200);
          assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
          assert.equal(res.text, expected.text);
        });
      }
    });

    describe('answers errors as that endpoint does', () => {
      for (const [query, status, error] of ERRORS) {
        it(`?${query} answers ${status} ${JSON.stringify(error)}`, async () => {
          const res = await get(`info.php?${query}`).expect(status);
          assert.deepEqual(res.body, { error });
        });
      }
    });

    it('answers the pulsedive client\u2019s threat.summary(1) query with the threat and its summary, not a page of links', async () => {
      const res = await get('info.php?tid=1&get=links&summary=1&splitrisk=0&pretty=0&sanitize=1').expect(200);
      assert.equal(res.body.tid, 1);
      assert.equal(res.body.results, undefined);
      assert.deepEqual(Object.keys(res.body.summary).sort(), ['attributes', 'feeds', 'properties', 'risk', 'updated_last_domain']);
    });

    it('holds a links page to the plan\u2019s allowance: page 1 without a key is a 403 naming the limit', async () => {
      const res = await request(world.app).get('/api/info.php?fid=1&get=links&page=1').expect(403);
      assert.match(res.body.error, /may read 1 page per request \(pages 0 to 0\); page 1 is beyond that limit\./);
    });
  });
}
