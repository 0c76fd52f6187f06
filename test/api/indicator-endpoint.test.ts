// GET /api/indicator.php (docs/interface.md sections 2.5 and 4.3): one value, however it is spelled, or one iid; its risk,
// retirement, stamps, threats, feeds and attributes. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { importDataset } from '../../src/import/import-file.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { buildFixture, extraIndicator } from '../helpers/fixture.js';

const FIELDS = ['iid', 'type', 'indicator', 'risk', 'retired', 'retired_reason', 'stamp_added', 'stamp_updated', 'stamp_seen', 'stamp_retired', 'threats', 'feeds', 'attributes', 'sightings', 'stamp_sighted', 'submissions'];

/** The fixture, plus values stored as pulls store them (normalized), one of them under an import's alias type. */
function dataset() {
  const data = buildFixture();
  const extra = extraIndicator;
  data.indicators.push(
    extra(101, 'example.com', 'domain', { attributes: { port: ['443'] } }),
    extra(102, '2001:db8::1', 'ipv6'),
    extra(103, 'http://evil.example.org/Path/To?Q=A', 'url'),
    extra(104, '203.0.113.9', 'ipv4'),
    // An import stores what its record gives, normalized or not.
    extra(105, 'Secure-Login.Example.net', 'domain'),
  );
  data.links.push({ iid: 101, fid: 2, stamp_linked: '2025-06-03 00:00:00' }, { iid: 101, fid: 1, stamp_linked: '2025-06-04 00:00:00' }, { iid: 101, tid: 2, stamp_linked: '2025-06-05 00:00:00' });
  return data;
}

