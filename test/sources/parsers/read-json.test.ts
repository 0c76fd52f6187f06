// The json reader: arrays, wrapped arrays and NDJSON, dotted paths, and bodies it must refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedBody } from '../../../src/sources/parsers/feed-body.js';
import { readJson, type JsonOptions } from '../../../src/sources/parsers/read-json.js';
import { fixture, readEveryWay, rejectsEveryWay } from './feed-chunks.js';

const json = (options: JsonOptions) => (body: FeedBody) => readJson(body, options);

describe('readJson', () => {
  describe('a Feodo-like JSON array', () => {
    it('reads each object, leaving out null fields and counting the object with an empty value', async () => {
      assert.deepEqual(await readEveryWay(fixture('feodo-ipblocklist.json'), json({ value: 'ip_address', threat: 'malware', lastSeen: 'last_online' })), {
        entries: [
          { value: '192.0.2.35', threat: 'Dridex', lastSeen: '2025-04-01', position: 'items[0]' },
          { value: '198.51.100.44', threat: 'QakBot', position: 'items[1]' },
        ],
        skipped: 1,
      });
    });

    it('gives a number as its decimal text', async () => {
      const { entries } = await readEveryWay(fixture('feodo-ipblocklist.json'), json({ value: 'as_number' }));
      assert.deepEqual(entries.map((e) => e.value), ['64496', '64497']);
    });
  });

  describe('a ThreatFox-like document wrapping its array in "data"', () => {
    it('reads the array at json.items, skipping and counting a boolean value', async () => {
      const options = { items: 'data', value: 'ioc', type: 'ioc_type', threat: 'malware_printable', lastSeen: 'last_seen' };
      assert.deepEqual(await readEveryWay(fixture('threatfox.json'), json(options)), {
        entries: [
          { value: '203.0.113.9', type: 'ip:port', threat: 'AsyncRAT', attributes: { port: ['4444'] }, position: 'data[0]' },
          { value: 'malware-c2.example.com', type: 'domain', threat: 'Cobalt Strike', lastSeen: '2025-04-01 11:30:00 UTC', position: 'data[1]' },
          { value: 'd41d8cd98f00b204e9800998ecf8427e', type: 'md5_hash', threat: 'Unknown malware', position: 'data[2]' },
        ],
        skipped: 1,
      });
    });

    it('follows dotted paths into objects and arrays', async () => {
      const body = '{"result":{"rows":[{"ioc":{"value":"192.0.2.8"},"tags":["Mirai","elf"]},{"ioc":{"constructor":"x"}}]}}';
      assert.deepEqual(await readEveryWay(body, json({ items: 'result.rows', value: 'ioc.value', threat: 'tags.0' })), {
        entries: [{ value: '192.0.2.8', threat: 'Mirai', position: 'result.rows[0]' }],
        skipped: 1,
      });
    });

    it('refuses a document with no array at json.items', async () => {
      await rejectsEveryWay('{"query_status":"no_result","data":"Your search did not yield any results"}', json({ items: 'data', value: 'ioc' }), 'document: no array at "data" (json.items)');
      await rejectsEveryWay('{"query_status":"no_result"}', json({ items: 'data', value: 'ioc' }), 'document: no array at "data" (json.items)');
      await rejectsEveryWay('{"result":{"rows":{}}}', json({ items: 'result.rows', value: 'ioc' }), 'document: no array at "result.rows" (json.items)');
    });

    it('refuses a document that writes the member json.items names twice (which of them would be the list?)', async () => {
      await rejectsEveryWay('{"data":[{"ioc":"192.0.2.1"}],"data":[]}', json({ items: 'data', value: 'ioc' }), 'document: "data" appears twice (json.items)');
    });

    it('follows a path into a document that is an array, and still refuses the members it does not read when they are not JSON', async () => {
      const { entries } = await readEveryWay('[{"rows":[]},{"rows":[{"ioc":"192.0.2.1"}]}]', json({ items: '1.rows', value: 'ioc' }));
      assert.deepEqual(entries, [{ value: '192.0.2.1', position: '1.rows[0]' }]);
      await rejectsEveryWay('{"meta":{"n":tru},"data":[]}', json({ items: 'data', value: 'ioc' }), /^line 1 column 9: not valid JSON: Unexpected token '}'$/);
    });
  });

  describe('a drop_v4.json-like NDJSON body with a trailing metadata object', () => {
    it('reads one object a line and skips and counts the metadata line', async () => {
      assert.deepEqual(await readEveryWay(fixture('drop_v4.json'), json({ value: 'cidr', threat: 'sblid' })), {
        entries: [
          { value: '192.0.2.0/24', threat: 'SBL000001', position: 'line 1' },
          { value: '198.51.100.0/25', threat: 'SBL000002', position: 'line 2' },
          { value: '203.0.113.128/25', threat: 'SBL000003', position: 'line 4' },
        ],
        skipped: 1,
      });
    });

    it('keeps line numbers after leading blank lines', async () => {
      const { entries } = await readEveryWay('\n  \r\n{"cidr":"192.0.2.0/24"}\n', json({ value: 'cidr' }));
      assert.deepEqual(entries, [{ value: '192.0.2.0/24', position: 'line 3' }]);
    });

    it('ends a line at a lone CR as at LF or CRLF', async () => {
      const { entries } = await readEveryWay('{"cidr":"192.0.2.0/24"}\r{"cidr":"198.51.100.0/25"}\r\n\r{"cidr":"203.0.113.0/24"}\r', json({ value: 'cidr' }));
      assert.deepEqual(entries, [
        { value: '192.0.2.0/24', position: 'line 1' },
        { value: '198.51.100.0/25', position: 'line 2' },
        { value: '203.0.113.0/24', position: 'line 4' },
      ]);
    });

    it('refuses a body cut short in a line, hinting at json.items for a one-document body', async () => {
      await rejectsEveryWay('{"cidr":"192.0.2.0/24"}\n{"cidr":"198.51', json({ value: 'cidr' }), /^line 2: not valid JSON: .*\(set json\.items if the body is one document wrapping an array\)$/);
    });
  });

  describe('a JSON document that does not parse', () => {
    it('fails naming the line and column', async () => {
      await rejectsEveryWay('[{"a":1},\n{"a":2} {"a":3}]', json({ value: 'a' }), /^line 2 column 9: not valid JSON: /);
    });

    it('reads an empty body as no entries', async () => {
      assert.deepEqual(await readEveryWay(' \n', json({ value: 'a' })), { entries: [], skipped: 0 });
    });
  });
});
