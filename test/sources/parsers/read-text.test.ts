// The text reader: one value a line, comments and blank lines left out, whatever the chunking.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readText } from '../../../src/sources/parsers/read-text.js';
import { fixture, readEveryWay } from './feed-chunks.js';

describe('readText', () => {
  describe('a Spamhaus-DROP-like list with CRLF lines', () => {
    it('gives each block without its "; SBL" comment, skipping the ";" header lines', async () => {
      assert.deepEqual(await readEveryWay(fixture('drop.txt'), readText), {
        entries: [
          { value: '192.0.2.0/24', position: 'line 4' },
          { value: '198.51.100.0/25', position: 'line 5' },
          { value: '203.0.113.128/25', position: 'line 7' },
        ],
        skipped: 0,
      });
    });
  });

  describe('a blocklist.de-like list', () => {
    it('gives one address a line, a tab and "#" ending the value', async () => {
      assert.deepEqual(await readEveryWay(fixture('blocklist-de.txt'), readText), {
        entries: [
          { value: '192.0.2.10', position: 'line 1' },
          { value: '192.0.2.11', position: 'line 2' },
          { value: '198.51.100.7', position: 'line 3' },
          { value: '203.0.113.99', position: 'line 5' },
        ],
        skipped: 0,
      });
    });
  });

  describe('an OpenPhish-like URL list', () => {
    it('gives each URL trimmed, skips "//" lines and cuts at "#", even inside a URL', async () => {
      assert.deepEqual(await readEveryWay(fixture('openphish.txt'), readText), {
        entries: [
          { value: 'https://login.example.com/secure/verify.php', position: 'line 1' },
          { value: 'http://example.net/paypal/signin?session=abc123', position: 'line 2' },
          { value: 'https://example.org/bank/', position: 'line 4' },
          { value: 'http://www.example.com/office365/index.html', position: 'line 5' },
        ],
        skipped: 0,
      });
    });
  });

  describe('edge cases', () => {
    it('decodes UTF-8 split across chunks and drops a byte order mark', async () => {
      const result = await readEveryWay('\uFEFFbücher.example.com\nпример.example.net', readText);
      assert.deepEqual(result.entries, [
        { value: 'bücher.example.com', position: 'line 1' },
        { value: 'пример.example.net', position: 'line 2' },
      ]);
    });

    it('reads a last line without a line break, and an empty body as no entries', async () => {
      assert.deepEqual((await readEveryWay('192.0.2.1\n192.0.2.2', readText)).entries.length, 2);
      assert.deepEqual(await readEveryWay('', readText), { entries: [], skipped: 0 });
    });

    it('ends a line at LF, CRLF or a lone CR alike, and numbers the lines so', async () => {
      const result = await readEveryWay('192.0.2.1\r192.0.2.2\r\n\r# note\n192.0.2.3\r', readText);
      assert.deepEqual(result.entries, [
        { value: '192.0.2.1', position: 'line 1' },
        { value: '192.0.2.2', position: 'line 2' },
        { value: '192.0.2.3', position: 'line 5' },
      ]);
    });
  });
});
