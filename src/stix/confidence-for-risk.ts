// How a threatgate risk level becomes a STIX `confidence` (STIX 2.1 §3.2; scale of Appendix A).

import type { Risk } from '../domain.js';

/**
 * `confidence` (0-100, §3.2) from the risk, i.e. how confident threatgate is that the object
 * denotes a threat. none/low/medium/high follow the "None / Low / Med / High" scale of STIX 2.1
 * Appendix A (0, 15, 50, 85); critical is the top of the scale. `unknown` omits the property,
 * which §3.2 defines as "confidence unknown". `retired` is 0: the record is no longer asserted.
 */
const CONFIDENCE: Readonly<Record<Risk, number | undefined>> = Object.freeze({
  none: 0,
  low: 15,
  medium: 50,
  high: 85,
  critical: 100,
  unknown: undefined,
  retired: 0,
});

export function confidenceForRisk(risk: Risk): number | undefined {
  return CONFIDENCE[risk];
}

/**
 * The risk an upstream's `confidence` stands for: the inverse of confidenceForRisk, by the ranges of
 * the same Appendix A scale (None 0, Low 1-29, Med 30-69, High 70-100), with 100 alone for critical,
 * so that each value confidenceForRisk writes (0, 15, 50, 85, 100) reads back as the risk that wrote
 * it: 0 none, above 0 and below 30 low, 30 to below 70 medium, 70 to below 100 high, 100 critical.
 * Undefined when there is no confidence, or it is not a number from 0 to 100 (§3.2 "confidence
 * unknown": the reader falls back to its source's risk). `retired` does not come back from a
 * confidence: a retired indicator says so by its `valid_until`.
 */
export function riskForConfidence(confidence: unknown): Exclude<Risk, 'unknown' | 'retired'> | undefined {
  if (typeof confidence !== 'number' || !Number.isFinite(confidence) || confidence < 0 || confidence > 100) return undefined;
  if (confidence === 0) return 'none';
  if (confidence < 30) return 'low';
  if (confidence < 70) return 'medium';
  return confidence < 100 ? 'high' : 'critical';
}
