// A risk read from a score (docs/sources.md, "Feed shapes", riskFrom): the thresholds of `csv.riskFrom` and `json.riskFrom`, checked, and the reading of a score by them.
import { z } from 'zod';
import { RISK_LEVELS, type Risk } from '../../domain.js';

/** The levels a score may stand for: `retired` is the lifecycle's word for a value no source lists, not a score. */
export type ScoreRisk = Exclude<Risk, 'retired'>;
const SCORE_RISKS = RISK_LEVELS.filter((risk): risk is ScoreRisk => risk !== 'retired');

/** A decimal number as a feed writes a score or a threshold: `90`, `-1`, `12.5`, `.5`. */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** More thresholds than any scale in use (STIX Appendix A has four; the DNI scale seven). */
const MAX_THRESHOLDS = 32;

/**
 * `{"90": "high", "50": "medium", "0": "low"}`: each key a threshold, each value the risk of a score
 * that reaches it. Keys are decimal numbers, each number given once (`"50"` and `"50.0"` would
 * contradict each other or say the same thing twice).
 */
export const riskMap = z
  .record(z.string(), z.enum(SCORE_RISKS, { error: `must be one of ${SCORE_RISKS.join(', ')}` }), {
    error: (issue) => (issue.code === 'invalid_type' ? 'must be an object of threshold to risk, such as {"90": "high", "50": "medium"}' : undefined),
  })
  .superRefine((map, ctx) => {
    const keys = Object.keys(map);
    if (keys.length === 0) ctx.addIssue({ code: 'custom', message: 'must give at least one threshold, such as {"50": "medium"}' });
    if (keys.length > MAX_THRESHOLDS) ctx.addIssue({ code: 'custom', message: `must give at most ${MAX_THRESHOLDS} thresholds` });
    const seen = new Map<number, string>();
    for (const key of keys) {
      if (!DECIMAL.test(key.trim())) {
        ctx.addIssue({ code: 'custom', path: [key], message: 'is not a number: each key is a threshold such as "90"' });
        continue;
      }
      const at = Number(key);
      const before = seen.get(at);
      if (before !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `is the same threshold as "${before}"` });
      seen.set(at, key);
    }
  });
export type RiskMap = z.output<typeof riskMap>;

/** A score as a feed gives it: a finite JSON number, or a cell or string that is a decimal number; else undefined. */
export function scoreOf(cell: unknown): number | undefined {
  if (typeof cell === 'number') return Number.isFinite(cell) ? cell : undefined;
  if (typeof cell !== 'string') return undefined;
  const text = cell.trim();
  return DECIMAL.test(text) ? Number(text) : undefined;
}

/**
 * The reader of scores by `map`: a score is given the risk of the highest threshold it reaches
 * (with `{"90": "high", "50": "medium", "0": "low"}`, 75 is medium and 90 high). A cell that is not
 * a number, or a score below every threshold, gives undefined: the entry then has no risk of its
 * own and the source's `risk` applies, as for a row whose risk column is empty.
 */
export function scoreReader(map: RiskMap): (cell: unknown) => ScoreRisk | undefined {
  const thresholds = Object.entries(map)
    .map(([key, risk]) => ({ at: Number(key), risk }))
    .sort((a, b) => b.at - a.at);
  return (cell) => {
    const score = scoreOf(cell);
    if (score === undefined) return undefined;
    return thresholds.find((threshold) => score >= threshold.at)?.risk;
  };
}
