// parseListingQuery and the TAXII timestamps: the pure parsing of added_after, limit, next and match[...].
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BadRequestError } from '../../src/errors.js';
import { parseListingQuery, type MatchField } from '../../src/taxii/query-filters.js';
import { formatMicros, parseTimestampMicros } from '../../src/taxii/taxii-time.js';

const ALL: readonly MatchField[] = ['id', 'type', 'version', 'spec_version'];
const ID_A = 'indicator--1c919955-5fb2-52cf-a046-62414eeced82';
const ID_B = 'malware--0c7b5b88-8ff7-4a4d-aa9d-feb398cd0061';
const BASE = Date.parse('2026-01-15T10:00:00Z') * 1000;

const parse = (query: Record<string, unknown>, allowed = ALL) => parseListingQuery(query, allowed, 1000);
const rejects = (query: Record<string, unknown>, name: string, allowed = ALL) =>
  assert.throws(() => parse(query, allowed), (e: unknown) => e instanceof BadRequestError && e.message.includes(name), JSON.stringify(query));

describe('parseListingQuery', () => {
  it('answers no filters, no limit and no next for an empty query', () => {
    assert.deepEqual(parse({}), { filters: { addedAfter: null, ids: null, types: null, versions: null, specVersions: null }, limit: null, next: null });
  });

  it('ignores parameters that are not TAXII filters (key, accept, pretty, client extras)', () => {
    assert.equal(parse({ key: 'k', accept: '*/*', pretty: '1', foo: ['a', 'b'] }).limit, null);
  });

  describe('limit', () => {
    for (const [text, expected] of [
      ['1', 1],
      ['100', 100],
      ['1000', 1000],
      ['1001', 1000],
      ['999999999', 1000],
      ['9999999999', 1000],
      [`1${'0'.repeat(30)}`, 1000],
    ] as const) {
      it(`reads limit=${text} as ${expected}`, () => assert.equal(parse({ limit: text }).limit, expected));
    }
    for (const bad of ['0', '-1', 'abc', '', '1.5', '01', ' 5', '1e3']) {
      it(`refuses limit=${JSON.stringify(bad)}`, () => rejects({ limit: bad }, '"limit"'));
    }
    it('refuses a repeated limit', () => rejects({ limit: ['1', '2'] }, '"limit"'));
  });

  describe('match[...]', () => {
    it('splits comma lists, trims them and drops duplicates', () => {
      const { filters } = parse({ 'match[id]': `${ID_A}, ${ID_B},${ID_A}`, 'match[type]': 'indicator,malware', 'match[version]': 'first,last', 'match[spec_version]': '2.1' });
      assert.deepEqual(filters.ids, [ID_A, ID_B]);
      assert.deepEqual(filters.types, ['indicator', 'malware']);
      assert.deepEqual(filters.versions, ['first', 'last']);
      assert.deepEqual(filters.specVersions, ['2.1']);
    });

    it('accepts all, first, last and timestamps as versions', () => {
      assert.deepEqual(parse({ 'match[version]': 'all,2026-01-15T10:00:00.000Z' }).filters.versions, ['all', '2026-01-15T10:00:00.000Z']);
    });

    for (const [name, value] of [
      ['match[id]', 'indicator'],
      ['match[id]', `${ID_A},`],
      ['match[type]', 'Indicator'],
      ['match[type]', 'x'],
      ['match[version]', 'newest'],
      ['match[version]', '2026-01-15'],
      // Valid timestamps whose offset moves them out of the years STIX can write (was a 500).
      ['match[version]', '0000-01-01T00:30:00+01:00'],
      ['match[version]', '9999-12-31T23:30:00-01:00'],
      ['match[spec_version]', '2'],
      ['match[spec_version]', 'latest'],
    ]) {
      it(`refuses ${name}=${value}`, () => rejects({ [name!]: value }, name!));
    }

    it('refuses a repeated match[type]', () => rejects({ 'match[type]': ['indicator', 'malware'] }, 'match[type]'));
    it('refuses an unknown match field', () => rejects({ 'match[colour]': 'red' }, 'match[colour]'));
    it('refuses a match parameter without brackets', () => rejects({ match: 'x' }, 'match'));
    it('refuses match[id] where the endpoint does not support it', () => rejects({ 'match[id]': ID_A }, 'match[id]', ['version', 'spec_version']));
  });

  describe('added_after and next', () => {
    it('reads added_after to the microsecond', () => {
      assert.equal(parse({ added_after: '2026-01-15T10:00:00.000042Z' }).filters.addedAfter, BASE + 42);
    });
    it('refuses a malformed added_after', () => rejects({ added_after: '2026-01-15' }, 'added_after'));
    it('refuses a repeated added_after', () => rejects({ added_after: ['2026-01-15T10:00:00Z', '2026-01-15T10:00:00Z'] }, 'added_after'));
    it('passes next through for the token decoder', () => assert.equal(parse({ next: 'abc.def' }).next, 'abc.def'));
    it('refuses an empty next', () => rejects({ next: '' }, 'next'));
  });
});

describe('parseTimestampMicros', () => {
  const cases: [string, number | undefined][] = [
    ['2026-01-15T10:00:00Z', BASE],
    ['2026-01-15T10:00:00.1Z', BASE + 100_000],
    ['2026-01-15T10:00:00.12Z', BASE + 120_000],
    ['2026-01-15T10:00:00.123Z', BASE + 123_000],
    ['2026-01-15T10:00:00.1234Z', BASE + 123_400],
    ['2026-01-15T10:00:00.12345Z', BASE + 123_450],
    ['2026-01-15T10:00:00.123456Z', BASE + 123_456],
    ['2026-01-15T12:30:00.000001+02:30', BASE + 1],
    ['2026-01-15T05:00:00-05:00', BASE],
    ['2026-01-15 10:00:00', BASE],
    ['2024-02-29T00:00:00Z', Date.parse('2024-02-29T00:00:00Z') * 1000],
    ['0001-01-01T00:00:00Z', Date.parse('0001-01-01T00:00:00Z') * 1000],
    ['0099-12-31 23:59:59', Date.parse('0099-12-31T23:59:59Z') * 1000],
    ['2026-01-15T10:00:00.1234567Z', undefined],
    ['2026-01-15T10:00:00.Z', undefined],
    ['2026-01-15T10:00:00', undefined],
    ['2026-01-15 10:00', undefined],
    ['2025-02-29T00:00:00Z', undefined],
    ['2026-01-15T10:60:00Z', undefined],
    ['2026-01-15T10:00:00+24:00', undefined],
    ['2026-01-15T10:00:00+0100', undefined],
    ['20260115T100000Z', undefined],
    ['', undefined],
  ];
  for (const [text, expected] of cases) {
    it(`reads ${JSON.stringify(text)} as ${expected ?? 'malformed'}`, () => assert.equal(parseTimestampMicros(text), expected));
  }
});

describe('formatMicros', () => {
  for (const [micros, text] of [
    [BASE, '2026-01-15T10:00:00.000000Z'],
    [BASE + 1, '2026-01-15T10:00:00.000001Z'],
    [BASE + 999_999, '2026-01-15T10:00:00.999999Z'],
    [BASE + 1_000_000, '2026-01-15T10:00:01.000000Z'],
    [BASE + 1_234, '2026-01-15T10:00:00.001234Z'],
  ] as const) {
    it(`writes ${micros} as ${text}, which parses back to it`, () => {
      assert.equal(formatMicros(micros), text);
      assert.equal(parseTimestampMicros(text), micros);
    });
  }
});
