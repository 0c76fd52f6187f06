// Table types of the store, shared by the SQLite and PostgreSQL dialects (Kysely).
import type { Generated } from 'kysely';

/** JSON documents are kept as text so that both dialects store them the same way. */
type JsonText = string;

export interface ThreatTable {
  tid: number;
  name: string;
  category: string;
  risk: string;
  description: string | null;
  notes: string | null;
  wikisummary: string | null;
  wikireference: string | null;
  /** 1, 0 or null (spec 2.1 allows null). */
  retired: number | null;
  stamp_added: string | null;
  stamp_updated: string | null;
  stamp_seen: string | null;
  stamp_retired: string | null;
  othernames: JsonText;
  attributes: JsonText;
  ttps: JsonText;
  news: JsonText;
  comments: JsonText;
  related: JsonText;
  /** SHA-256 of the imported record: equal hash, nothing to write (idempotent import). */
  content_hash: string;
  /** Aggregates computed from links and indicators after each import. */
  summary: JsonText;
  updated_last_domain: string | null;
  /** Reactivations after a published retirement: the STIX ids count it (lifecycle-migration.ts). */
  stix_generation: Generated<number>;
  /** Its direct sightings: the sum of their counts and the latest seen (observation-migration.ts). */
  sightings: Generated<number>;
  stamp_sighted: Generated<string | null>;
}

export interface ThreatNameTable {
  /** Lower-cased name or other name. */
  name_key: string;
  tid: number;
}

export interface FeedTable {
  fid: number;
  name: string;
  organization: string;
  name_key: string;
  organization_key: string;
  category: string;
  pricing: string;
  contact: JsonText;
  website: string;
  schedule: string;
  stamp_added: string | null;
  stamp_updated: string | null;
  stamp_pulled: string | null;
  stamp_modified: string | null;
  description: string;
  accesslink: string;
  content_hash: string;
  /** Risk counts of the linked indicators (spec 2.3), computed. */
  indicators: JsonText;
  summary: JsonText;
}

export interface IndicatorTable {
  iid: number;
  value: string;
  type: string;
  risk: string;
  stamp_added: string | null;
  stamp_updated: string | null;
  stamp_seen: string | null;
  retired: number | null;
  attributes: JsonText;
  properties: JsonText;
  content_hash: string;
  /** The last time a pull listed it; null when no pull ever did (lifecycle-migration.ts). */
  stamp_listed: Generated<string | null>;
  /** What retired it, `aged-out` or `upstream`, and when; null while it is listed (retirement-migration.ts). */
  retired_reason: Generated<string | null>;
  stamp_retired: Generated<string | null>;
  /** Its sightings: the sum of their counts, the earliest and latest seen; and the distinct keys that submitted it (observation-migration.ts). */
  sightings: Generated<number>;
  stamp_first_sighted: Generated<string | null>;
  stamp_sighted: Generated<string | null>;
  submissions: Generated<number>;
}

/** An indicator pulls listed that no source lists now, not retired, and when a pull last listed it (unlisted-migration.ts). */
export interface UnlistedIndicatorTable {
  iid: number;
  stamp_unlisted: string;
}

/** A feed whose latest pull read its whole list, and when (listing-stamps-migration.ts). */
export interface ListingStampTable {
  fid: number;
  stamp_listed: string;
}

export interface FeedLinkTable {
  fid: number;
  iid: number;
  stamp_linked: string;
  /** 0-based rank of the link within its feed by iid: page N is the range [N*size, (N+1)*size). */
  seq: number;
}

export interface ThreatLinkTable {
  tid: number;
  iid: number;
  stamp_linked: string;
  seq: number;
}

export interface ApiKeyTable {
  id: string;
  /** SHA-256 (hex) of the key; the key itself is never stored. */
  hash: string;
  plan: string;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
  /** 1: a key of no plan, for the admin API and the console only (health-migration.ts). */
  admin: Generated<number>;
}

