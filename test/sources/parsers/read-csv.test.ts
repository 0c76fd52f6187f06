// The csv reader: RFC 4180 quoting, abuse.ch's comment header, named columns, and bodies it must refuse.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedBody } from '../../../src/sources/parsers/feed-body.js';
import type { FeedBatch, FeedEntry } from '../../../src/sources/parsers/feed-entry.js';
import { readCsv, type CsvOptions } from '../../../src/sources/parsers/read-csv.js';
import { collectEntries, fixture, readEveryWay, rejectsEveryWay } from './feed-chunks.js';

const csv = (options: Partial<CsvOptions> & Pick<CsvOptions, 'value'>) => (body: FeedBody) => readCsv(body, { header: 'first-row', delimiter: ',', ...options });

/** The given chunks as they are, and each as UTF-8 bytes: the cuts a test names, not the cuts of readEveryWay. */
async function readChunks(chunks: string[], reader: (body: FeedBody) => AsyncIterable<FeedBatch>): Promise<FeedBatch> {
  async function* asText() {
    yield* chunks;
  }
  async function* asBytes() {
    for (const chunk of chunks) yield Buffer.from(chunk);
  }
  const text = await collectEntries(reader(asText()));
  assert.deepEqual(await collectEntries(reader(asBytes())), text, 'read as bytes');
  return text;
}

