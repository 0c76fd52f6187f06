// Which STIX 2.1 SDO a threat becomes, by its category, and the threat's STIX id that follows.

import type { Threat } from '../domain.js';
import { stixIdForThreatRecord } from './stix-id.js';
import type { StixIdentifier, StixThreatObject } from './stix-types.js';

export type ThreatSdoType = StixThreatObject['type'];

export interface ThreatSdoMapping {
  type: ThreatSdoType;
  /** malware-type-ov (§10.15) value, for `malware`. */
  malwareType?: string;
  /** infrastructure-type-ov (§10.12) value, for `infrastructure`. */
  infrastructureType?: string;
}

const malware = (malwareType: string): ThreatSdoMapping => ({ type: 'malware', malwareType });
const infrastructure = (infrastructureType: string): ThreatSdoMapping => ({ type: 'infrastructure', infrastructureType });
const INTRUSION_SET: ThreatSdoMapping = { type: 'intrusion-set' };
const CAMPAIGN: ThreatSdoMapping = { type: 'campaign' };
const ATTACK_PATTERN: ThreatSdoMapping = { type: 'attack-pattern' };
const VULNERABILITY: ThreatSdoMapping = { type: 'vulnerability' };

/** Keyed by normalized category (normalizeCategory). docs/stix-mapping.md has the same table. */
const BY_CATEGORY: ReadonlyMap<string, ThreatSdoMapping> = new Map([
  // Malware families (§4.11). is_family is always true: a threat is a family, not a sample.
  ['malware', malware('unknown')],
  ['ransomware', malware('ransomware')],
  ['botnet', malware('bot')],
  ['bot', malware('bot')],
  ['trojan', malware('trojan')],
  ['banker', malware('trojan')],
  ['banking-trojan', malware('trojan')],
  ['rat', malware('remote-access-trojan')],
  ['remote-access-trojan', malware('remote-access-trojan')],
  ['stealer', malware('spyware')],
  ['infostealer', malware('spyware')],
  ['info-stealer', malware('spyware')],
  ['spyware', malware('spyware')],
  ['keylogger', malware('keylogger')],
  ['loader', malware('downloader')],
  ['downloader', malware('downloader')],
  ['dropper', malware('dropper')],
  ['backdoor', malware('backdoor')],
  ['worm', malware('worm')],
  ['virus', malware('virus')],
  ['rootkit', malware('rootkit')],
  ['wiper', malware('wiper')],
  ['webshell', malware('webshell')],
  ['adware', malware('adware')],
  ['pup', malware('unknown')],
  ['miner', malware('resource-exploitation')],
  ['coinminer', malware('resource-exploitation')],
  ['cryptominer', malware('resource-exploitation')],
  ['exploit-kit', malware('exploit-kit')],
  ['exploitkit', malware('exploit-kit')],
  // A "c2" threat is the C2 framework (Cobalt Strike, Sliver), i.e. a malware family.
  ['c2', malware('unknown')],
  // Adversary groups (§4.9): an intrusion set, since threatgate does not know the people behind.
  ['apt', INTRUSION_SET],
  ['group', INTRUSION_SET],
  ['actor', INTRUSION_SET],
  ['threat-actor', INTRUSION_SET],
  ['crime', INTRUSION_SET],
  // Coordinated activity against targets (§4.2).
  ['campaign', CAMPAIGN],
  ['phishing', CAMPAIGN],
  ['spam', CAMPAIGN],
  ['fraud', CAMPAIGN],
  ['scam', CAMPAIGN],
  ['abuse', CAMPAIGN],
  // Adversary-used systems (§4.8).
  ['scanner', infrastructure('reconnaissance')],
  ['reconnaissance', infrastructure('reconnaissance')],
  ['proxy', infrastructure('anonymization')],
  ['tor', infrastructure('anonymization')],
  ['vpn', infrastructure('anonymization')],
  ['anonymizer', infrastructure('anonymization')],
  // Kinds of attack rather than actors or tools (§4.1).
  ['attack', ATTACK_PATTERN],
  ['bruteforce', ATTACK_PATTERN],
  ['brute-force', ATTACK_PATTERN],
  ['ddos', ATTACK_PATTERN],
  // §4.19; its indicators are linked with related-to, as indicates cannot target it.
  ['vulnerability', VULNERABILITY],
]);

/**
 * Any other category (general, other, unknown, ...): a campaign, the least specific SDO that
 * still says "adversary activity", and a valid target of `indicates`.
 */
const DEFAULT_MAPPING: ThreatSdoMapping = CAMPAIGN;

/** `Exploit Kit`, `exploit_kit` and ` exploit-kit ` are one category. */
export function normalizeCategory(category: string): string {
  return category.trim().toLowerCase().replace(/[\s_]+/g, '-');
}

/** Every SDO type a threat can map to, whatever its category. */
export const THREAT_SDO_TYPES: readonly ThreatSdoType[] = [...new Set([...BY_CATEGORY.values(), DEFAULT_MAPPING].map((m) => m.type))];

export function threatSdoType(category: string): ThreatSdoMapping {
  return BY_CATEGORY.get(normalizeCategory(category)) ?? DEFAULT_MAPPING;
}

/** The STIX id of a threat: its tid, under the SDO type its category maps to, in its `generation` (stixIdForThreatRecord). */
export function stixIdForThreat(threat: Pick<Threat, 'tid' | 'category'>, generation = 0): StixIdentifier {
  return stixIdForThreatRecord(threat.tid, threatSdoType(threat.category).type, generation);
}
