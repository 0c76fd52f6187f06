// The csv reader on the feed shapes of docs/sources.md: abuse.ch's Feodo, URLhaus and ThreatFox exports with columns kept as attributes (csv.attributes) and scores read as risks (csv.riskFrom).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { FeedBody } from '../../../src/sources/parsers/feed-body.js';
import { readCsv, type CsvOptions } from '../../../src/sources/parsers/read-csv.js';
import { parseSource } from '../../../src/sources/source-definition.js';
import { readEveryWay, rejectsEveryWay } from './feed-chunks.js';

const shape = (name: string) => readFileSync(new URL(`../../fixtures/feeds-shapes/${name}`, import.meta.url));
/** A reader with the options as a source gives them, through parseSource. */
const csv = (options: Record<string, unknown>) => {
  const parsed = (parseSource({ url: 'https://feeds.example.org/x.csv', format: 'csv', csv: { header: 'comment', ...options } }) as { csv: CsvOptions }).csv;
  return (body: FeedBody) => readCsv(body, parsed);
};

describe('readCsv, the feed shapes', () => {
  describe('a Feodo-Tracker-like ipblocklist (its header the first row after the "#" lines) with port, status and malware kept as attributes', () => {
    it('gives each row its columns as attributes, an empty cell leaving its attribute out', async () => {
      const reader = csv({ header: 'first-row', value: 'dst_ip', threat: 'malware', attributes: { port: 'dst_port', status: 'c2_status', malware: 'malware' } });
      assert.deepEqual(await readEveryWay(shape('feodo-ipblocklist.csv'), reader), {
        entries: [
          { value: '192.0.2.41', threat: 'Dridex', position: 'line 9', attributes: { port: ['443'], status: ['online'], malware: ['Dridex'] } },
          { value: '198.51.100.42', threat: 'QakBot', position: 'line 10', attributes: { port: ['8080'], status: ['offline'], malware: ['QakBot'] } },
          { value: '203.0.113.43', threat: 'Emotet', position: 'line 11', attributes: { port: ['447'], status: ['online'], malware: ['Emotet'] } },
          { value: '203.0.113.43', threat: 'Emotet', position: 'line 12', attributes: { port: ['2222'], status: ['online'], malware: ['Emotet'] } },
          { value: '192.0.2.44', position: 'line 13' },
        ],
        skipped: 0,
      });
    });

    it('fails naming csv.attributes.NAME when the header lacks its column', async () => {
      await rejectsEveryWay(
        shape('feodo-ipblocklist.csv'),
        csv({ header: 'first-row', value: 'dst_ip', attributes: { port: 'port' } }),
        'line 8: the header has no column "port" (csv.attributes.port); its columns are "first_seen_utc", "dst_ip", "dst_port", "c2_status", "last_online", "malware"',
      );
    });

    it('read with csv.header "comment", fails saying the last "#" line names no columns and that the first row holds the value column', async () => {
      await rejectsEveryWay(
        shape('feodo-ipblocklist.csv'),
        csv({ header: 'comment', value: 'dst_ip', threat: 'malware' }),
        'line 7: the header has no column "dst_ip" (csv.value): no column names were found in it; line 8, the first row, holds "dst_ip": if it names the columns, set csv.header to "first-row"',
      );
    });
  });

  describe('a URLhaus-like dump read with csv.header "first-row"', () => {
    it('fails naming the first row\'s cells, and the last "#" line that names the column', async () => {
      await rejectsEveryWay(
        shape('urlhaus.csv'),
        csv({ header: 'first-row', value: 'url' }),
        /^line 9: the header has no column "url" \(csv\.value\); its columns are "3000101", .*; line 8, the last "#" line before the data, names "url": if it names the columns, set csv\.header to "comment"$/,
      );
    });
  });

  describe('a URLhaus-like dump whose tags cell is a comma-separated list', () => {
    it('splits the tags column declared with "split", trimming and keeping each tag once, and keeps the threat column whole', async () => {
      const reader = csv({ value: 'url', attributes: { tags: { column: 'tags', split: ',' }, threat_type: 'threat', status: 'url_status' } });
      assert.deepEqual((await readEveryWay(shape('urlhaus.csv'), reader)).entries.map((e) => [e.value, e.attributes]), [
        ['http://192.0.2.81/bins/mozi.m', { tags: ['elf', 'Mozi'], threat_type: ['malware_download'], status: ['online'] }],
        ['https://files.example.com/invoice.zip', { tags: ['zip', 'AgentTesla'], threat_type: ['malware_download'], status: ['offline'] }],
        ['http://example.net/doc.exe', { threat_type: ['malware_download'], status: ['online'] }],
      ]);
    });

    it('keeps a cell whole when its column is not declared as a list', async () => {
      const { entries } = await readEveryWay(shape('urlhaus.csv'), csv({ value: 'url', attributes: { tags: 'tags' } }));
      assert.deepEqual(entries[0]?.attributes, { tags: ['elf,Mozi'] });
    });
  });

  describe('a ThreatFox-like export whose confidence_level is read by csv.riskFrom', () => {
    const reader = csv({
      value: 'ioc_value', type: 'ioc_type', threat: 'malware_printable',
      riskFrom: { column: 'confidence_level', map: { '90': 'critical', '75': 'high', '50': 'medium' } },
      attributes: { alias: { column: 'malware_alias', split: ',' } },
    });

    it('gives each row the risk of the highest threshold its score reaches, none below every threshold or without a score', async () => {
      assert.deepEqual((await readEveryWay(shape('threatfox.csv'), reader)).entries.map((e) => [e.value, e.risk]), [
        ['203.0.113.20', 'critical'],
        ['c2-relay.example.com', 'high'],
        ['http://198.51.100.24/gate.php', 'medium'],
        ['drop.example.org', undefined],
        ['files.example.org', undefined],
      ]);
    });

    it('splits the ip:port value into the address and its port attribute', async () => {
      const [first] = (await readEveryWay(shape('threatfox.csv'), reader)).entries;
      assert.deepEqual(first, { value: '203.0.113.20', type: 'ip:port', threat: 'AsyncRAT', risk: 'critical', position: 'line 9', attributes: { port: ['4444'], alias: ['None'] } });
    });

    it('fails naming csv.riskFrom.column when the header lacks it', async () => {
      await rejectsEveryWay(shape('threatfox.csv'), csv({ value: 'ioc_value', riskFrom: { column: 'confidence', map: { '0': 'low' } } }), /^line 8: the header has no column "confidence" \(csv\.riskFrom\.column\); its columns are /);
    });
  });

  describe('attribute values are bounded', () => {
    it('keeps the first 16 distinct values of a cell, leaves out values over 256 characters, and strips control characters', async () => {
      const many = Array.from({ length: 20 }, (_, i) => `t${i}`).join('|');
      const body = `ip,tags,note\n192.0.2.1,"${many}","${'x'.repeat(257)}|ok\u0007bell"\n`;
      const { entries } = await readEveryWay(body, csv({ header: 'first-row', value: 'ip', attributes: { tags: { column: 'tags', split: '|' }, note: { column: 'note', split: '|' } } }));
      assert.deepEqual(entries[0]?.attributes, { tags: Array.from({ length: 16 }, (_, i) => `t${i}`), note: ['okbell'] });
    });
  });
});
