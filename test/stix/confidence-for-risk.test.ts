// confidenceForRisk and its inverse riskForConfidence (docs/stix-mapping.md, "Reading STIX from a source"): every confidence our export writes reads back as the risk that wrote it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RISK_LEVELS, type Risk } from '../../src/domain.js';
import { confidenceForRisk, riskForConfidence } from '../../src/stix/index.js';

describe('riskForConfidence', () => {
  it('reads back each risk confidenceForRisk writes a confidence for (retired, written as 0, says so by valid_until instead)', () => {
    for (const risk of RISK_LEVELS.filter((r): r is Exclude<Risk, 'unknown' | 'retired'> => r !== 'unknown' && r !== 'retired')) {
      assert.equal(riskForConfidence(confidenceForRisk(risk)), risk, risk);
    }
    assert.equal(riskForConfidence(confidenceForRisk('unknown')), undefined);
  });

  it('maps the Appendix A ranges: 0 none, 1-29 low, 30-69 medium, 70-99 high, 100 critical', () => {
    const cases: Array<[number, string]> = [[0, 'none'], [0.5, 'low'], [29, 'low'], [29.9, 'low'], [30, 'medium'], [69, 'medium'], [70, 'high'], [99, 'high'], [99.5, 'high'], [100, 'critical']];
    for (const [confidence, risk] of cases) assert.equal(riskForConfidence(confidence), risk, String(confidence));
  });

  it('gives nothing for a confidence that is absent, out of range or not a number', () => {
    for (const confidence of [undefined, null, -1, 100.5, 101, Number.NaN, Infinity, '50', true]) assert.equal(riskForConfidence(confidence), undefined, String(confidence));
  });
});
