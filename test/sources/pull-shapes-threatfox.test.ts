// ThreatFox's shapes pulled end to end (docs/sources.md, "Feed shapes"): the full JSON export (an object of arrays keyed by IOC id, json.items "*")
// and the CSV export, their confidence_level read as a risk by thresholds (riskFrom), fetched over HTTP from a local
// server, written by the real store and read back through /api/indicator.php. SQLite and PostgreSQL.
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

const EXPORT_SOURCE = {
  format: 'json',
  risk: 'none',
  json: {
    items: '*',
    key: 'id',
    value: 'ioc_value',
    type: 'ioc_type',
    threat: 'malware_printable',
    lastSeen: 'last_seen_utc',
    riskFrom: { field: 'confidence_level', map: { '90': 'high', '50': 'medium', '0': 'low' } },
    attributes: { threatfox_id: 'id', tags: { field: 'tags', split: ',' }, threat_type: 'threat_type' },
  },
};

const CSV_SOURCE = {
  format: 'csv',
  risk: 'low',
  csv: { header: 'comment', value: 'ioc_value', type: 'ioc_type', threat: 'malware_printable', riskFrom: { column: 'confidence_level', map: { '90': 'critical', '75': 'high', '50': 'medium' } } },
};

for (const backend of storeBackends()) {
  describe(`ThreatFox's exports pulled end to end (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    const outcomes: Record<'export' | 'csv', PullOutcome | undefined> = { export: undefined, csv: undefined };
    const lookup = (indicator: string) => world.api('indicator.php', { indicator }) as Promise<{ iid: number; type: string; risk: string; attributes: Record<string, string[]> }>;

    before(async () => {
      server = await startFeedServer();
      server.publish('/export/json/full/', shape('threatfox-full.json'), { contentType: 'application/json' });
      server.publish('/export/csv/recent/', shape('threatfox.csv'), { contentType: 'text/csv' });
      world = await openPullWorld(backend);
      const exportFid = await world.addSource('ThreatFox full export', { url: `${server.base}/export/json/full/`, ...EXPORT_SOURCE });
      const csvFid = await world.addSource('ThreatFox recent CSV', { url: `${server.base}/export/csv/recent/`, ...CSV_SOURCE });
      outcomes.export = await world.pull(exportFid);
      outcomes.csv = await world.pull(csvFid);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('the full JSON export, json.items "*"', () => {
      it('lists the five IOCs and skips the record without a value', () => {
        assert.deepEqual(counts(outcomes.export!), { ok: true, values: 5, newIndicators: 5, rejected: 0, skipped: 1 });
      });

      it('gives each IOC its type and the risk its confidence_level reaches, the source\'s risk where there is no score', async () => {
        const expected: [string, string, string][] = [
          ['203.0.113.10', 'ip', 'high'],
          ['c2-panel.example.com', 'domain', 'medium'],
          ['http://198.51.100.23/gate.php', 'url', 'medium'],
          ['2001:db8::bad', 'ipv6', 'low'],
          ['0c2d6d0fcd9b5a1e3f4b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e', 'sha256', 'none'],
        ];
        for (const [value, type, risk] of expected) {
          const found = await lookup(value);
          assert.deepEqual([found.type, found.risk], [type, risk], value);
        }
      });

      it('finds an ip:port IOC by its address alone: the port is no part of the value, and a lookup of the ip:port as pasted finds the address', async () => {
        const address = await lookup('203.0.113.10');
        assert.equal(address.type, 'ip');
        assert.equal((await world.api('indicator.php', { indicator: '203.0.113.10:4444' })).iid, address.iid);
      });

      it('keeps the port, the IOC id from the top-level key, the split tags and the threat type as attributes', async () => {
        assert.deepEqual(sortedAttributes((await lookup('203.0.113.10')).attributes), {
          port: ['4444'], tags: ['AsyncRAT', 'RAT'], threat_type: ['botnet_cc'], threatfox_id: ['1000101'],
        });
        assert.deepEqual(sortedAttributes((await lookup('2001:db8::bad')).attributes), { port: ['8443'], tags: ['Mirai'], threat_type: ['botnet_cc'], threatfox_id: ['1000104'] });
      });
    });

    describe('the CSV export, csv.riskFrom', () => {
      it('lists its five IOCs', () => {
        assert.deepEqual(counts(outcomes.csv!), { ok: true, values: 5, newIndicators: 5, rejected: 0, skipped: 0 });
      });

      it('maps confidence 100, 75 and 50 by the thresholds, and a score below them or none to the source\'s risk', async () => {
        const expected: [string, string][] = [
          ['203.0.113.20', 'critical'],
          ['c2-relay.example.com', 'high'],
          ['http://198.51.100.24/gate.php', 'medium'],
          ['drop.example.org', 'low'],
          ['files.example.org', 'low'],
        ];
        for (const [value, risk] of expected) assert.equal((await lookup(value)).risk, risk, value);
      });
    });
  });
}
