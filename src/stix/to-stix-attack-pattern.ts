// Attack-pattern SDOs (STIX 2.1 §4.1) for the ATT&CK techniques of threats' ttps, and the relationships of threats to them.

import { ATTACK_KILL_CHAIN, attackTechniqueUrl } from './attack-techniques.js';
import { compactStixObject } from './compact-stix-object.js';
import { checkedStixId, stixIdForAttackPattern, stixIdForTechniqueUse, stixIdType } from './stix-id.js';
import { laterStixTime, normalizeStixTime } from './stix-time.js';
import type { StixAttackTechnique, StixRelationship } from './stix-types.js';
import { THREATGATE_IDENTITY } from './to-stix-identity.js';

/** A technique's attack-pattern as rendered: its merged name and tactics (mergeTechniqueUses) and its `created`. */
export interface AttackPatternRecord {
  /** Upper-case technique id (attackTechniqueId). */
  technique: string;
  name: string;
  /** Phase names, sorted. */
  tactics: readonly string[];
  /** When the service first published it; the same in every version (§3.2). */
  created: string;
}

/** The technique's attack-pattern, referenced to ATT&CK the way ATT&CK's own STIX data is. */
export function toStixAttackPattern(record: AttackPatternRecord, ctx: { modified: string }): StixAttackTechnique {
  const created = normalizeStixTime(record.created);
  return compactStixObject<StixAttackTechnique>({
    type: 'attack-pattern',
    spec_version: '2.1',
    id: stixIdForAttackPattern(record.technique),
    created_by_ref: THREATGATE_IDENTITY.id,
    created,
    modified: laterStixTime(normalizeStixTime(ctx.modified), created),
    name: record.name,
    external_references: [{ source_name: ATTACK_KILL_CHAIN, external_id: record.technique, url: attackTechniqueUrl(record.technique) }],
    kill_chain_phases: record.tactics.map((phase_name) => ({ kill_chain_name: ATTACK_KILL_CHAIN, phase_name })),
  });
}

/**
 * The SDO types that may `use` an attack-pattern (STIX 2.1 §4: the Relationships tables of
 * campaign, intrusion-set, malware and threat-actor). A threat mapped to another type
 * (infrastructure, an attack-pattern of its own, vulnerability) gets `related-to`, which §5.1
 * allows between any two objects.
 */
const USES_ATTACK_PATTERN: ReadonlySet<string> = new Set(['campaign', 'intrusion-set', 'malware', 'threat-actor']);

export function techniqueRelationshipType(sourceType: string): 'uses' | 'related-to' {
  return USES_ATTACK_PATTERN.has(sourceType) ? 'uses' : 'related-to';
}

/** One threat's use of one technique, as its relationship is named and dated. */
export interface TechniqueUseRecord {
  tid: number;
  technique: string;
  /** The threat's generation (its reactivations) and the technique's round for the threat (stixIdForTechniqueUse). */
  generation: number;
  round: number;
  /** When the service first published it; the same in every version (§3.2). */
  created: string;
}

/** The relationship from the threat's object (`sourceRef`, whatever SDO type) to the technique's attack-pattern. */
export function toStixTechniqueUse(use: TechniqueUseRecord, ctx: { modified: string; sourceRef: string }): StixRelationship {
  const sourceType = stixIdType(ctx.sourceRef);
  const created = normalizeStixTime(use.created);
  return {
    type: 'relationship',
    spec_version: '2.1',
    id: stixIdForTechniqueUse(use.tid, sourceType, use.technique, use.generation, use.round),
    created_by_ref: THREATGATE_IDENTITY.id,
    created,
    modified: laterStixTime(normalizeStixTime(ctx.modified), created),
    relationship_type: techniqueRelationshipType(sourceType),
    source_ref: checkedStixId(ctx.sourceRef),
    target_ref: stixIdForAttackPattern(use.technique),
  };
}
