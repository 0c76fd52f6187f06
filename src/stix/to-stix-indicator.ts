// Indicator SDOs (STIX 2.1 §4.7) from threatgate indicators.

import type { Indicator, IndicatorAttributes, Risk } from '../domain.js';
import { compactStixObject } from './compact-stix-object.js';
import { confidenceForRisk } from './confidence-for-risk.js';
import { isRetired } from './is-retired.js';
import { checkedStixId, stixIdForIndicator } from './stix-id.js';
import { StixMappingError } from './stix-mapping-error.js';
import { stixPattern } from './stix-pattern.js';
import { laterStixTime, normalizeStixTime, STIX_EPOCH, stixTimeAfter, stixTimeFromStamp } from './stix-time.js';
import type { StixIndicator } from './stix-types.js';

export interface StixIndicatorContext {
  /** When the service recorded this version (RFC 3339); raised to `created` if earlier. */
  modified: string;
  /** The identity of the feed organization that supplies the indicator, or THREATGATE_IDENTITY's. */
  createdByRef: string;
}

/**
 * indicator-type-ov (§10.10) by risk: medium and above are malicious, low is merely anomalous,
 * none is benign (listed, but judged harmless), unknown and retired assert nothing.
 */
const INDICATOR_TYPES: Readonly<Record<Risk, string>> = Object.freeze({
  critical: 'malicious-activity',
  high: 'malicious-activity',
  medium: 'malicious-activity',
  low: 'anomalous-activity',
  none: 'benign',
  unknown: 'unknown',
  retired: 'unknown',
});

/** STIX 2.1 dictionary keys (§2.3): ASCII letters, digits, hyphen and underscore, 1-250 long. */
const DICTIONARY_KEY = /^[A-Za-z0-9_-]{1,250}$/;

/**
 * What of an indicator its SDO shows: its stamps of update and sighting and its properties are
 * not exported, so the rows it is rendered from (at import and on read) can leave them out.
 */
export type ExportedIndicator = Pick<Indicator, 'iid' | 'indicator' | 'type' | 'risk' | 'stamp_added' | 'retired' | 'attributes'>;

/**
 * The indicator SDO of one indicator version. Throws a StixMappingError for an indicator type
 * without a pattern (see stixPattern) or a malformed stamp.
 *
 * Retirement is shown by expiry, not revocation: `valid_until` is set and `revoked` is not,
 * because revocation is permanent (§3.2, `revoked`: no later version may exist) while a retired
 * indicator can become active again and must then be published as a new version of the same id.
 */
export function toStixIndicator(indicator: ExportedIndicator, ctx: StixIndicatorContext): StixIndicator {
  if (indicator.indicator.trim() === '') {
    throw new StixMappingError('invalid-record', `indicator ${indicator.iid} has an empty value`);
  }
  const created = indicator.stamp_added === null ? STIX_EPOCH : stixTimeFromStamp(indicator.stamp_added);
  // `modified` must be >= `created` (§3.2). Raising `modified` rather than lowering `created`
  // keeps `created` identical in every version, as §3.2 requires.
  const modified = laterStixTime(normalizeStixTime(ctx.modified), created);
  const retired = isRetired(indicator);
  return compactStixObject<StixIndicator>({
    type: 'indicator',
    spec_version: '2.1',
    id: stixIdForIndicator(indicator.iid),
    created_by_ref: checkedStixId(ctx.createdByRef, 'identity'),
    created,
    modified,
    confidence: confidenceForRisk(indicator.risk),
    name: indicator.indicator,
    description: `${indicator.type} indicator, risk ${indicator.risk}${retired && indicator.risk !== 'retired' ? ', retired' : ''}`,
    indicator_types: [INDICATOR_TYPES[indicator.risk] ?? 'unknown'],
    pattern: stixPattern(indicator.type, indicator.indicator),
    pattern_type: 'stix',
    pattern_version: '2.1',
    valid_from: created,
    // The version that records the retirement is when it took effect; §4.7 requires
    // valid_until > valid_from, so an indicator retired at its creation expires 1 ms after it.
    valid_until: retired ? (modified > created ? modified : stixTimeAfter(created)) : undefined,
    x_risk: indicator.risk,
    x_threatgate_iid: indicator.iid,
    x_threatgate_type: indicator.type,
    x_threatgate_attributes: exportedAttributes(indicator.attributes),
  });
}

/**
 * The indicator's attributes (port, protocol, ...) as a custom dictionary, keys sorted so that
 * the same attributes give the same bytes whatever order they were imported in. Empty lists and
 * keys that are not valid dictionary keys are left out; no attributes, no property (§11.1).
 */
function exportedAttributes(attributes: IndicatorAttributes): Record<string, string[]> | undefined {
  const exported: Record<string, string[]> = {};
  for (const key of Object.keys(attributes).sort()) {
    const values = (attributes[key] ?? []).filter((value) => typeof value === 'string' && value !== '');
    if (values.length > 0 && DICTIONARY_KEY.test(key)) exported[key] = values;
  }
  return Object.keys(exported).length > 0 ? exported : undefined;
}
