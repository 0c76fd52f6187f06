// Builds the demo indicators: type mix, risk spread, consistent stamps, attributes and properties.

import type { Indicator, Risk } from '../domain.js';
import { DAY, toStamp } from './demo-time.js';
import type { IndicatorKind } from './generate-feeds.js';
import { indicatorAttributes, indicatorProperties } from './indicator-profile.js';
import { createValueFactory, TRICKY_VALUES } from './indicator-values.js';
import { createPrng, type Prng } from './prng.js';

const INDICATOR_SEED = 0x1d1ca7;

/** Mostly addresses and domains, as in the feeds this data imitates. */
const TYPE_MIX: readonly (readonly [IndicatorKind, number])[] = [
  ['ip', 52],
  ['domain', 30],
  ['url', 14],
  ['ipv6', 4],
];

const ACTIVE_RISK_MIX: readonly (readonly [Risk, number])[] = [
  ['low', 38],
  ['medium', 37],
  ['high', 12],
  ['critical', 4],
  ['unknown', 6],
  ['none', 3],
];

const RETIRED_SHARE = 0.03;
/** Indicators are first listed within the last three years of the demo world. */
const MAX_AGE_DAYS = 3 * 365;
/** A demo indicator is retired after three months unseen, as a threat is (docs/interface.md section 3). */
const RETIRE_AFTER_DAYS = 90;

/** Builds `count` indicators with iids 1..count; `now` is the demo's anchor (epoch seconds). */
export function generateIndicators(count: number, now: number): Indicator[] {
  const prng = createPrng(INDICATOR_SEED);
  const values = createValueFactory(prng);
  const typeWeights = TYPE_MIX.map(([, weight]) => weight);
  const riskWeights = ACTIVE_RISK_MIX.map(([, weight]) => weight);
  const indicators: Indicator[] = new Array(count);
  for (let iid = 1; iid <= count; iid++) {
    const tricky = TRICKY_VALUES.get(iid);
    const type = tricky?.type ?? (TYPE_MIX[prng.weighted(typeWeights)]?.[0] as IndicatorKind);
    const value = tricky?.value ?? values.next(type);
    const retired = prng.chance(RETIRED_SHARE);
    const risk = retired ? 'retired' : (ACTIVE_RISK_MIX[prng.weighted(riskWeights)]?.[0] as Risk);
    indicators[iid - 1] = {
      iid,
      indicator: value,
      type,
      risk,
      ...indicatorStamps(retired, prng, now),
      retired,
      attributes: indicatorAttributes(type, value, prng),
      properties: indicatorProperties(type, value, prng, now),
    };
  }
  return indicators;
}

type IndicatorStamps = Pick<Indicator, 'stamp_added' | 'stamp_updated' | 'stamp_seen'>;

/** added <= seen <= now; updated lies between, or marks the retirement for retired indicators. */
function indicatorStamps(retired: boolean, prng: Prng, now: number): IndicatorStamps {
  if (retired) {
    const added = now - prng.int(RETIRE_AFTER_DAYS + 30, MAX_AGE_DAYS) * DAY - prng.int(0, DAY - 1);
    const seen = prng.int(added, now - (RETIRE_AFTER_DAYS + 10) * DAY);
    const updated = seen + (RETIRE_AFTER_DAYS + prng.int(0, 9)) * DAY;
    return { stamp_added: toStamp(added), stamp_updated: toStamp(updated), stamp_seen: toStamp(seen) };
  }
  const age = prng.int(0, MAX_AGE_DAYS * DAY);
  const added = now - age;
  const seen = now - prng.int(0, Math.min(age, 30 * DAY));
  const updated = prng.int(added, seen);
  return { stamp_added: toStamp(added), stamp_updated: toStamp(updated), stamp_seen: toStamp(seen) };
}
