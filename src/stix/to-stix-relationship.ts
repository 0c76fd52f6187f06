// Relationship SROs (STIX 2.1 §5.1) for the links of indicators to threats.

import { compactStixObject } from './compact-stix-object.js';
import { checkedStixId, stixIdForIndicatorLink, stixIdType } from './stix-id.js';
import { laterStixTime, normalizeStixTime, stixTimeFromStamp } from './stix-time.js';
import type { StixRelationship } from './stix-types.js';

export interface StixRelationshipContext {
  /** When the service recorded this version (RFC 3339); raised to `created` if earlier. */
  modified: string;
  /** The indicator's id (stixIdForIndicator). */
  sourceRef: string;
  /** The threat's id (stixIdForThreat), whatever SDO type the threat maps to. */
  targetRef: string;
  createdByRef: string;
}

/**
 * The SDO types that `indicates` may point at (STIX 2.1 §4.7, Indicator relationships). A threat
 * mapped to a vulnerability has no such relationship; it gets `related-to`, which STIX allows
 * between any two objects.
 */
const INDICATES_TARGETS: ReadonlySet<string> = new Set([
  'attack-pattern',
  'campaign',
  'infrastructure',
  'intrusion-set',
  'malware',
  'threat-actor',
  'tool',
]);

/** `indicates` for every target type that allows it, else `related-to`. */
export function relationshipTypeFor(targetType: string): string {
  return INDICATES_TARGETS.has(targetType) ? 'indicates' : 'related-to';
}

/** The relationship of one indicator-to-threat link, `created` when the link was made. */
export function toStixRelationship(
  link: { iid: number; tid: number; stamp_linked: string; generation?: number },
  ctx: StixRelationshipContext,
): StixRelationship {
  const targetType = stixIdType(ctx.targetRef);
  const created = stixTimeFromStamp(link.stamp_linked);
  return compactStixObject<StixRelationship>({
    type: 'relationship',
    spec_version: '2.1',
    id: stixIdForIndicatorLink(link.iid, link.tid, targetType, link.generation ?? 0),
    created_by_ref: checkedStixId(ctx.createdByRef, 'identity'),
    created,
    modified: laterStixTime(normalizeStixTime(ctx.modified), created),
    relationship_type: relationshipTypeFor(targetType),
    source_ref: checkedStixId(ctx.sourceRef, 'indicator'),
    target_ref: ctx.targetRef,
  });
}