export interface StixObjectTable {
  /** STIX id, e.g. `indicator--<uuid>`. Only the latest version of an object is kept. */
  id: string;
  type: string;
  /** STIX `modified` of the stored version (millisecond RFC 3339). */
  modified: string;
  /** When this version was recorded, in microseconds since the epoch (unique, increasing). */
  date_added: number;
  /** The serialized STIX object. */
  body: JsonText;
  /** The records the object comes from (null where not applicable), for collection views. */
  iid: number | null;
  tid: number | null;
  /** SHA-256 of the object without `modified`: equal hash, same version. */
  source_hash: string;
  /** 1 for the final, revoked version of an object that left the export (its body is stored). */
  revoked: Generated<number>;
}

export interface CollectionObjectTable {
  collection: string;
  id: string;
  type: string;
  modified: string;
  /** TAXII date_added of the object in this collection (microseconds since the epoch). */
  date_added: number;
}

/** A feed's source definition (docs/sources.md) and the state of its pulls; the feed row holds stamp_pulled. */
export interface FeedSourceTable {
  fid: number;
  /** The source object as configured (`${env:NAME}` kept), JSON. */
  definition: JsonText;
  stamp_added: string;
  stamp_updated: string;
  /** `ETag` and `Last-Modified` of the previous pull, sent back as `If-None-Match`/`If-Modified-Since`. */
  etag: string | null;
  last_modified: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** Consecutive failed pulls: the retry backoff doubles with each. */
  failures: Generated<number>;
  /** Milliseconds since the epoch; null: due at once. */
  next_due: number | null;
  /** The tids the latest pull saw, JSON: a 304 sees them again. */
  seen_threats: Generated<string>;
  /** Where the next pull of a structured source resumes (pull-migration.ts). */
  cursor: string | null;
  /** SHA-256 of the body the latest pull read (pull-migration.ts). */
  body_hash: string | null;
  /** The instance pulling the feed now, and until when its lease holds (milliseconds since the epoch). */
  lease_owner: string | null;
  lease_until: number | null;
  /** When the holder took the lease (ms since the epoch); renewals keep it. */
  lease_since: number | null;
  /** An operator's "Pull now" waiting for the puller: when (ms since the epoch) and by which admin key (pull-request-migration.ts). */
  pull_requested_at: Generated<number | null>;
  pull_requested_by: Generated<string | null>;
}

/** What each feed's latest successful pull listed, with the risk it gave (a rank, RISK_RANKS in pull-writer.ts). */
export interface SourceListingTable {
  fid: number;
  iid: number;
  risk: number;
}

/**
 * Every value's count of a feed or threat (value-counts.ts): risk buckets, attribute values and
 * scalar property values, each count above 0. The summaries show the most frequent ones.
 */
export interface OwnerValueCountTable {
  /** 0 feed, 1 threat (LINK_KIND). */
  kind: number;
  owner: number;
  /** 0 risk bucket, 1 attribute value, 2 property value (FACET in aggregates.ts). */
  facet: number;
  /** The attribute or property key; '' for a risk bucket. */
  name: string;
  value: string;
  count: number;
}

/** A threat's ATT&CK technique as the STIX export publishes it (technique-migration.ts). */
export interface ThreatTechniqueTable {
  tid: number;
  /** Upper-case technique id (T1566.001). */
  technique: string;
  /** The first name the threat's ttps give it, if any. */
  name: string | null;
  /** Phase names of its tactics, sorted, JSON. */
  tactics: JsonText;
  /** The STIX id of the technique's attack-pattern. */
  attack_pattern: string;
  /** 1 while the threat's ttps cite it; 0 once they no longer do (its relationship revoked). */
  active: number;
  /** Times the threat dropped it: a new id for its relationship when cited again. */
  round: Generated<number>;
}

/** A lease that is not a feed's (the lifecycle run): one instance holds it until `until` (ms since the epoch). */
export interface LeaseTable {
  name: string;
  owner: string;
  until: number;
}

