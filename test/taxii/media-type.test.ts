// acceptsTaxii: the pure Accept parser (TAXII 2.1 section 1.6.8, RFC 9110 section 12.5.1), table-driven.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptsTaxii, rememberingAcceptsTaxii } from '../../src/taxii/media-type.js';

const CASES: [string | undefined, boolean][] = [
  ['application/taxii+json;version=2.1', true],
  ['application/taxii+json', true],
  ['application/taxii+json ; version = 2.1', true],
  ['application/taxii+json;version="2.1";q=1.000', true],
  ['APPLICATION/TAXII+JSON;VERSION=2.1', true],
  ['application/taxii+json;version=2.1;charset=utf-8', true],
  ['*/*', true],
  ['application/*', true],
  ['application/json, */*;q=0.01', true],
  [', ,application/taxii+json', true],
  ['application/taxii+json;q=0, application/taxii+json;version=2.1', true],
  ['*/*;q=0, application/taxii+json', true],
  ['application/taxii+json;version=2.0', false],
  ['application/taxii+json;version=2.10', false],
  ['application/taxii+json;version=2.1;q=0', false],
  ['application/taxii+json;version=2.1;q=0.000', false],
  ['application/taxii+json;version=2.1;q=0, */*', false],
  ['application/taxii+json;q=0, application/*', false],
  ['application/*;q=0, */*', false],
  ['application/taxii+json;version=2.1;q=2', false],
  ['application/taxii+json;version=2.1;q=abc', false],
  ['application/taxii+json;version', false],
  ['application/json', false],
  ['application/stix+json;version=2.1', false],
  ['text/*', false],
  ['taxii+json', false],
  ['', false],
  ['   ', false],
  [undefined, false],
];

describe('acceptsTaxii', () => {
  for (const [accept, expected] of CASES) {
    it(`${expected ? 'accepts' : 'refuses'} ${accept === undefined ? 'a missing Accept' : JSON.stringify(accept)}`, () => {
      assert.equal(acceptsTaxii(accept), expected);
    });
  }
});

describe('rememberingAcceptsTaxii', () => {
  it('gives the same answers as acceptsTaxii, first time and remembered, past its capacity', () => {
    const remembering = rememberingAcceptsTaxii(4);
    for (let round = 0; round < 3; round++) {
      for (const [accept, expected] of CASES) assert.equal(remembering(accept), expected, `round ${round}: ${String(accept)}`);
    }
  });
});
