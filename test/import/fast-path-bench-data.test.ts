// The quick validators against the zod schemas on every record of a generated bench data set, and on a malformed copy of each.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateLines } from '../../bench/generate-data.js';
import { acceptIndicator, acceptLink } from '../../src/import/fast-records.js';
import { indicatorSchema, linkSchema } from '../../src/import/record-schemas.js';

/** The bench generator's data (bench/generate-data.ts), at a size a test run affords. */
const INDICATORS = 20_000;

/** One way to break a record, applied in turn: a field removed, retyped, out of range, or added. */
const BREAKS: ((record: Record<string, unknown>) => Record<string, unknown>)[] = [
  ({ iid: _iid, ...rest }) => rest,
  (r) => ({ ...r, iid: String(r.iid) }),
  (r) => ({ ...r, iid: -1 }),
  (r) => ({ ...r, iid: 1.5 }),
  (r) => ({ ...r, risk: 'severe' }),
  (r) => ({ ...r, type: 'ja3' }),
  (r) => ({ ...r, type: ` ${String(r.type ?? 'IP').toUpperCase()} ` }),
  (r) => ({ ...r, stamp_linked: '2026-02-30 00:00:00', stamp_added: '2026-13-01 00:00:00' }),
  (r) => ({ ...r, attributes: { port: [443, 8443] } }),
  (r) => ({ ...r, attributes: { port: [1.5] } }),
  (r) => ({ ...r, indicator: '' }),
  (r) => ({ ...r, fid: 1, tid: 2 }),
  (r) => ({ ...r, retired: 'yes' }),
  (r) => ({ ...r, unexpected: true }),
];

type Accept = (raw: unknown) => unknown;
type Schema = { safeParse(raw: unknown): { success: boolean; data?: unknown } };

/** Where the quick path answers, it answers as the schema does, byte for byte; returns whether it answered. */
function agrees(schema: Schema, accept: Accept, raw: unknown, where: string): boolean {
  const quick = accept(raw);
  if (quick === undefined) return false;
  const full = schema.safeParse(raw);
  assert.ok(full.success, `${where}: the quick path accepts what the schema refuses: ${JSON.stringify(raw)}`);
  assert.equal(JSON.stringify(quick), JSON.stringify(full.data), where);
  return true;
}

describe('the quick import validators on the bench data', () => {
  it('answer as the zod schemas on every indicator and link record, as generated and once broken', () => {
    const counts = { records: 0, quick: 0, brokenQuick: 0 };
    let line = 0;
    for (const text of generateLines({ indicators: INDICATORS, seed: 7 })) {
      line++;
      const { record, ...raw } = JSON.parse(text) as { record: string } & Record<string, unknown>;
      const pair: [Schema, Accept] | undefined =
        record === 'indicator' ? [indicatorSchema, acceptIndicator] : record === 'link' ? [linkSchema, acceptLink] : undefined;
      if (pair === undefined) continue;
      counts.records++;
      if (agrees(...pair, raw, `line ${line}`)) counts.quick++;
      const broken = BREAKS[line % BREAKS.length]!(raw);
      if (agrees(...pair, broken, `line ${line}, broken`)) counts.brokenQuick++;
    }
    assert.ok(counts.records > 2 * INDICATORS, `only ${counts.records} records`);
    // The quick path must be what takes the generated data, or it earns nothing.
    assert.equal(counts.quick, counts.records, 'a well-formed generated record left the quick path');
  });
});
