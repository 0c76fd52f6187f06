// The STIX 2.1 objects threatgate exports (STIX 2.1 §3.2 common properties, §4 SDOs, §5.1 Relationship, §5.2 Sighting).

import type { Risk } from '../domain.js';

/** An RFC 3339 UTC timestamp with millisecond precision, `YYYY-MM-DDTHH:MM:SS.mmmZ` (§2.15). */
export type StixTimestamp = string;

/** `object-type--UUID` (§2.9). */
export type StixIdentifier = string;

/** §2.5: `source_name` is required, plus at least one of description, url, external_id. */
export interface StixExternalReference {
  source_name: string;
  description?: string;
  url?: string;
  external_id?: string;
}

/** The common properties this export uses (§3.2); optional ones are omitted, never null. */
export interface StixCommonProperties {
  type: string;
  spec_version: '2.1';
  id: StixIdentifier;
  created_by_ref?: StixIdentifier;
  created: StixTimestamp;
  modified: StixTimestamp;
  revoked?: true;
  confidence?: number;
  external_references?: StixExternalReference[];
}

export interface StixIndicator extends StixCommonProperties {
  type: 'indicator';
  name: string;
  description?: string;
  indicator_types: string[];
  pattern: string;
  pattern_type: 'stix';
  pattern_version: '2.1';
  valid_from: StixTimestamp;
  valid_until?: StixTimestamp;
  x_risk: Risk;
  x_threatgate_iid: number;
  x_threatgate_type: string;
  x_threatgate_attributes?: Record<string, string[]>;
}

/** Custom properties shared by every SDO a threat maps to. */
export interface StixThreatCustomProperties {
  x_risk: Risk;
  x_category?: string;
  x_threatgate_tid: number;
}

export interface StixMalware extends StixCommonProperties, StixThreatCustomProperties {
  type: 'malware';
  name: string;
  description?: string;
  malware_types: string[];
  is_family: true;
  aliases?: string[];
  first_seen?: StixTimestamp;
  last_seen?: StixTimestamp;
}

export interface StixIntrusionSet extends StixCommonProperties, StixThreatCustomProperties {
  type: 'intrusion-set';
  name: string;
  description?: string;
  aliases?: string[];
  first_seen?: StixTimestamp;
  last_seen?: StixTimestamp;
}

export interface StixCampaign extends StixCommonProperties, StixThreatCustomProperties {
  type: 'campaign';
  name: string;
  description?: string;
  aliases?: string[];
  first_seen?: StixTimestamp;
  last_seen?: StixTimestamp;
}

export interface StixInfrastructure extends StixCommonProperties, StixThreatCustomProperties {
  type: 'infrastructure';
  name: string;
  description?: string;
  infrastructure_types: string[];
  aliases?: string[];
  first_seen?: StixTimestamp;
  last_seen?: StixTimestamp;
}

export interface StixAttackPattern extends StixCommonProperties, StixThreatCustomProperties {
  type: 'attack-pattern';
  name: string;
  description?: string;
  aliases?: string[];
}

/** §2.8: a phase of a kill chain; ATT&CK's is `mitre-attack`, its phases the tactics. */
export interface StixKillChainPhase {
  kill_chain_name: string;
  phase_name: string;
}

/** An ATT&CK technique that threats' ttps cite (§4.1): one object per technique, shared by those threats. */
export interface StixAttackTechnique extends StixCommonProperties {
  type: 'attack-pattern';
  name: string;
  external_references: StixExternalReference[];
  kill_chain_phases?: StixKillChainPhase[];
}

export interface StixVulnerability extends StixCommonProperties, StixThreatCustomProperties {
  type: 'vulnerability';
  name: string;
  description?: string;
}

/** Every SDO a threat can become, chosen by its category (see threat-sdo-type.ts). */
export type StixThreatObject =
  | StixMalware
  | StixIntrusionSet
  | StixCampaign
  | StixInfrastructure
  | StixAttackPattern
  | StixVulnerability;

export interface StixIdentity extends StixCommonProperties {
  type: 'identity';
  name: string;
  description?: string;
  identity_class: string;
}

export interface StixRelationship extends StixCommonProperties {
  type: 'relationship';
  relationship_type: string;
  source_ref: StixIdentifier;
  target_ref: StixIdentifier;
}

/** §5.2: that an indicator was seen, how often and over what period, and by whom. */
export interface StixSighting extends StixCommonProperties {
  type: 'sighting';
  first_seen?: StixTimestamp;
  last_seen?: StixTimestamp;
  /** 0 to 999,999,999 (§5.2). */
  count?: number;
  sighting_of_ref: StixIdentifier;
  where_sighted_refs?: StixIdentifier[];
}

/** Any object the threatgate export produces. */
export type StixObject = StixIndicator | StixThreatObject | StixAttackTechnique | StixIdentity | StixRelationship | StixSighting;