/** `count` rows `192.0.2.N,row N`, generated as they are read; `onEnd` runs when the reader closes the body. */
async function* manyRows(count: number, onEnd = () => {}): FeedBody {
  try {
    yield 'ip,note\n';
    for (let i = 0; i < count; i++) yield `192.0.2.${i % 250},row ${i}\n`;
  } finally {
    onEnd();
  }
}

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

    it('says to set "first-row" when a "comment" header body has no "#" line and its first row holds the value column', async () => {
      await rejectsEveryWay(
        '"IP","note"\n192.0.2.1,x\n',
        csv({ header: 'comment', value: 'ip' }),
        'line 1: no "#" comment line before the data names the columns (csv.header is "comment"); line 1, the first row, holds "ip": if it names the columns, set csv.header to "first-row"',
      );
    });

    it('says the header names no columns when its "#" line is empty, without a hint when the first row lacks the column too', async () => {
      await rejectsEveryWay('# a list\n#\n192.0.2.1,x\n', csv({ header: 'comment', value: 'ip' }), 'line 2: the header has no column "ip" (csv.value): no column names were found in it');
    });
  });

  describe('a body cut short inside a quoted field', () => {
    it('fails naming the line where the field began', async () => {
      await rejectsEveryWay('ip,note\n192.0.2.1,"never\nclosed\n', csv({ value: 'ip' }), 'line 2: a quoted field is not closed before the end of the body');
    });
  });

  describe('a ThreatFox-like CSV export: quoted "#" header, a blank after every comma, a "#" in a URL', () => {
    it('reads the named columns, keeps commas inside quotes, and skips and counts the row without a value', async () => {
      const reader = csv({ header: 'comment', value: 'ioc_value', type: 'ioc_type', threat: 'malware_printable', risk: 'confidence_level', lastSeen: 'last_seen_utc' });
      assert.deepEqual(await readEveryWay(fixture('threatfox.csv'), reader), {
        entries: [
          { value: '203.0.113.9', type: 'ip:port', threat: 'AsyncRAT', risk: '100', attributes: { port: ['4444'] }, position: 'line 9' },
          { value: 'malware-c2.example.com', type: 'domain', threat: 'Cobalt Strike', risk: '75', lastSeen: '2025-04-01 11:30:00', position: 'line 10' },
          { value: 'http://198.51.100.23/gate.php#cmd', type: 'url', threat: 'Agent Tesla', risk: '50', position: 'line 11' },
          { value: 'd41d8cd98f00b204e9800998ecf8427e', type: 'md5_hash', risk: '50', position: 'line 13' },
        ],
        skipped: 1,
      });
    });

    it('names every column of the header comment when one is missing', async () => {
      await rejectsEveryWay(
        fixture('threatfox.csv'),
        csv({ header: 'comment', value: 'ioc' }),
        'line 8: the header has no column "ioc" (csv.value); its columns are "first_seen_utc", "ioc_id", "ioc_value", "ioc_type", "threat_type", "fk_malware", "malware_alias", "malware_printable", "last_seen_utc", "confidence_level", "reference", "tags", "anonymous", "reporter"',
      );
    });
  });

  describe('quoting, comments and line breaks', () => {
    const v = (value: string, line: number, note?: string): FeedEntry => ({ value, ...(note === undefined ? {} : { threat: note }), position: `line ${line}` });
    const cases: { name: string; body: string; options?: Partial<CsvOptions>; entries: FeedEntry[]; skipped?: number }[] = [
      {
        name: 'a quoted field holds LF, CRLF and lone CR breaks and non-ASCII text; the next row starts on the line after it',
        body: 'ip,note\n"192.0.2.1","one\ntwo"\n"192.0.2.2","thr\u00e9e\r\nf\u00fcr\rf\u00fcnf"\n192.0.2.3,six\n',
        entries: [v('192.0.2.1', 2, 'one\ntwo'), v('192.0.2.2', 4, 'thr\u00e9e\r\nf\u00fcr\rf\u00fcnf'), v('192.0.2.3', 7, 'six')],
      },
      {
        name: 'a "#" inside quotes, or after the start of a line, is data; a line starting with "#" is a comment anywhere',
        body: '# ip,note\nhttp://192.0.2.1/a#b,x#y\n"#http://example.com/#top",z\n  # indented comment\n# END\n',
        options: { header: 'comment' },
        entries: [v('http://192.0.2.1/a#b', 2, 'x#y'), v('#http://example.com/#top', 3, 'z')],
      },
      {
        name: 'blanks around fields and quotes are not data; a quote inside an unquoted field is text',
        body: 'ip , note\n  "192.0.2.1" ,  "a, b"  \n192.0.2.2,say "hi"\n',
        entries: [v('192.0.2.1', 2, 'a, b'), v('192.0.2.2', 3, 'say "hi"')],
      },
      {
        name: 'rows end at CRLF, LF or a lone CR, mixed in one body; blank and blank-looking lines are skipped uncounted',
        body: 'ip,note\r\n192.0.2.1\n192.0.2.2\r192.0.2.3\r\n \t \n\n192.0.2.4',
        entries: [v('192.0.2.1', 2), v('192.0.2.2', 3), v('192.0.2.3', 4), v('192.0.2.4', 7)],
      },
      {
        name: 'a short row has empty cells, a long one extra cells; a row without its value cell is counted',
        body: 'ip,note,extra\n192.0.2.1\n192.0.2.2,n,e,more\n,orphan\n',
        entries: [v('192.0.2.1', 2), v('192.0.2.2', 3, 'n')],
        skipped: 1,
      },
      {
        name: 'comment and blank lines before the first row are skipped in "first-row" mode too',
        body: '\n# a comment\n\n# another\nip,note\n192.0.2.1\n',
        entries: [v('192.0.2.1', 6)],
      },
      {
        name: 'a body of comments and blank lines only is no rows, in "comment" mode as well',
        body: '# ip,note\n\n# END',
        options: { header: 'comment' },
        entries: [],
      },
    ];
    for (const { name, body, options, entries, skipped = 0 } of cases) {
      it(name, async () => {
        assert.deepEqual(await readEveryWay(body, csv({ value: 'ip', threat: 'note', ...options })), { entries, skipped });
      });
    }

    const cuts: { name: string; chunks: string[]; options?: Partial<CsvOptions>; entries: FeedEntry[] }[] = [
      {
        name: 'between the CR and LF of a row break, inside and outside quotes',
        chunks: ['ip,note\r', '\n192.0.2.1,"a\r', '\nb"\r', '\n192.0.2.2,c\r', '\n'],
        entries: [v('192.0.2.1', 2, 'a\r\nb'), v('192.0.2.2', 4, 'c')],
      },
      {
        name: 'inside a quoted field, at a doubled quote and at the delimiter within quotes',
        chunks: ['ip,note\n192.0.2.1,"x', ',y ""q', '"', '" z"\n'],
        entries: [v('192.0.2.1', 2, 'x,y "q" z')],
      },
      {
        name: 'inside the header comment and between the CR and LF of comment lines',
        chunks: ['# first\r', '\n# "ip",', ' "no', 'te"\r', '\n', '192.0.2.1,"n"'],
        options: { header: 'comment' },
        entries: [v('192.0.2.1', 3, 'n')],
      },
    ];
    for (const { name, chunks, options, entries } of cuts) {
      it(`reads a body cut ${name}`, async () => {
        assert.deepEqual(await readChunks(chunks, csv({ value: 'ip', threat: 'note', ...options })), { entries, skipped: 0 });
      });
    }
  });

  describe('bodies it refuses', () => {
    const cases: { name: string; body: string; options?: Partial<CsvOptions>; message: string | RegExp }[] = [
      {
        name: 'text after a closing quote, at the line where the row starts',
        body: 'ip,note\n192.0.2.1,x\n192.0.2.2,"ab"c\n',
        message: 'line 3: a quoted field has text after its closing quote',
      },
      {
        name: 'a quote left open after multi-line fields, comments and blank lines, at the line where its row starts',
        body: 'ip,note\n"192.0.2.1","a\r\nb"\r\n\r\n# c\r\n192.0.2.2,"open\r\nstill open\r\n',
        message: 'line 6: a quoted field is not closed before the end of the body',
      },
      {
        name: 'a header comment that is not a csv record',
        body: '# a comment\n# "ip,note\n192.0.2.1,x\n',
        options: { header: 'comment' },
        message: /^line 2: the "#" line naming the columns is not a csv record \(/,
      },
    ];
    for (const { name, body, options, message } of cases) {
      it(name, async () => {
        await rejectsEveryWay(body, csv({ value: 'ip', ...options }), message);
      });
    }

    it('passes on the error of a body that fails while it is read, as it is', async () => {
      const failure = new Error('the body is over maxMegabytes');
      async function* failing(): FeedBody {
        yield 'ip\n192.0.2.1\n';
        throw failure;
      }
      await assert.rejects(collectEntries(readCsv(failing(), { header: 'first-row', value: 'ip', delimiter: ',' })), (error) => error === failure);
    });
  });

  describe('a large body', () => {
    it('is read as it arrives, in batches of at most 1000 rows', async () => {
      const sizes: number[] = [];
      for await (const batch of readCsv(manyRows(2500), { header: 'first-row', value: 'ip', delimiter: ',' })) sizes.push(batch.entries.length + batch.skipped);
      assert.deepEqual(sizes, [1000, 1000, 500]);
    });

    it('yields its first batches before the body ends, and closes the body when the reader stops', async () => {
      let closed = false;
      let batches = 0;
      // Far more rows than a test could hold at once: a reader that buffered the body would not get here.
      for await (const batch of readCsv(manyRows(Number.MAX_SAFE_INTEGER, () => (closed = true)), { header: 'first-row', value: 'ip', delimiter: ',' })) {
        assert.equal(batch.entries.length, 1000);
        if (++batches === 3) break;
      }
      // The parser is destroyed at once; the body is closed as that reaches it, a few ticks later.
      for (let tick = 0; !closed && tick < 100; tick++) await new Promise((resolve) => setImmediate(resolve));
      assert.equal(closed, true);
    });
  });
});