/** One pull of a feed (health-migration.ts); counts null for a failed run. */
export interface FeedRunTable {
  run: Generated<number>;
  fid: number;
  started_ms: number;
  finished_ms: number;
  run_trigger: string;
  outcome: string;
  http_status: number | null;
  bytes: number | null;
  value_count: number | null;
  new_indicators: number | null;
  new_links: number | null;
  unlisted: number | null;
  /** The share of the previous listing the pull no longer lists (churn-migration.ts). */
  churn: number | null;
  rejected_unparseable: number;
  rejected_allowlisted: number;
  threats: number | null;
  error: string | null;
  etag: string | null;
  last_modified: string | null;
}

/** A value a feed listed and no longer lists: the last pull that listed it and the risk it gave (a rank). */
export interface PastListingTable {
  fid: number;
  iid: number;
  last_listed: string;
  risk: number;
}

/** The feed whose pull made a threat link. */
export interface ThreatLinkSourceTable {
  iid: number;
  tid: number;
  fid: number;
}

/** A value a pull rejected (as written, or normalized when allowlisted), the latest time per feed. */
export interface PullRejectionTable {
  value: string;
  fid: number;
  reason: string;
  at: string;
  run: number;
}

/** An allowlist entry added at run time (allowlist-migration.ts). */
export interface AllowlistEntryTable {
  entry: string;
  reason: string;
  added_by: string;
  added_at: string;
}

/** A signed-in console session (console-migration.ts): the hash of its id, its admin key's hash, when it ends (ms since the epoch). */
export interface ConsoleSessionTable {
  sid_hash: string;
  key_hash: string;
  created_at: string;
  expires_ms: number;
}

/** An stored address or block as its first and last address (search-migration.ts, ip-range.ts). */
export interface IndicatorNetworkTable {
  iid: number;
  lo: string;
  hi: string;
}

/** One value of one attribute of an indicator, lowercased (search-migration.ts). */
export interface IndicatorAttributeValueTable {
  name: string;
  value: string;
  iid: number;
}

/** A sighting of an indicator or of a threat (observation-migration.ts); `reported_by` null: the command line. */
export interface SightingTable {
  id: Generated<number>;
  iid: number | null;
  tid: number | null;
  reported_by: string | null;
  reported_by_label: string | null;
  reported_at: string;
  seen_at: string;
  count: number;
  note: string | null;
}

/** A value submitted for analysis (observation-migration.ts); `iid` null: a value the store does not know. */
export interface SubmissionTable {
  qid: Generated<number>;
  key_id: string;
  value: string;
  type: string | null;
  iid: number | null;
  submitted_at: string;
}

export interface MetaTable {
  key: string;
  value: string;
}

export interface Database {
  threats: ThreatTable;
  threat_names: ThreatNameTable;
  feeds: FeedTable;
  indicators: IndicatorTable;
  unlisted_indicators: UnlistedIndicatorTable;
  feed_links: FeedLinkTable;
  threat_links: ThreatLinkTable;
  api_keys: ApiKeyTable;
  stix_objects: StixObjectTable;
  collection_objects: CollectionObjectTable;
  feed_sources: FeedSourceTable;
  source_listings: SourceListingTable;
  listing_stamps: ListingStampTable;
  leases: LeaseTable;
  owner_value_counts: OwnerValueCountTable;
  threat_techniques: ThreatTechniqueTable;
  feed_runs: FeedRunTable;
  past_listings: PastListingTable;
  threat_link_sources: ThreatLinkSourceTable;
  pull_rejections: PullRejectionTable;
  allowlist_entries: AllowlistEntryTable;
  console_sessions: ConsoleSessionTable;
  indicator_networks: IndicatorNetworkTable;
  indicator_attribute_values: IndicatorAttributeValueTable;
  sightings: SightingTable;
  submissions: SubmissionTable;
  meta: MetaTable;
}

