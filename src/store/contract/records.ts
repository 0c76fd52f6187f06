// What the store hands back to the application: domain records with their computed aggregates.
import type { Feed, JsonObject, Risk, Stamp, Threat } from '../../domain.js';

/** Counts per risk level plus `total` (spec 2.3). */
export type RiskCounts = Record<Risk | 'total', number>;

/** Value -> count, per attribute key (technology, hosttype, protocol, port). */
export type AttributeCounts = Record<string, Record<string, number>>;

export interface ThreatFeedSummary {
  fid: number;
  organization: string;
  name: string;
  pricing: string;
  category: string;
  indicators: number;
}

export interface ThreatSummary {
  updated_last_domain: Stamp | null;
  attributes: AttributeCounts;
  properties: JsonObject;
  feeds: ThreatFeedSummary[];
  risk: RiskCounts;
}

export interface FeedThreatSummary {
  indicators: number;
  tid: number;
  category: string;
  stamp_updated: Stamp | null;
  risk: Risk;
  name: string;
}

export interface FeedSummary {
  properties: JsonObject;
  attributes: AttributeCounts;
  threats: FeedThreatSummary[];
  risk: RiskCounts;
}

export interface ThreatRecord extends Threat {
  updated_last_domain: Stamp | null;
  summary: ThreatSummary;
}

export interface FeedRecord extends Feed {
  indicators: RiskCounts;
  summary: FeedSummary;
}

export interface RelatedThreat {
  tid: number;
  name: string;
  category: string;
  risk: Risk;
  stamp_updated: Stamp | null;
}

export interface LinkedIndicator {
  iid: number;
  indicator: string;
  type: string;
  risk: Risk;
  stamp_linked: Stamp;
  properties: JsonObject;
}

/** Which paginated link list: a feed's or a threat's. */
export type LinkOwner = { kind: 'feed'; fid: number } | { kind: 'threat'; tid: number };

export interface LinksPage {
  rows: LinkedIndicator[];
  /** True when at least one link lies beyond this page. */
  more: boolean;
  /** True when the owner (feed or threat) exists. */
  found: boolean;
}

export interface ApiKeyRecord {
  id: string;
  plan: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}
