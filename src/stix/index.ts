// The STIX 2.1 export's public surface: pure, deterministic mappers from threatgate records.

export {
  ATTACK_KILL_CHAIN,
  ATTACK_TECHNIQUE_ID,
  attackPhaseName,
  attackTechniqueId,
  attackTechniqueUrl,
  mergeTechniqueUses,
  skippedTtpItems,
  threatTechniques,
  type TechniqueUse,
  type ThreatTechnique,
} from './attack-techniques.js';
export { compactStixObject, optionalText } from './compact-stix-object.js';
export { confidenceForRisk, riskForConfidence } from './confidence-for-risk.js';
export { isRetired } from './is-retired.js';
export {
  checkedStixId,
  stixId,
  stixIdForAttackPattern,
  stixIdForIdentity,
  stixIdForIndicator,
  stixIdForIndicatorLink,
  stixIdForSighting,
  stixIdForTechniqueUse,
  stixIdForThreatRecord,
  stixIdType,
  THREATGATE_STIX_NAMESPACE,
  uuidv5,
} from './stix-id.js';
export { StixMappingError, type StixMappingErrorCode } from './stix-mapping-error.js';
export { isPatternedIndicatorType, PATTERNED_INDICATOR_TYPES, stixPattern, stixStringLiteral } from './stix-pattern.js';
export { readStixPatternValues, type StixPatternReading, type StixPatternValue, type StixValueType } from './stix-pattern-values.js';
export {
  laterStixTime,
  normalizeStixTime,
  STIX_EPOCH,
  stixTimeAfter,
  stixTimeFromDate,
  stixTimeFromStamp,
} from './stix-time.js';
export type * from './stix-types.js';
export { toRevokedVersion } from './revoked-version.js';
export { threatExternalReferences } from './threat-external-references.js';
export { normalizeCategory, stixIdForThreat, THREAT_SDO_TYPES, threatSdoType, type ThreatSdoMapping, type ThreatSdoType } from './threat-sdo-type.js';
export { THREATGATE_IDENTITY, toStixIdentity, type StixIdentityContext } from './to-stix-identity.js';
export { toStixIndicator, type ExportedIndicator, type StixIndicatorContext } from './to-stix-indicator.js';
export { relationshipTypeFor, toStixRelationship, type StixRelationshipContext } from './to-stix-relationship.js';
export { toStixThreat, type StixThreatContext } from './to-stix-threat.js';
export { STIX_MAX_COUNT, toStixSighting, type SightingSummary, type StixSightingContext } from './to-stix-sighting.js';
export {
  techniqueRelationshipType,
  toStixAttackPattern,
  toStixTechniqueUse,
  type AttackPatternRecord,
  type TechniqueUseRecord,
} from './to-stix-attack-pattern.js';
