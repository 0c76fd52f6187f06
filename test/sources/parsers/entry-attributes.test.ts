// A row's attributes (docs/sources.md, "Feed shapes"): cells cleaned, split and bounded, and the port of an ADDRESS:PORT value kept as the `port` attribute.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addAttribute, addressAndPort, attributeValues, MAX_ATTRIBUTE_VALUES, splitPort } from '../../../src/sources/parsers/entry-attributes.js';
import type { FeedEntry } from '../../../src/sources/parsers/feed-entry.js';

describe('attributeValues', () => {
  const cases: [string, unknown, string | undefined, string[]][] = [
    ['a string, trimmed', '  online ', undefined, ['online']],
    ['a string cut at the separator, blanks and repeats left out', 'elf, Mozi,,elf', ',', ['elf', 'Mozi']],
    ['a number as its decimal text', 443, undefined, ['443']],
    ['an array of strings and numbers, other elements left out', ['a', 1, null, false, { b: 1 }, ['c']], undefined, ['a', '1']],
    ['control characters removed, line breaks made blanks', 'Emotet\tEpoch\u001b 4', undefined, ['Emotet Epoch 4']],
    ['null', null, undefined, []],
    ['a boolean', true, undefined, []],
    ['a value over 256 characters', 'x'.repeat(257), undefined, []],
    ['a value of 256 characters', 'x'.repeat(256), undefined, ['x'.repeat(256)]],
  ];
  for (const [what, raw, split, values] of cases) {
    it(`gives ${what}`, () => assert.deepEqual(attributeValues(raw, split), values));
  }

  it(`keeps the first ${MAX_ATTRIBUTE_VALUES} distinct values`, () => {
    const values = attributeValues(Array.from({ length: 40 }, (_, i) => `v${i % 20}`));
    assert.deepEqual(values, Array.from({ length: MAX_ATTRIBUTE_VALUES }, (_, i) => `v${i}`));
  });
});

describe('addAttribute', () => {
  it('merges values into an attribute the entry has, each once, and adds nothing for none', () => {
    const entry: FeedEntry = { value: '192.0.2.1', position: 'line 1' };
    addAttribute(entry, 'port', []);
    assert.equal(entry.attributes, undefined);
    addAttribute(entry, 'port', ['443']);
    addAttribute(entry, 'port', ['443', '8443']);
    assert.deepEqual(entry.attributes, { port: ['443', '8443'] });
  });
});

describe('addressAndPort', () => {
  const cases: [string, { address: string; port: string } | undefined][] = [
    ['192.0.2.1:8080', { address: '192.0.2.1', port: '8080' }],
    ['[2001:db8::1]:443', { address: '2001:db8::1', port: '443' }],
    ['192.0.02.1:0080', { address: '192.0.02.1', port: '80' }],
    ['192.0.2.1:65536', undefined],
    ['192.0.2.256:80', undefined],
    ['2001:db8::1:443', undefined],
    ['[example.com]:80', undefined],
    ['example.com:80', undefined],
    ['http://192.0.2.1:8080/', undefined],
    ['192.0.2.0/24', undefined],
  ];
  for (const [value, expected] of cases) {
    it(`reads ${value} as ${expected === undefined ? 'no address and port' : `${expected.address} port ${expected.port}`}`, () => assert.deepEqual(addressAndPort(value), expected));
  }

  it('splitPort leaves any other value as it is', () => {
    const entry: FeedEntry = { value: 'c2.example.com', position: 'line 1' };
    splitPort(entry);
    assert.deepEqual(entry, { value: 'c2.example.com', position: 'line 1' });
  });
});
