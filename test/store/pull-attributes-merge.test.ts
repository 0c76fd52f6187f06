// addAttributes (docs/sources.md, "What a pull keeps"): what a pulled row's attributes add to an indicator's, table-driven: the values it
// lacks appended in order, each once, the first ones kept past the bounds, a stored name that is no list left alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ATTRIBUTE_LIMITS } from '../../src/store/contract/write-batch.js';
import { addAttributes } from '../../src/store/ingest/pull-attributes.js';

const numbered = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('addAttributes', () => {
  const cases: [title: string, stored: Record<string, unknown>, said: Record<string, unknown>, expected: Record<string, unknown>, added: boolean][] = [
    ['a new name is added after the stored ones', { port: ['80'] }, { status: ['online'] }, { port: ['80'], status: ['online'] }, true],
    ['a value a name lacks is appended; one it has is not repeated', { port: ['80', '443'] }, { port: ['443', '8080'] }, { port: ['80', '443', '8080'] }, true],
    ['values differing in case are distinct', { tags: ['Mozi'] }, { tags: ['mozi'] }, { tags: ['Mozi', 'mozi'] }, true],
    ['the same values again add nothing', { port: ['80'], status: ['online'] }, { status: ['online'], port: ['80'] }, { port: ['80'], status: ['online'] }, false],
    ['an empty list adds no name', { port: ['80'] }, { tags: [] }, { port: ['80'] }, false],
    [
      `past ${ATTRIBUTE_LIMITS.valuesPerKey} values under a name, the first are kept`,
      { port: numbered('p', ATTRIBUTE_LIMITS.valuesPerKey - 1) },
      { port: ['x', 'y'] },
      { port: [...numbered('p', ATTRIBUTE_LIMITS.valuesPerKey - 1), 'x'] },
      true,
    ],
    [
      `past ${ATTRIBUTE_LIMITS.keys} names, no name is added, but a stored one still takes values`,
      Object.fromEntries(numbered('k', ATTRIBUTE_LIMITS.keys).map((k) => [k, ['1']])),
      { extra: ['1'], k0: ['2'] },
      { ...Object.fromEntries(numbered('k', ATTRIBUTE_LIMITS.keys).map((k) => [k, ['1']])), k0: ['1', '2'] },
      true,
    ],
    ['a stored name that is no list is left as it is', { port: 443 }, { port: ['80'] }, { port: 443 }, false],
    ['a value that is no string is not added', {}, { port: [80, '81'] }, { port: ['81'] }, true],
    ['a name written __proto__ is a plain name', {}, JSON.parse('{"__proto__": ["x"]}'), JSON.parse('{"__proto__": ["x"]}'), true],
  ];
  for (const [title, stored, said, expected, added] of cases) {
    it(title, () => {
      const attributes = new Map(Object.entries(structuredClone(stored)));
      assert.equal(addAttributes(attributes, said), added);
      assert.deepEqual(Object.fromEntries(attributes), expected);
      assert.deepEqual(JSON.parse(JSON.stringify(Object.fromEntries(attributes))), expected);
    });
  }
});
