// When links were made: after the indicator was added and no later than it was last seen.

import type { Indicator } from '../domain.js';
import { DAY, fromStamp, toStamp } from './demo-time.js';
import type { Prng } from './prng.js';

/** Per indicator (index iid - 1), its added and last-seen instants in epoch seconds. */
export interface IndicatorWindows {
  added: Float64Array;
  seen: Float64Array;
}

/** Parsed once and shared by both linkers: re-parsing stamps per link dominated their run time. */
export function indicatorWindows(indicators: readonly Indicator[]): IndicatorWindows {
  const added = new Float64Array(indicators.length);
  const seen = new Float64Array(indicators.length);
  indicators.forEach((indicator, index) => {
    added[index] = requiredStamp(indicator.stamp_added);
    seen[index] = Math.max(added[index] ?? 0, requiredStamp(indicator.stamp_seen));
  });
  return { added, seen };
}

/**
 * A link stamp within `withinDays` of the indicator being added (or of `notBefore`, e.g. the
 * threat's own stamp_added, whichever is later), capped at the indicator's last sighting.
 */
export function linkStamp(windows: IndicatorWindows, iid: number, withinDays: number, prng: Prng, notBefore = 0): string {
  const from = Math.max(windows.added[iid - 1] ?? 0, notBefore);
  const to = Math.max(from, windows.seen[iid - 1] ?? 0);
  return toStamp(prng.int(from, Math.min(to, from + withinDays * DAY)));
}

/** Demo indicators always carry stamps; a null here is a generator bug, not data. */
function requiredStamp(stamp: string | null): number {
  if (stamp === null) throw new RangeError('demo indicator without a stamp');
  return fromStamp(stamp);
}