for (const backend of storeBackends()) {
  describe(`GET /api/indicator.php (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, dataset(), world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    const lookup = (query: Record<string, string | number>, status = 200) => world.api('indicator.php', query, status);

    describe('with a value', () => {
      it('finds a domain in three spellings: a trailing dot, lower case, mixed case', async () => {
        const bodies = [];
        for (const indicator of ['EXAMPLE.com.', 'example.com', 'Example.COM']) bodies.push(await lookup({ indicator }));
        assert.equal(bodies[0].iid, 101);
        assert.deepEqual(bodies[1], bodies[0]);
        assert.deepEqual(bodies[2], bodies[0]);
      });

      it('finds a value an import stored unnormalized when it is written as stored, and the normalized value first', async () => {
        assert.equal((await lookup({ indicator: 'Secure-Login.Example.net' })).iid, 105);
        assert.equal((await lookup({ indicator: ' Secure-Login.Example.net ' })).iid, 105);
        // Other spellings normalize to a value no indicator holds.
        assert.deepEqual(await lookup({ indicator: 'secure-login.example.net' }, 404), { error: 'Indicator not found.' });
        // A spelling that differs from a stored normalized value still finds that one.
        assert.equal((await lookup({ indicator: 'EXAMPLE.COM' })).iid, 101);
      });

      it('answers every field of docs/interface.md section 2.5, in its order, with the threats and feeds by id', async () => {
        const body = await lookup({ indicator: 'example.com' });
        assert.deepEqual(Object.keys(body), FIELDS);
        assert.deepEqual(body, {
          iid: 101, type: 'domain', indicator: 'example.com', risk: 'high', retired: 0, retired_reason: null,
          stamp_added: '2025-02-01 00:00:00', stamp_updated: '2025-02-02 00:00:00', stamp_seen: '2025-02-03 00:00:00', stamp_retired: null,
          threats: [{ tid: 2, name: 'Emotet', category: 'botnet', risk: 'critical', stamp_linked: '2025-06-05 00:00:00' }],
          feeds: [
            { fid: 1, name: 'Botnet C&C (IPv4)', category: 'malware', organization: 'Example Labs, Inc.', pricing: 'free', stamp_linked: '2025-06-04 00:00:00' },
            { fid: 2, name: "O'Brien Sinkhole", category: 'malware', organization: 'Sinkhole Org', pricing: 'free', stamp_linked: '2025-06-03 00:00:00' },
          ],
          attributes: { port: ['443'] },
          sightings: 0,
          stamp_sighted: null,
          submissions: 0,
        });
      });

      it('finds an IPv6 address written with leading zeros and upper case', async () => {
        assert.equal((await lookup({ indicator: '2001:0DB8::1' })).iid, 102);
        assert.equal((await lookup({ indicator: '2001:db8:0:0:0:0:0:1' })).iid, 102);
      });

      it('finds a URL whose scheme and host are in upper case, its path kept as written', async () => {
        assert.equal((await lookup({ indicator: 'HTTP://Evil.EXAMPLE.org/Path/To?Q=A' })).iid, 103);
        await lookup({ indicator: 'http://evil.example.org/path/to?q=a' }, 404);
      });

      it('finds a value an import stored under an alias of its type (ipv4 for ip)', async () => {
        const body = await lookup({ indicator: ' 203.0.113.9 ' });
        assert.deepEqual([body.iid, body.type, body.attributes, body.threats, body.feeds], [104, 'ipv4', {}, [], []]);
      });

      it('answers 404 {"error": "Indicator not found."} for a value it does not hold', async () => {
        assert.deepEqual(await lookup({ indicator: 'unknown.example.com' }, 404), { error: 'Indicator not found.' });
      });

      for (const value of ['not an indicator', 'localhost', '1.2.3.256', 'mailto:a@example.com']) {
        it(`answers 400 naming the value for ${JSON.stringify(value)}, which is no indicator`, async () => {
          const body = await lookup({ indicator: value }, 400);
          assert.match(body.error, /^Parameter "indicator": ".*" is no indicator/);
          assert.ok(body.error.includes(JSON.stringify(value)), body.error);
        });
      }
    });

    describe('with an iid', () => {
      it('answers the same body as its value does', async () => {
        assert.deepEqual(await lookup({ iid: 101 }), await lookup({ indicator: 'example.com' }));
      });

      it('reports an import\u2019s retired flag as retired 1, with no reason or stamp recorded', async () => {
        const body = await lookup({ iid: 10 });
        assert.deepEqual([body.retired, body.retired_reason, body.stamp_retired], [1, null, null]);
        assert.deepEqual(body.threats.map((t: { tid: number }) => t.tid), [1]);
      });

      it('answers 404 for an unknown iid', async () => {
        assert.deepEqual(await lookup({ iid: 999_999 }, 404), { error: 'Indicator not found.' });
      });
    });

    describe('with bad parameters', () => {
      for (const [query, message] of [
        ['', 'Parameter "indicator" is required.'],
        ['indicator=', 'Parameter "indicator" is required.'],
        ['iid=abc', 'Parameter "iid" must be a positive integer.'],
        ['iid=0', 'Parameter "iid" must be a positive integer.'],
        ['iid=1&iid=2', 'Parameter "iid" must be given once.'],
        ['indicator=a.example&indicator=b.example', 'Parameter "indicator" must be given once.'],
        ['iid=1&pretty=2', 'Parameter "pretty" must be 0 or 1.'],
        ['iid=1&get=summary', 'Parameter "get" must be "links" or "properties".'],
        ['indicator=example.com&get=links', 'Parameter "iid" is required with get=links.'],
        ['iid=1&get=properties&get=links', 'Parameter "get" must be given once.'],
      ] as const) {
        it(`answers 400 ${JSON.stringify(message)} for ?${query}`, async () => {
          const res = await request(world.app).get(`/api/indicator.php?${query}&key=${world.key}`).expect(400);
          assert.deepEqual(res.body, { error: message });
        });
      }
    });

    describe('with pretty', () => {
      it('indents with two spaces for pretty=1 and is compact otherwise', async () => {
        const pretty = await request(world.app).get(`/api/indicator.php?iid=101&pretty=1&key=${world.key}`).expect(200);
        assert.ok(pretty.text.startsWith('{\n  "iid": 101,'));
        assert.equal(pretty.headers['content-type'], 'application/json; charset=utf-8');
        const compact = await request(world.app).get(`/api/indicator.php?iid=101&key=${world.key}`).expect(200);
        assert.ok(compact.text.startsWith('{"iid":101,'));
      });
    });
  });
}
