// Write batches: an indicator's content hash, put together from parts, is the hash of its JSON.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateDemo } from '../../src/demo/generate-demo.js';
import type { Indicator } from '../../src/domain.js';
import { indicatorSchema, parseRecord } from '../../src/import/record-schemas.js';
import { contentHash, indicatorHash } from '../../src/import/prepare-batches.js';
import { buildFixture } from '../helpers/fixture.js';

const KEYS = 'iid,indicator,type,risk,stamp_added,stamp_updated,stamp_seen,retired,attributes,properties';
const hashOf = (i: Indicator) => indicatorHash(i, JSON.stringify(i.attributes), JSON.stringify(i.properties));

describe('indicator content hash', () => {
  const raws: unknown[] = [
    ...buildFixture().indicators,
    ...generateDemo({ indicators: 2000 }).indicators,
    // What JSON escapes or may: a quote, a backslash, U+2028 (a tab or other control is refused at import).
    { iid: 7, indicator: 'quote " backslash \\ ünïcode ✓ \u2028', type: 'url', risk: 'high' },
    { iid: 8, indicator: '198.51.100.8', type: 'ip', risk: 'none', retired: 1, stamp_seen: '2025-01-01 00:00:00', attributes: { port: [443, '80'] } },
    { iid: 9, indicator: 'example.org', type: 'domain', risk: 'retired', retired: false, properties: { nested: { a: [1, { b: null }] }, n: 1.5 } },
    { iid: Number.MAX_SAFE_INTEGER, indicator: 'x', type: 'asn', risk: 'unknown', retired: null, attributes: {}, properties: {} },
  ];

  it('equals the SHA-256 of JSON.stringify, for what either validator gives', () => {
    for (const raw of raws) {
      const parsed = parseRecord('indicator', raw);
      assert.ok(parsed.ok && parsed.record.kind === 'indicator');
      const fast = parsed.record.value;
      assert.equal(hashOf(fast), contentHash(fast), JSON.stringify(raw));
      // The zod schema's output, whose key order the quick path copies.
      const schema = indicatorSchema.parse(raw) as Indicator;
      assert.equal(hashOf(schema), contentHash(schema), JSON.stringify(raw));
      assert.equal(hashOf(schema), hashOf(fast));
      // Both take the put-together path, not its fallback.
      for (const value of [fast, schema]) assert.equal(Object.keys(value).join(','), KEYS);
    }
  });

  it('falls back to serializing the whole record for another key order', () => {
    const { properties, ...rest } = buildFixture().indicators[0]!;
    const reordered = { properties, ...rest } as Indicator;
    assert.equal(hashOf(reordered), contentHash(reordered));
    assert.notEqual(hashOf(reordered), hashOf(buildFixture().indicators[0]!));
  });
});
