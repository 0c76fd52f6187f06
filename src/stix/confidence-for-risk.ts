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
