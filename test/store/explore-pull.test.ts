// Explore's indexes after pulls (docs/explore.md, "How queries stay bounded"): what a pull inserts is
// found by range, wildcard and attribute at once, and an attribute a later pull adds is found too.
// A Feodo-shaped list served over HTTP; SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exploreFilter } from '../../src/explore/explore-filters.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const SOURCE = {
  format: 'csv',
  risk: 'high',
  csv: { header: 'comment', value: 'dst_ip', threat: 'malware', attributes: { port: 'dst_port', status: 'c2_status' } },
};

const list = (rows: [ip: string, port: string, status: string][]) =>
  '# "first_seen_utc","dst_ip","dst_port","c2_status","last_online","malware"\n' +
  rows.map(([ip, port, status]) => `"2026-03-01 00:00:00","${ip}","${port}","${status}","2026-03-01","Emotet"\n`).join('');

for (const backend of storeBackends()) {
  describe(`explore after pulls (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;

    const iids = async (q: string) => {
      const result = await world.store.explore({ mode: 'indicators', filter: exploreFilter('indicators', q, world.clock.now()), offset: 0, limit: 100, maxMillis: 10_000 });
      assert.ok(result.timedOut !== true && result.mode === 'indicators');
      return result.rows.map((r) => r.indicator);
    };
    const pull = async (rows: [string, string, string][]) => {
      server.publish('/feodo.csv', list(rows), { etag: false, contentType: 'text/csv' });
      const outcome = await world.pull(fid);
      assert.ok(outcome.ok, JSON.stringify(outcome));
    };

    before(async () => {
      server = await startFeedServer();
      world = await openPullWorld(backend);
      fid = await world.addSource('Example Feodo', { url: `${server.base}/feodo.csv`, ...SOURCE });
      await pull([
        ['192.0.2.35', '443', 'online'],
        ['2001:db8::35', '447', 'offline'],
      ]);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('finds what a pull inserted by range, by wildcard and by attribute', async () => {
      assert.deepEqual(await iids('ioc=192.0.2.0/24'), ['192.0.2.35']);
      assert.deepEqual(await iids('ioc=2001:db8::/48'), ['2001:db8::35']);
      assert.deepEqual(await iids('ioc=*2.35'), ['192.0.2.35']);
      assert.deepEqual(await iids('attribute.port=443'), ['192.0.2.35']);
      assert.deepEqual(await iids('attribute.status=offline'), ['2001:db8::35']);
      assert.deepEqual(await iids('feed="Example Feodo" and threat=emotet'), ['2001:db8::35', '192.0.2.35']);
    });

    it('finds the attribute values a later pull adds', async () => {
      await pull([
        ['192.0.2.35', '8443', 'offline'],
        ['2001:db8::35', '447', 'offline'],
      ]);
      assert.deepEqual(await iids('attribute.port=8443'), ['192.0.2.35']);
      assert.deepEqual(await iids('attribute.status=offline'), ['2001:db8::35', '192.0.2.35']);
      assert.deepEqual(await iids('attribute.port=443'), ['192.0.2.35']);
    });
  });
}
