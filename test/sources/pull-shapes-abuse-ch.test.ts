// abuse.ch's CSV shapes with their columns kept as attributes, and a STIX bundle graded by confidence, pulled end to end
// (docs/sources.md, "Feed shapes"): Feodo Tracker's port, status and malware, URLhaus's tags split on commas and its threat type, and each
// STIX indicator's confidence read as a risk by the STIX 2.1 Appendix A scale (the source's risk without one), fetched
// over HTTP from a local server, written by the real store, read back through /api/indicator.php. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const shape = (name: string) => readFileSync(new URL(`../fixtures/feeds-shapes/${name}`, import.meta.url), 'utf8');
const counts = (outcome: PullOutcome) =>
  outcome.ok ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, rejected: outcome.rejected, skipped: outcome.skipped } : { ok: false, reason: outcome.reason };
/** Attributes compared as sets: the store decides the order it keeps values in. */
const sortedAttributes = (attributes: Record<string, string[]>) => Object.fromEntries(Object.entries(attributes).map(([k, v]): [string, string[]] => [k, [...v].sort()]).sort(([a], [b]) => a.localeCompare(b)));

type Found = { type: string; risk: string; attributes: Record<string, string[]>; threats: { name: string }[] };

for (const backend of storeBackends()) {
  describe(`abuse.ch CSV columns as attributes, and STIX confidence as risk, end to end (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    const outcomes: Record<'feodo' | 'urlhaus' | 'stix', PullOutcome | undefined> = { feodo: undefined, urlhaus: undefined, stix: undefined };
    const lookup = (indicator: string) => world.api('indicator.php', { indicator }) as Promise<Found>;

    before(async () => {
      server = await startFeedServer();
      for (const name of ['feodo-ipblocklist.csv', 'urlhaus.csv', 'stix-confidence.json']) server.publish(`/${name}`, shape(name));
      world = await openPullWorld(backend);
      const feodo = await world.addSource('Feodo Tracker', {
        url: `${server.base}/feodo-ipblocklist.csv`, format: 'csv', risk: 'high',
        csv: { header: 'first-row', value: 'dst_ip', threat: 'malware', lastSeen: 'last_online', attributes: { port: 'dst_port', status: 'c2_status' } },
      });
      const urlhaus = await world.addSource('URLhaus', {
        url: `${server.base}/urlhaus.csv`, format: 'csv', risk: 'high',
        csv: { header: 'comment', value: 'url', attributes: { tags: { column: 'tags', split: ',' }, threat_type: 'threat' } },
      });
      const stix = await world.addSource('Graded bundle', { url: `${server.base}/stix-confidence.json`, format: 'stix', risk: 'medium' });
      outcomes.feodo = await world.pull(feodo);
      outcomes.urlhaus = await world.pull(urlhaus);
      outcomes.stix = await world.pull(stix);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('Feodo Tracker\'s ipblocklist with csv.attributes', () => {
      it('lists its four addresses, one of them on two rows', () => {
        assert.deepEqual(counts(outcomes.feodo!), { ok: true, values: 4, newIndicators: 4, rejected: 0, skipped: 0 });
      });

      it('shows each address with its malware as a threat and its port and status as attributes', async () => {
        const dridex = await lookup('192.0.2.41');
        assert.deepEqual([dridex.type, dridex.risk, dridex.threats.map((t) => t.name)], ['ip', 'high', ['Dridex']]);
        assert.deepEqual(sortedAttributes(dridex.attributes), { port: ['443'], status: ['online'] });
      });

      it('gathers the ports of an address listed on two rows', async () => {
        assert.deepEqual(sortedAttributes((await lookup('203.0.113.43')).attributes), { port: ['2222', '447'], status: ['online'] });
      });

      it('gives no attribute for a row whose cells are empty', async () => {
        assert.deepEqual((await lookup('192.0.2.44')).attributes, {});
      });
    });

    describe('URLhaus\'s dump with its tags declared a list', () => {
      it('lists its three URLs', () => {
        assert.deepEqual(counts(outcomes.urlhaus!), { ok: true, values: 3, newIndicators: 3, rejected: 0, skipped: 0 });
      });

      it('shows the tags one by one, each once, and the threat type whole', async () => {
        assert.deepEqual(sortedAttributes((await lookup('http://192.0.2.81/bins/mozi.m')).attributes), { tags: ['Mozi', 'elf'], threat_type: ['malware_download'] });
        assert.deepEqual(sortedAttributes((await lookup('https://files.example.com/invoice.zip')).attributes), { tags: ['AgentTesla', 'zip'], threat_type: ['malware_download'] });
        assert.deepEqual((await lookup('http://example.net/doc.exe')).attributes, { threat_type: ['malware_download'] });
      });
    });

    describe('a STIX bundle whose indicators carry a confidence', () => {
      it('lists its six values', () => {
        assert.deepEqual(counts(outcomes.stix!), { ok: true, values: 6, newIndicators: 6, rejected: 0, skipped: 0 });
      });

      it('gives each value the risk its confidence stands for: 0 none, 15 low, 50 medium, 85 high, 100 critical, the source\'s without one', async () => {
        const expected: [string, string][] = [
          ['198.51.100.90', 'none'],
          ['198.51.100.91', 'low'],
          ['graded-c2.example.net', 'medium'],
          ['graded-drop.example.org', 'high'],
          ['http://graded.example.com/payload.bin', 'critical'],
          ['198.51.100.96', 'medium'],
        ];
        for (const [value, risk] of expected) assert.equal((await lookup(value)).risk, risk, value);
      });
    });
  });
}
