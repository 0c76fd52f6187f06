// The json reader on the feed shapes of docs/sources.md: ThreatFox's export (json.items "*" and json.key), scores read as risks (json.riskFrom), fields kept as attributes, and an ADDRESS:PORT value's port.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { FeedBody } from '../../../src/sources/parsers/feed-body.js';
import { readJson, type JsonOptions } from '../../../src/sources/parsers/read-json.js';
import { parseSource } from '../../../src/sources/source-definition.js';
import { readEveryWay, rejectsEveryWay } from './feed-chunks.js';

const shape = (name: string) => readFileSync(new URL(`../../fixtures/feeds-shapes/${name}`, import.meta.url));
/** The options as a source gives them: through parseSource, so defaults and the attribute forms are what a pull sees. */
const options = (json: Record<string, unknown>) => (parseSource({ url: 'https://feeds.example.org/x.json', format: 'json', json }) as { json: JsonOptions }).json;
const json = (raw: Record<string, unknown>) => {
  const parsed = options(raw);
  return (body: FeedBody) => readJson(body, parsed);
};

const THREATFOX = {
  items: '*',
  key: 'id',
  value: 'ioc_value',
  type: 'ioc_type',
  threat: 'malware_printable',
  lastSeen: 'last_seen_utc',
  riskFrom: { field: 'confidence_level', map: { '90': 'high', '50': 'medium', '0': 'low' } },
  attributes: { threatfox_id: 'id', tags: { field: 'tags', split: ',' }, alias: { field: 'malware_alias', split: ',' }, threat_type: 'threat_type' },
};

