// What a pull keeps of the columns a source names as attributes (`csv.attributes`; docs/sources.md, "What a pull keeps"): Feodo-shaped lists
// served over HTTP, pulled on three days, merged into the indicators' attributes (an imported indicator's too),
// counted in the feed's and the threats' summaries, a new STIX version only for an indicator whose attributes grew,
// nothing at all for a pull that says what the last one said; bounded per attribute. Read through the lookup API
// and TAXII. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { ATTRIBUTE_LIMITS } from '../../src/store/contract/write-batch.js';
import { fixtureFeed, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { indicatorsByPattern, openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { indicatorRecord } from '../helpers/upstream-threatgate.js';

interface IndicatorBody {
  iid: number;
  attributes: Record<string, string[]>;
  stamp_updated: string;
}

interface Summarized {
  summary: { attributes: Record<string, Record<string, number>> };
  stamp_modified?: string;
}

/** Feodo's columns: the address is the value, the malware a threat, the port and the C2 status attributes. */
const FEODO_SOURCE = {
  format: 'csv',
  risk: 'high',
  csv: { header: 'comment', value: 'dst_ip', threat: 'malware', attributes: { port: 'dst_port', status: 'c2_status' } },
};

const FEODO_HEADER = '# "first_seen_utc","dst_ip","dst_port","c2_status","last_online","malware"\n';

for (const backend of storeBackends()) {
  describe(`attributes a pull keeps (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    /** Each step's time, as the store stamps it. */
    const pulledAt: string[] = [];

    const indicator = (value: string) => world.api('indicator.php', { indicator: value }) as Promise<IndicatorBody>;
    const attributesOf = async (value: string) => (await indicator(value)).attributes;
    const feedCounts = async () => ((await world.api('feed.php', { fid })) as Summarized).summary.attributes;
    const threatCounts = async (name: string) => ((await world.api('threat.php', { threat: name })) as Summarized).summary.attributes;
    const pullDay = async (day: number) => {
      server.publish('/feodo.csv', fixtureFeed(`feodo-attributes-day${day}.csv`), { etag: false, contentType: 'text/csv' });
      const outcome = await world.pull(fid);
      assert.ok(outcome.ok, JSON.stringify(outcome));
      pulledAt[day] = world.clock.stamp();
      return outcome;
    };

    before(async () => {
      server = await startFeedServer();
      world = await openPullWorld(backend);
      // An indicator a file brought, with attributes of its own, that the list names too.
      const known = { ...indicatorRecord(1, '198.51.100.44', 'ip'), attributes: { port: ['80'], technology: ['nginx'] } };
      await importDataset(world.store, { threats: [], feeds: [], indicators: [known], links: [] }, world.clock);
      fid = await world.addSource('Example Feodo', { url: `${server.base}/feodo.csv`, ...FEODO_SOURCE });
      await pullDay(1);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('a first pull', () => {
      it('gives each new indicator the attributes its row said', async () => {
        assert.deepEqual(await attributesOf('192.0.2.35'), { port: ['443'], status: ['online'] });
        assert.deepEqual(await attributesOf('203.0.113.5'), { port: ['447'], status: ['online'] });
      });

      it('adds them to those an imported indicator had, after them', async () => {
        assert.deepEqual(await attributesOf('198.51.100.44'), { port: ['80', '8080'], technology: ['nginx'], status: ['offline'] });
        assert.equal((await indicator('198.51.100.44')).stamp_updated, pulledAt[1]);
      });

      it('feed.php counts the spec\'s attribute keys of its indicators (status is kept, not counted)', async () => {
        assert.deepEqual(await feedCounts(), { technology: { nginx: 1 }, protocol: {}, port: { '443': 1, '447': 1, '80': 1, '8080': 1 } });
      });

      it('threat.php counts them per threat the rows name', async () => {
        assert.deepEqual(await threatCounts('Dridex'), { technology: {}, hosttype: {}, protocol: {}, port: { '443': 1, '447': 1 } });
        assert.deepEqual(await threatCounts('QakBot'), { technology: { nginx: 1 }, hosttype: {}, protocol: {}, port: { '80': 1, '8080': 1 } });
      });

      it('TAXII carries them in each indicator\'s x_threatgate_attributes', async () => {
        const byPattern = indicatorsByPattern((await world.taxii()).objects);
        assert.deepEqual(byPattern.get("[ipv4-addr:value = '198.51.100.44']")?.x_threatgate_attributes, { port: ['80', '8080'], status: ['offline'], technology: ['nginx'] });
      });
    });

    describe('a later pull that says more', () => {
      let cursor: string | undefined;
      before(async () => {
        cursor = (await world.taxii()).last;
        await pullDay(2);
      });

      it('merges what it says into the indicators\' attributes, each value once', async () => {
        assert.deepEqual(await attributesOf('192.0.2.35'), { port: ['443', '8443'], status: ['online', 'offline'] });
        assert.deepEqual(await attributesOf('203.0.113.9'), { port: ['995'], status: ['online'] });
        assert.equal((await indicator('192.0.2.35')).stamp_updated, pulledAt[2]);
      });

      it('leaves an indicator whose row said nothing new as it was', async () => {
        assert.deepEqual(await attributesOf('198.51.100.44'), { port: ['80', '8080'], technology: ['nginx'], status: ['offline'] });
        assert.equal((await indicator('198.51.100.44')).stamp_updated, pulledAt[1]);
      });

      it('recomputes the counts of the feed and of the threats whose indicators changed', async () => {
        assert.deepEqual(await feedCounts(), { technology: { nginx: 1 }, protocol: {}, port: { '443': 1, '8443': 1, '447': 1, '80': 1, '8080': 1, '995': 1 } });
        assert.deepEqual(await threatCounts('Dridex'), { technology: {}, hosttype: {}, protocol: {}, port: { '443': 1, '8443': 1, '447': 1 } });
        assert.deepEqual(await threatCounts('QakBot'), { technology: { nginx: 1 }, hosttype: {}, protocol: {}, port: { '80': 1, '8080': 1, '995': 1 } });
      });

      it('makes a new STIX version of the indicator whose attributes grew and of the new one, no other', async () => {
        const fresh = (await world.taxii(`&added_after=${cursor}`)).objects;
        const byPattern = indicatorsByPattern(fresh);
        assert.deepEqual([...byPattern.keys()].sort(), ["[ipv4-addr:value = '192.0.2.35']", "[ipv4-addr:value = '203.0.113.9']"]);
        assert.deepEqual(byPattern.get("[ipv4-addr:value = '192.0.2.35']")?.x_threatgate_attributes, { port: ['443', '8443'], status: ['online', 'offline'] });
      });
    });

    describe('a pull that says again what the last one said, in another body', () => {
      it('changes nothing: no new STIX version, stamp_modified and the attributes as they were', async () => {
        const cursor = (await world.taxii()).last;
        const feed = (await world.api('feed.php', { fid })) as Summarized;
        const before = await Promise.all(['192.0.2.35', '198.51.100.44', '203.0.113.5', '203.0.113.9'].map(indicator));
        const outcome = await pullDay(3);
        assert.equal(outcome.ok && outcome.newIndicators + outcome.newLinks, 0);
        assert.deepEqual((await world.taxii(`&added_after=${cursor}`)).objects, []);
        const now = (await world.api('feed.php', { fid })) as Summarized;
        assert.deepEqual([now.stamp_modified, now.summary], [feed.stamp_modified, feed.summary]);
        const after = await Promise.all(['192.0.2.35', '198.51.100.44', '203.0.113.5', '203.0.113.9'].map(indicator));
        assert.deepEqual(
          after.map(({ attributes, stamp_updated }) => ({ attributes, stamp_updated })),
          before.map(({ attributes, stamp_updated }) => ({ attributes, stamp_updated })),
        );
      });
    });

    describe('a value listed with more values of an attribute than an indicator keeps', () => {
      const rows = (ports: number[]) => ports.map((port) => `"2026-03-01 00:00:00","198.51.100.90","${port}","online","2026-03-02","Dridex"\n`).join('');
      const many = Array.from({ length: ATTRIBUTE_LIMITS.valuesPerKey + 6 }, (_, i) => 1000 + i);
      let other = 0;
      before(async () => {
        server.publish('/busy.csv', FEODO_HEADER + rows(many), { etag: false, contentType: 'text/csv' });
        other = await world.addSource('Example busy list', { url: `${server.base}/busy.csv`, ...FEODO_SOURCE });
        assert.ok((await world.pull(other)).ok);
      });

      it(`keeps the first ${ATTRIBUTE_LIMITS.valuesPerKey}, in the order the rows gave them`, async () => {
        const { port, status } = await attributesOf('198.51.100.90');
        assert.deepEqual(port, many.slice(0, ATTRIBUTE_LIMITS.valuesPerKey).map(String));
        assert.deepEqual(status, ['online']);
      });

      it('and a later pull with other values leaves it as it is, with no new STIX version', async () => {
        const cursor = (await world.taxii()).last;
        const was = await indicator('198.51.100.90');
        server.publish('/busy.csv', FEODO_HEADER + rows([1, 2, 3]), { etag: false, contentType: 'text/csv' });
        assert.ok((await world.pull(other)).ok);
        const now = await indicator('198.51.100.90');
        assert.deepEqual([now.attributes, now.stamp_updated], [was.attributes, was.stamp_updated]);
        assert.deepEqual((await world.taxii(`&added_after=${cursor}`)).objects, []);
      });
    });
  });
}
