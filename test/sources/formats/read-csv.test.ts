// The csv reader: RFC 4180 quoting, abuse.ch's comment header, named columns, and bodies it must refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedBody } from '../../../src/sources/formats/feed-body.js';
import { readCsv, type CsvOptions } from '../../../src/sources/formats/read-csv.js';
import { fixture, readEveryWay, rejectsEveryWay } from './feed-chunks.js';

const csv = (options: Partial<CsvOptions>) => (body: FeedBody) => readCsv(body, { header: 'first-row', delimiter: ',', ...options });

describe('readCsv', () => {
  describe('an abuse.ch-Feodo-like CSV with a quoted "#" header and a "# END" trailer', () => {
    it('reads the named columns and skips and counts the row without a value', async () => {
      const reader = csv({ header: 'comment', value: 'dst_ip', threat: 'malware', lastSeen: 'last_online' });
      assert.deepEqual(await readEveryWay(fixture('feodo-ipblocklist.csv'), reader), {
        entries: [
          { value: '192.0.2.35', threat: 'Dridex', lastSeen: '2025-04-01', position: 'line 9' },
          { value: '198.51.100.44', threat: 'QakBot', lastSeen: '2025-03-20', position: 'line 10' },
          { value: '203.0.113.5', lastSeen: '2025-04-01', position: 'line 12' },
        ],
        skipped: 1,
      });
    });

    it('refuses the body when the header has no column the options name', async () => {
      await rejectsEveryWay(
        fixture('feodo-ipblocklist.csv'),
        csv({ header: 'comment', value: 'ip_address' }),
        'line 8: the header has no column "ip_address" (csv.value); its columns are "first_seen_utc", "dst_ip", "dst_port", "c2_status", "last_online", "malware"',
      );
      await rejectsEveryWay(fixture('feodo-ipblocklist.csv'), csv({ header: 'comment', value: 'dst_ip', threat: 'family' }), /^line 8: the header has no column "family" \(csv\.threat\)/);
    });
  });

  describe('a URLhaus-like CSV with CRLF lines and quoted fields', () => {
    it('keeps commas, doubled quotes and line breaks inside quotes, matching column names without case', async () => {
      const reader = csv({ header: 'comment', value: 'URL', threat: 'Tags', lastSeen: ' last_online ' });
      assert.deepEqual(await readEveryWay(fixture('urlhaus.csv'), reader), {
        entries: [
          { value: 'http://192.0.2.77/bins/mozi.m', threat: 'elf,Mozi', lastSeen: '2025-04-01 10:00:01', position: 'line 6' },
          { value: 'https://example.com/download.php?file=a,b&x="y"', threat: 'exe,"AgentTesla"', position: 'line 7' },
          { value: 'http://example.net/doc\r\nnext-line.zip', threat: 'zip', position: 'line 8' },
        ],
        skipped: 0,
      });
    });
  });

  describe('header modes and delimiters', () => {
    it('takes the names from the first row, counting lines across a quoted line break', async () => {
      const body = 'Indicator,Kind\r\n"192.0.2.1","ip"\r\n"multi\nline",x\r\n\r\n203.0.113.1,\r\n,orphan\r\n';
      assert.deepEqual(await readEveryWay(body, csv({ value: 'indicator', type: 'kind' })), {
        entries: [
          { value: '192.0.2.1', type: 'ip', position: 'line 2' },
          { value: 'multi\nline', type: 'x', position: 'line 3' },
          { value: '203.0.113.1', position: 'line 6' },
        ],
        skipped: 1,
      });
    });

    it('uses a given list of names, reads every row as data, and honours another delimiter', async () => {
      const body = '192.0.2.1;high\n198.51.100.2;"lo;w"\nshort\n';
      assert.deepEqual(await readEveryWay(body, csv({ header: ['ip', 'level'], value: 'ip', risk: 'level', delimiter: ';' })), {
        entries: [
          { value: '192.0.2.1', risk: 'high', position: 'line 1' },
          { value: '198.51.100.2', risk: 'lo;w', position: 'line 2' },
          { value: 'short', position: 'line 3' },
        ],
        skipped: 0,
      });
    });

    it('refuses a "comment" header body whose data comes before any "#" line', async () => {
      await rejectsEveryWay('192.0.2.1,x\n# ip,note\n', csv({ header: 'comment', value: 'ip' }), 'line 1: no "#" comment line before the data names the columns (csv.header is "comment")');
    });
  });

  describe('a body cut short inside a quoted field', () => {
    it('fails naming the line where the field began', async () => {
      await rejectsEveryWay('ip,note\n192.0.2.1,"never\nclosed\n', csv({ value: 'ip' }), 'line 2: a quoted field is not closed before the end of the body');
    });
  });
});