describe('readJson, the feed shapes', () => {
  describe('ThreatFox\'s full JSON export: an object of arrays keyed by IOC id (json.items "*")', () => {
    it('reads every record of every top-level value, its key as the field json.key names', async () => {
      assert.deepEqual(await readEveryWay(shape('threatfox-full.json'), json(THREATFOX)), {
        entries: [
          {
            value: '203.0.113.10', type: 'ip:port', threat: 'AsyncRAT', risk: 'high', position: '1000101[0]',
            attributes: { port: ['4444'], threatfox_id: ['1000101'], tags: ['AsyncRAT', 'RAT'], alias: ['Async RAT', 'AsyncRAT-Example'], threat_type: ['botnet_cc'] },
          },
          {
            value: 'c2-panel.example.com', type: 'domain', threat: 'Cobalt Strike', risk: 'medium', lastSeen: '2025-04-01 11:30:00', position: '1000102[0]',
            attributes: { threatfox_id: ['1000102'], tags: ['c2', 'CobaltStrike'], alias: ['Agentemis', 'BEACON', 'CobaltStrike'], threat_type: ['botnet_cc'] },
          },
          {
            value: 'http://198.51.100.23/gate.php', type: 'url', threat: 'Agent Tesla', risk: 'medium', position: '1000103[0]',
            attributes: { threatfox_id: ['1000103'], threat_type: ['payload_delivery'] },
          },
          {
            value: '2001:db8::bad', type: 'ip:port', threat: 'Mirai', risk: 'low', position: '1000104[0]',
            attributes: { port: ['8443'], threatfox_id: ['1000104'], tags: ['Mirai'], alias: ['Katana'], threat_type: ['botnet_cc'] },
          },
          {
            // "n/a" is no score: no risk of its own, so the source's applies.
            value: '0c2d6d0fcd9b5a1e3f4b8a7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e', type: 'sha256_hash', threat: 'Unknown malware', position: '1000105[0]',
            attributes: { threatfox_id: ['1000105'], threat_type: ['payload'] },
          },
        ],
        skipped: 1,
      });
    });

    it('takes a top-level value that is one record rather than an array of them', async () => {
      const body = '{"7": {"ioc": "192.0.2.7"}, "8": [{"ioc": "192.0.2.8"}, "not a record"], "odd key": {"ioc": "192.0.2.9"}}';
      assert.deepEqual(await readEveryWay(body, json({ items: '*', key: 'id', value: 'ioc', attributes: { id: 'id' } })), {
        entries: [
          { value: '192.0.2.7', position: '7', attributes: { id: ['7'] } },
          { value: '192.0.2.8', position: '8[0]', attributes: { id: ['8'] } },
          { value: '192.0.2.9', position: '"odd key"', attributes: { id: ['odd key'] } },
        ],
        skipped: 1,
      });
    });

    it('lets json.value read the key itself, replacing a field of the same name', async () => {
      const body = '{"192.0.2.10": [{"ip": "ignored", "seen": 3}], "198.51.100.11": [{"seen": 1}]}';
      const { entries } = await readEveryWay(body, json({ items: '*', key: 'ip', value: 'ip' }));
      assert.deepEqual(entries.map((e) => e.value), ['192.0.2.10', '198.51.100.11']);
    });

    it('reads an empty object as no records', async () => {
      assert.deepEqual(await readEveryWay('{}', json({ items: '*', value: 'ioc' })), { entries: [], skipped: 0 });
    });

    it('refuses a top-level value that is neither an array nor an object, naming its key', async () => {
      await rejectsEveryWay('{"1": [{"ioc": "192.0.2.1"}], "query_status": "ok"}', json({ items: '*', value: 'ioc' }), 'query_status: a top-level value is not an array or object (json.items "*")');
    });

    it('refuses a document that is not an object', async () => {
      await rejectsEveryWay('[{"ioc": "192.0.2.1"}]', json({ items: '*', value: 'ioc' }), 'document: not an object whose values are records or arrays of records (json.items "*")');
    });

    it('reads the records in the order written, integer-like keys as any other, and a key written twice for both its values', async () => {
      const body = '{"9": [{"ioc": "192.0.2.9"}], "10": {"ioc": "192.0.2.10"}, "a": [{"ioc": "192.0.2.1"}], "2": [{"ioc": "192.0.2.2"}], "9": [{"ioc": "198.51.100.9"}]}';
      const { entries } = await readEveryWay(body, json({ items: '*', value: 'ioc' }));
      assert.deepEqual(entries.map((e) => `${e.position} ${e.value}`), ['9[0] 192.0.2.9', '10 192.0.2.10', 'a[0] 192.0.2.1', '2[0] 192.0.2.2', '9[0] 198.51.100.9']);
    });

    it('gives records as the body arrives, before the rest of it is read', async () => {
      let rest = false;
      const body = (async function* () {
        yield Buffer.from('{"1": [{"ioc": "192.0.2.1"}, {"ioc": "192.0.2.2"}], "2": [{"io');
        rest = true;
        yield Buffer.from('c": "192.0.2.3"}]}');
      })();
      const batches = readJson(body, options({ items: '*', value: 'ioc' }))[Symbol.asyncIterator]();
      const first = await batches.next();
      assert.equal(rest, false);
      assert.deepEqual(first.value?.entries.map((e: { value: string }) => e.value), ['192.0.2.1', '192.0.2.2']);
      assert.deepEqual((await batches.next()).value?.entries.map((e: { value: string }) => e.value), ['192.0.2.3']);
      assert.equal((await batches.next()).done, true);
    });

    it('refuses a malformed document at the line and column JSON.parse names, after the records before it', async () => {
      const body = '{\n  "1": [{"ioc": "192.0.2.1"}],\n  "2": [{"ioc": "192.0.2.2" "x": 1}]\n}';
      await rejectsEveryWay(body, json({ items: '*', value: 'ioc' }), "line 3 column 29: not valid JSON: Expected ',' or '}' after property value");
      await rejectsEveryWay('{"1": [{"ioc": "192.0.2.1"}]', json({ items: '*', value: 'ioc' }), 'document: not valid JSON: Unexpected end of JSON input');
      await rejectsEveryWay('{"1": [{"ioc": "192.0.2.1"}]} {}', json({ items: '*', value: 'ioc' }), 'line 1 column 31: not valid JSON: Unexpected non-whitespace character after JSON');
    });
  });

  describe('json.riskFrom', () => {
    const scored = json({ value: 'ip', riskFrom: { field: 'score.value', map: { '80': 'critical', '40.5': 'medium' } } });

    it('gives the risk of the highest threshold the score reaches, numbers and numeric strings alike', async () => {
      const body = '[{"ip":"192.0.2.1","score":{"value":80}},{"ip":"192.0.2.2","score":{"value":"40.5"}},{"ip":"192.0.2.3","score":{"value":99.9}}]';
      assert.deepEqual((await readEveryWay(body, scored)).entries.map((e) => [e.value, e.risk]), [
        ['192.0.2.1', 'critical'],
        ['192.0.2.2', 'medium'],
        ['192.0.2.3', 'critical'],
      ]);
    });

    it('leaves the risk to the source for a score below every threshold, a non-number, or none', async () => {
      const body = '{"ip":"192.0.2.4","score":{"value":40}}\n{"ip":"192.0.2.5","score":{"value":"high"}}\n{"ip":"192.0.2.6","score":{"value":true}}\n{"ip":"192.0.2.7"}\n';
      assert.deepEqual((await readEveryWay(body, scored)).entries.map((e) => e.risk), [undefined, undefined, undefined, undefined]);
    });
  });

  describe('json.attributes', () => {
    it('gives each element of an array, numbers as text, and leaves out null, booleans, objects and blanks', async () => {
      const body = '{"ip":"192.0.2.1","ports":[443, "8443", null, true, {"p":1}, "  ", 443],"proto":null,"asn":64496}\n';
      const { entries } = await readEveryWay(body, json({ value: 'ip', attributes: { port: 'ports', protocol: 'proto', asn: 'asn' } }));
      assert.deepEqual(entries, [{ value: '192.0.2.1', position: 'line 1', attributes: { port: ['443', '8443'], asn: ['64496'] } }]);
    });

    it('splits strings, array elements included, when told to', async () => {
      const body = '{"ip":"192.0.2.1","tags":["a,b", "c"]}\n';
      const { entries } = await readEveryWay(body, json({ value: 'ip', attributes: { tags: { field: 'tags', split: ',' } } }));
      assert.deepEqual(entries[0]?.attributes, { tags: ['a', 'b', 'c'] });
    });

    it('keeps the port of an ADDRESS:PORT value beside a port the record names, each once', async () => {
      const body = '{"ioc":"192.0.2.1:443","port":"443"}\n{"ioc":"192.0.2.2:8080","port":22}\n';
      const { entries } = await readEveryWay(body, json({ value: 'ioc', attributes: { port: 'port' } }));
      assert.deepEqual(entries.map((e) => [e.value, e.attributes]), [
        ['192.0.2.1', { port: ['443'] }],
        ['192.0.2.2', { port: ['8080', '22'] }],
      ]);
    });
  });
});
