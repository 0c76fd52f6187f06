// Scores read as risks (csv.riskFrom and json.riskFrom; docs/sources.md, "Feed shapes"): the highest threshold reached gives the risk; anything else gives none, so the source's applies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scoreOf, scoreReader } from '../../../src/sources/formats/risk-from.js';

describe('scoreReader', () => {
  const read = scoreReader({ '90': 'high', '50': 'medium', '0': 'low' });
  const cases: [string, unknown, string | undefined][] = [
    ['a score at a threshold', 90, 'high'],
    ['a score above the highest', 100, 'high'],
    ['a score between two thresholds', 89.99, 'medium'],
    ['a score at the lowest threshold', 0, 'low'],
    ['a score below every threshold', -1, undefined],
    ['a numeric string with blanks', ' 75 ', 'medium'],
    ['a decimal string', '50.0', 'medium'],
    ['a string that is not a number', '75%', undefined],
    ['an empty cell', '', undefined],
    ['null', null, undefined],
    ['a boolean', true, undefined],
    ['an infinite number', Number.POSITIVE_INFINITY, undefined],
  ];
  for (const [what, cell, risk] of cases) {
    it(`reads ${what} (${JSON.stringify(cell)}) as ${risk ?? 'no risk'}`, () => assert.equal(read(cell), risk));
  }

  it('orders thresholds by value, not as the map lists them', () => {
    const unordered = scoreReader({ '0': 'low', '90': 'critical', '50': 'medium', '12.5': 'none' });
    assert.deepEqual([5, 12.5, 60, 95].map(unordered), ['low', 'none', 'medium', 'critical']);
  });
});

describe('scoreOf', () => {
  it('takes decimal text and finite numbers only', () => {
    assert.deepEqual(['1e3', '0x10', '.5', '+7', '-2.', 'NaN'].map(scoreOf), [undefined, undefined, 0.5, 7, -2, undefined]);
  });
});
