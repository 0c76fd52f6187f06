// readFeed: each list format goes to its reader; other formats are not read here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collectEntries } from '../../../src/sources/formats/feed-entry.js';
import { isListFormat, readFeed } from '../../../src/sources/formats/read-feed.js';
import { chunked } from './feed-chunks.js';

const read = (source: Parameters<typeof readFeed>[0], body: string) => collectEntries(readFeed(source, chunked(body, 7)));

describe('readFeed', () => {
  it('reads format text, csv and json with their readers', async () => {
    assert.deepEqual((await read({ format: 'text' }, '192.0.2.1 # x\n')).entries, [{ value: '192.0.2.1', position: 'line 1' }]);
    const csv = { header: ['ip'], value: 'ip', delimiter: ',' };
    assert.deepEqual((await read({ format: 'csv', csv }, '192.0.2.2\n')).entries, [{ value: '192.0.2.2', position: 'line 1' }]);
    assert.deepEqual((await read({ format: 'json', json: { value: 'ip' } }, '[{"ip":"192.0.2.3"}]')).entries, [{ value: '192.0.2.3', position: 'items[0]' }]);
  });

  it('refuses csv or json options without a value field, naming it', async () => {
    await assert.rejects(read({ format: 'json' }, '[]'), { name: 'SourceDefinitionError', message: 'source.json.value: required for format json' });
  });

  it('throws for a format with its own reader', () => {
    assert.equal(isListFormat('stix'), false);
    assert.throws(() => readFeed({ format: 'stix' }, chunked('', 1)), /format stix is not a list format/);
  });
});
