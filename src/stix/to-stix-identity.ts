// Identity SDOs (STIX 2.1 §4.5): feed organizations, and threatgate itself as a fallback creator.

import { compactStixObject } from './compact-stix-object.js';
import { stixId, stixIdForIdentity } from './stix-id.js';
import { StixMappingError } from './stix-mapping-error.js';
import { laterStixTime, normalizeStixTime } from './stix-time.js';
import type { StixIdentity } from './stix-types.js';

export interface StixIdentityContext {
  /** When the service recorded this version (RFC 3339); raised to `created` if earlier. */
  modified: string;
  /**
   * When the service first recorded the organization (the `modified` of the identity's first
   * version), then repeated by every later version: §3.2 forbids changing `created` between
   * versions. An organization has no stamp of its own to take it from, so the caller keeps it.
   */
  created: string;
}

/**
 * threatgate's own identity: the `created_by_ref` of threats, relationships and of indicators
 * that no feed supplies. A constant with fixed timestamps, so it is one version forever.
 */
export const THREATGATE_IDENTITY: Readonly<StixIdentity> = Object.freeze({
  type: 'identity',
  spec_version: '2.1',
  id: stixId('identity', 'service:threatgate'),
  created: '2025-01-01T00:00:00.000Z',
  modified: '2025-01-01T00:00:00.000Z',
  name: 'threatgate',
  description: 'The threatgate threat-intelligence service, which produced this STIX export.',
  // identity-class-ov (§10.8): the service is a system, not the organization that runs it.
  identity_class: 'system',
});

/**
 * The identity of a feed organization; its id depends on the name only (stixIdForIdentity), its
 * `created` is the caller's (StixIdentityContext.created).
 */
export function toStixIdentity(organization: string, ctx: StixIdentityContext): StixIdentity {
  if (organization.trim() === '') {
    throw new StixMappingError('invalid-record', 'a feed organization has an empty name');
  }
  const created = normalizeStixTime(ctx.created);
  return compactStixObject<StixIdentity>({
    type: 'identity',
    spec_version: '2.1',
    id: stixIdForIdentity(organization),
    created,
    modified: laterStixTime(normalizeStixTime(ctx.modified), created),
    name: organization,
    identity_class: 'organization',
  });
}
