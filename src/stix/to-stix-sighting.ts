// The Sighting SRO (STIX 2.1 §5.2) of an indicator: what its sightings ("Seen", docs/observations.md) add up to.

import { compactStixObject } from './compact-stix-object.js';
import { checkedStixId, stixIdForIndicator, stixIdForSighting } from './stix-id.js';
import { StixMappingError } from './stix-mapping-error.js';
import { laterStixTime, normalizeStixTime, stixTimeFromStamp } from './stix-time.js';
import type { StixSighting } from './stix-types.js';
import { THREATGATE_IDENTITY } from './to-stix-identity.js';

/** §5.2: `count` is an integer from 0 to 999,999,999. */
export const STIX_MAX_COUNT = 999_999_999;

/** An indicator's sightings as the store keeps them: the sum of their counts, the earliest and latest seen. */
export interface SightingSummary {
  iid: number;
  sightings: number;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  firstSeen: string;
  lastSeen: string;
}

export interface StixSightingContext {
  /** When the service recorded this version (RFC 3339); raised to `created` if earlier. */
  modified: string;
  /**
   * The `modified` of the object's first version, repeated by every later one (§3.2 forbids
   * changing `created`); the caller keeps it, as sightings have no stamp of their own for it.
   */
  created: string;
}

/**
 * The one sighting object of an indicator, a new version as its sightings change: `count` their
 * sum (held at the §5.2 maximum), `first_seen` and `last_seen` the earliest and latest seen,
 * `where_sighted_refs` and `created_by_ref` the service itself, which records them. Who reported
 * each sighting and their notes stay in the service (docs/stix-mapping.md, "Sightings").
 */
export function toStixSighting(summary: SightingSummary, ctx: StixSightingContext): StixSighting {
  if (!Number.isSafeInteger(summary.sightings) || summary.sightings < 0) {
    throw new StixMappingError('invalid-record', `indicator ${summary.iid} has ${summary.sightings} sightings`);
  }
  const firstSeen = stixTimeFromStamp(summary.firstSeen);
  const lastSeen = stixTimeFromStamp(summary.lastSeen);
  if (lastSeen < firstSeen) {
    // §5.2: last_seen MUST be greater than or equal to first_seen; the store keeps them so.
    throw new StixMappingError('invalid-record', `indicator ${summary.iid} was last sighted before it was first sighted`);
  }
  const created = normalizeStixTime(ctx.created);
  return compactStixObject<StixSighting>({
    type: 'sighting',
    spec_version: '2.1',
    id: stixIdForSighting(summary.iid),
    created_by_ref: checkedStixId(THREATGATE_IDENTITY.id, 'identity'),
    created,
    modified: laterStixTime(normalizeStixTime(ctx.modified), created),
    first_seen: firstSeen,
    last_seen: lastSeen,
    count: Math.min(summary.sightings, STIX_MAX_COUNT),
    sighting_of_ref: stixIdForIndicator(summary.iid),
    where_sighted_refs: [THREATGATE_IDENTITY.id],
  });
}
