// The SDO of a threat (STIX 2.1 §4): malware, intrusion set, campaign, infrastructure, ...

import type { Threat } from '../domain.js';
import { compactStixObject, optionalText } from './compact-stix-object.js';
import { confidenceForRisk } from './confidence-for-risk.js';
import { isRetired } from './is-retired.js';
import { checkedStixId, stixIdForThreatRecord } from './stix-id.js';
import { StixMappingError } from './stix-mapping-error.js';
import { laterStixTime, normalizeStixTime, STIX_EPOCH, stixTimeFromStamp } from './stix-time.js';
import type { StixCommonProperties, StixThreatCustomProperties, StixThreatObject } from './stix-types.js';
import { threatExternalReferences } from './threat-external-references.js';
import { threatSdoType } from './threat-sdo-type.js';
import { THREATGATE_IDENTITY } from './to-stix-identity.js';

export interface StixThreatContext {
  /** When the service recorded this version (RFC 3339); raised to `created` if earlier. */
  modified: string;
  /** Defaults to THREATGATE_IDENTITY: threats are threatgate's own analysis, not a feed's. */
  createdByRef?: string;
  /** The threat's reactivations after a published retirement (stixIdForThreatRecord); default 0. */
  generation?: number;
}

/**
 * The SDO of one threat version; its type follows the category (threatSdoType). A retired threat
 * is `revoked` (§3.2): these SDOs have no expiry property. Revocation is final, so a threat that
 * comes back after retirement can only be published under a new id (see docs/stix-mapping.md).
 */
export function toStixThreat(threat: Threat, ctx: StixThreatContext): StixThreatObject {
  const name = optionalText(threat.threat);
  if (name === undefined) {
    throw new StixMappingError('invalid-record', `threat ${threat.tid} has an empty name`);
  }
  const mapping = threatSdoType(threat.category);
  const created = threat.stamp_added === null ? STIX_EPOCH : stixTimeFromStamp(threat.stamp_added);
  const references = threatExternalReferences(threat, mapping.type);
  const common: StixCommonProperties & { type: StixThreatObject['type'] } = {
    type: mapping.type,
    spec_version: '2.1',
    id: stixIdForThreatRecord(threat.tid, mapping.type, ctx.generation ?? 0),
    created_by_ref: checkedStixId(ctx.createdByRef ?? THREATGATE_IDENTITY.id, 'identity'),
    created,
    // Raised to `created` if earlier, so `created` stays the same in every version (§3.2).
    modified: laterStixTime(normalizeStixTime(ctx.modified), created),
    revoked: isRetired(threat) ? true : undefined,
    confidence: confidenceForRisk(threat.risk),
  };
  const described = { name, description: optionalText(threat.description) ?? optionalText(threat.wikisummary) };
  const custom: StixThreatCustomProperties = {
    x_risk: threat.risk,
    x_category: optionalText(threat.category),
    x_threatgate_tid: threat.tid,
  };
  const aliases = threatAliases(threat.othernames, name);
  const seen = seenPeriod(threat);
  switch (mapping.type) {
    case 'malware':
      return compactStixObject({
        ...common, type: 'malware', ...described,
        malware_types: [mapping.malwareType ?? 'unknown'], is_family: true, aliases, ...seen,
        external_references: references, ...custom,
      });
    case 'infrastructure':
      return compactStixObject({
        ...common, type: 'infrastructure', ...described,
        infrastructure_types: [mapping.infrastructureType ?? 'unknown'], aliases, ...seen,
        external_references: references, ...custom,
      });
    case 'intrusion-set':
    case 'campaign':
      return compactStixObject({
        ...common, type: mapping.type, ...described, aliases, ...seen, external_references: references, ...custom,
      });
    case 'attack-pattern':
      return compactStixObject({
        ...common, type: 'attack-pattern', ...described, aliases, external_references: references, ...custom,
      });
    case 'vulnerability':
      // §4.19 has no aliases or first/last seen.
      return compactStixObject({ ...common, type: 'vulnerability', ...described, external_references: references, ...custom });
  }
}

/** Other names, without blanks, repeats, or the threat's own name (in any letter case). */
function threatAliases(othernames: readonly string[], name: string): string[] {
  const own = name.trim().toLowerCase();
  const aliases: string[] = [];
  for (const alias of othernames) {
    if (optionalText(alias) === undefined || alias.trim().toLowerCase() === own || aliases.includes(alias)) continue;
    aliases.push(alias);
  }
  return aliases;
}

/**
 * first_seen from stamp_added, last_seen from stamp_seen. A last_seen before first_seen would
 * break `last_seen >= first_seen` (§4.2, §4.8, §4.9, §4.11), so it is left out.
 */
function seenPeriod(threat: Threat): { first_seen?: string; last_seen?: string } {
  const firstSeen = threat.stamp_added === null ? undefined : stixTimeFromStamp(threat.stamp_added);
  const lastSeen = threat.stamp_seen === null ? undefined : stixTimeFromStamp(threat.stamp_seen);
  const keepLast = lastSeen !== undefined && (firstSeen === undefined || lastSeen >= firstSeen);
  return { first_seen: firstSeen, last_seen: keepLast ? lastSeen : undefined };
}
