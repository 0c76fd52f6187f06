// The quick path for links and indicators must agree with the zod schemas on every input it accepts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptIndicator, acceptLink } from '../../src/import/fast-records.js';
import { indicatorSchema, linkSchema, parseRecord } from '../../src/import/record-schemas.js';

const STAMP = '2026-03-04 05:06:07';

/** Values for one field: valid ones, wrong types, bounds, and absence. */
const SAMPLES: unknown[] = [
  undefined, null, true, false, 0, 1, -1, 2, 1.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity,
  '', 'x', 'high', 'ip', 'Domain', 'a'.repeat(8192), 'a'.repeat(8193), STAMP, '2026-02-30 00:00:00', '2026-03-04T05:06:07Z',
  [], ['a'], [1, 'b'], [null], {}, { port: ['443', 80] }, { port: 'x' }, { port: [true] }, { port: [NaN] }, [1, 2],
  JSON.parse('{"__proto__": ["x"]}'), { nested: { deep: 1 } },
  // Types outside the vocabulary or spelled otherwise; attribute numbers that are not whole or not safe.
  'ja3', ' IP ', 'SHA256', { port: [1.5] }, { port: [2 ** 60] }, { port: [-0, -1] },
  // Strings holding a control character (C0, C1): as an indicator value, the schema refuses them.
  'evil\x1b.example', 'a\tb', 'x\x9b',
];

function agree(schema: { safeParse(v: unknown): { success: boolean; data?: unknown } }, accept: (v: unknown) => unknown, value: unknown): void {
  const quick = accept(value);
  const full = schema.safeParse(value);
  if (quick === undefined) return;
  assert.ok(full.success, `accepted what the schema refuses: ${JSON.stringify(value)}`);
  assert.deepEqual(quick, full.data);
  // Same key order too: the content hash of a record is taken from its JSON.
  assert.equal(JSON.stringify(quick), JSON.stringify(full.data));
}

function variants(base: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [base];
  for (const field of [...Object.keys(base), 'extra']) {
    for (const sample of SAMPLES) out.push({ ...base, [field]: sample });
    const { [field]: _dropped, ...without } = base;
    out.push(without);
  }
  out.push(JSON.parse(`{"__proto__": {"x": 1}, ${JSON.stringify(base).slice(1)}`));
  return out;
}

describe('acceptLink', () => {
  const bases = [{ iid: 5, fid: 2, stamp_linked: STAMP }, { iid: 5, tid: 9, stamp_linked: STAMP }, { stamp_linked: STAMP, tid: 9, iid: 5 }];
  it('accepts nothing the schema refuses, and gives the schema value for what it accepts', () => {
    let accepted = 0;
    for (const base of bases) {
      for (const value of [...variants(base), { ...base, fid: 1, tid: 2 }]) {
        agree(linkSchema, acceptLink, value);
        if (acceptLink(value) !== undefined) accepted++;
      }
    }
    assert.ok(accepted >= 3 * 4, `only ${accepted} variants took the quick path`);
  });

  it('leaves the error wording to the schema', () => {
    assert.deepEqual(parseRecord('link', { iid: 5, fid: 2, tid: 3, stamp_linked: STAMP }), {
      ok: false,
      reason: 'link must have iid, stamp_linked and exactly one of fid or tid',
    });
  });
});

describe('acceptIndicator', () => {
  const base = {
    iid: 7, indicator: '198.51.100.7', type: 'ip', risk: 'high', stamp_added: STAMP, stamp_updated: null,
    retired: 0, attributes: { port: ['443', 8443], protocol: ['tcp'] }, properties: { asn: 64500, geo: { cc: 'NL' } },
  };
  it('accepts nothing the schema refuses, and gives the schema value for what it accepts', () => {
    let accepted = 0;
    for (const value of variants(base)) {
      agree(indicatorSchema, acceptIndicator, value);
      if (acceptIndicator(value) !== undefined) accepted++;
    }
    assert.ok(accepted > 40, `only ${accepted} variants took the quick path`);
  });

  it('fills the defaults as the schema does', () => {
    const minimal = { iid: 1, indicator: 'example.org', type: 'domain', risk: 'low' };
    assert.deepEqual(acceptIndicator(minimal), indicatorSchema.parse(minimal));
  });
});
