// Reading an import file's records (docs/getting-started.md, "Import format"): NDJSON lines and a JSON document's sections, with the position of each record and of what is wrong.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readRecords } from '../../src/import/read-records.js';

describe('readRecords', () => {
  let dir: string;
  let n = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-read-records-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The kind and position of every record of a file holding `text`. */
  async function read(text: string): Promise<string[]> {
    const path = join(dir, `file-${++n}`);
    writeFileSync(path, text);
    const out: string[] = [];
    for await (const records of readRecords(path)) for (const { kind, position } of records) out.push(`${kind} ${position}`);
    return out;
  }

  const feed = JSON.stringify({ record: 'feed', fid: 1 });
  const threat = JSON.stringify({ record: 'threat', tid: 1 });

  describe('an NDJSON file', () => {
    it('ends a line at LF, CRLF or a lone CR, and numbers blank lines too', async () => {
      assert.deepEqual(await read(`${feed}\r\n\r${threat}\r${feed}\n\n${threat}`), ['feed line 1', 'threat line 3', 'feed line 4', 'threat line 6']);
    });

    it('reads past a byte order mark', async () => {
      assert.deepEqual(await read(`\uFEFF${feed}\n${threat}\n`), ['feed line 1', 'threat line 2']);
    });

    it('takes a CRLF cut between two 1 MiB chunks as one line break', async () => {
      const first = JSON.stringify({ record: 'feed', fid: 1, description: '' });
      const padded = first.replace('""', `"${'x'.repeat((1 << 20) - 1 - first.length)}"`);
      assert.equal(padded.length, (1 << 20) - 1);
      assert.deepEqual(await read(`${padded}\r\n${threat}\r\n`), ['feed line 1', 'threat line 2']);
    });
  });

  describe('a JSON document', () => {
    it('gives each element of each section with its index, sections in any order, after a byte order mark', async () => {
      const text = `\uFEFF{"links": [], "feeds": [{"fid": 1}, {"fid": 2}],\r\n "thr\\u0065ats": [{"tid": 1}]}`;
      assert.deepEqual(await read(text), ['feed feeds[0]', 'feed feeds[1]', 'threat threats[0]']);
    });

    const refusals: [string, string, string][] = [
      ['an element that is not JSON', '{"feeds": [{"fid": 1}, {"fid": x}]}', 'feeds[1]: not valid JSON ('],
      ['a stray comma', '{"feeds": [{"fid": 1},]}', 'feeds[1]: empty element (stray comma?)'],
      ['two elements without a comma', '{"feeds": [{"fid": 1} {"fid": 2}]}', 'feeds[0]: expected "," or "]" after an element'],
      ['an unknown section', '{"feeds": [], "actors": []}', 'document: unknown section "actors"; expected one of threats, feeds, indicators, links'],
      ['a section twice', '{"feeds": [], "feeds": []}', 'document: section "feeds" appears twice'],
      ['a section that is not an array', '{"feeds": {}}', 'document: "feeds" must be an array'],
      ['a document cut inside an element', '{"feeds": [{"fid": 1}, {"fid"', 'feeds[1]: the document ends early (truncated file?)'],
      ['a document cut between sections', '{"feeds": [],', 'document: the document ends early (truncated file?)'],
      ['an empty file', '', 'document: the document ends early (truncated file?)'],
      ['text after the document', '{"feeds": []} []', 'document: unexpected text after the end of the document'],
    ];
    for (const [what, text, message] of refusals) {
      it(`refuses ${what}: ${message}`, async () => {
        await assert.rejects(read(text), (error: Error) => {
          assert.equal(error.name, 'ImportError');
          assert.ok(error.message.startsWith(message), error.message);
          return true;
        });
      });
    }
  });
});
