// Import (docs/getting-started.md, "Import format"): whether a file is NDJSON or one JSON document is told by its first line, whatever its length.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importFile } from '../../src/import/import-file.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, toNdjson } from '../helpers/fixture.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeOptions } from '../helpers/store-backends.js';

/** More than the 64 KiB the format used to be told from, less than a text field's 100,000 characters. */
const LONG = 'x'.repeat(90_000);

describe('import', () => {
  let dir: string;
  const stores: Store[] = [];
  let n = 0;
  /** Imports `text` into a fresh SQLite store. */
  async function importText(text: string) {
    const store = await openStore(join(dir, `store-${++n}.sqlite`), storeOptions());
    stores.push(store);
    const path = join(dir, `file-${n}`);
    writeFileSync(path, text);
    return { summary: await importFile(store, path, fixedClock), store };
  }

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-format-'));
  });
  after(async () => {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('an NDJSON file whose first line is longer than 64 KiB', () => {
    it('is read as NDJSON', async () => {
      const data = buildFixture();
      data.threats[0]!.description = LONG;
      const { summary, store } = await importText(toNdjson(data));
      assert.deepEqual(summary.read, { threats: 3, feeds: 3, indicators: 30, links: 43 });
      assert.equal((await store.findThreat(1))?.description, LONG);
    });
  });

  describe('an NDJSON file whose first line carries `record` last, after blank lines', () => {
    it('is read as NDJSON', async () => {
      const data = buildFixture();
      const [first, ...rest] = toNdjson(data).trimEnd().split('\n');
      const { record, ...fields } = JSON.parse(first!) as Record<string, unknown>;
      const text = `\n  \r\n${JSON.stringify({ ...fields, notes: LONG, record })}\n${rest.join('\n')}`;
      const { summary } = await importText(text);
      assert.deepEqual(summary.read, { threats: 3, feeds: 3, indicators: 30, links: 43 });
    });
  });

  describe('an NDJSON file whose first line is a `record` but not valid JSON', () => {
    it('fails naming line 1, not as a JSON document', async () => {
      const text = `{"record": "threat", "tid": 1, "description": "${LONG}\n`;
      await assert.rejects(importText(text), /^ImportError: line 1: not valid JSON/);
    });
  });

  describe('a minified JSON document, one line longer than 64 KiB', () => {
    it('is read as a JSON document', async () => {
      const data = buildFixture();
      data.threats[0]!.description = LONG;
      const { summary } = await importText(JSON.stringify(data));
      assert.deepEqual(summary.read, { threats: 3, feeds: 3, indicators: 30, links: 43 });
    });
  });

  describe('a JSON document that puts each section on a line of its own', () => {
    it('is read as a JSON document', async () => {
      const data = buildFixture();
      const text = `{"links": ${JSON.stringify(data.links)},\n"threats": ${JSON.stringify(data.threats)},\n"feeds": ${JSON.stringify(data.feeds)},\n"indicators": ${JSON.stringify(data.indicators)}}\n`;
      const { summary } = await importText(text);
      assert.deepEqual(summary.read, { threats: 3, feeds: 3, indicators: 30, links: 43 });
    });
  });

  describe('a file whose first non-blank character is not `{`', () => {
    it('is read as a JSON document, and refused as one', async () => {
      await assert.rejects(importText(`\n[${JSON.stringify({ record: 'feed' })}]\n`), /^ImportError: document: the document must be a JSON object/);
    });
  });
});
