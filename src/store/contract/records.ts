// What the store hands back to the application: domain records with their computed aggregates.
import type { CollectionConfig, CollectionFilter } from '../../config.js';
import type { Feed, IndicatorAttributes, JsonObject, Risk, Stamp, Threat } from '../../domain.js';

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
  /** '' for an admin key. */
  plan: string;
  /** A key of no plan that opens only the admin API and the console (docs/interface.md section 7.4). */
  admin: boolean;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** A feed's source as `feeds list` shows it: the feed's names and pull times, the definition, the linked count. */
export interface FeedSourceListing {
  fid: number;
  feed: string;
  organization: string;
  schedule: string;
  stamp_pulled: string | null;
  /** The source object as configured, JSON (`${env:NAME}` kept). */
  definition: string;
  last_error: string | null;
  last_error_at: string | null;
  /** Indicators linked to the feed. */
  linked: number;
  /** The pull lease as stored (it may have lapsed): who pulls the feed now, since and until when. */
  lease: PullLease | undefined;
}

/** What a pull reads of its feed before it starts: the definition, the names, the validators of the previous pull. */
export interface FeedSourceState {
  fid: number;
  feed: string;
  organization: string;
  schedule: string;
  definition: string;
  etag: string | null;
  last_modified: string | null;
  failures: number;
  /** Where a structured source's next pull resumes (null: from the start). */
  cursor: string | null;
  /** The feed's last successful pull (null: never pulled). */
  stamp_pulled: string | null;
  /** SHA-256 of the body the latest pull read (one-body sources). */
  body_hash: string | null;
  /** Values the feed's latest successful pull listed (its listing now), for the sanity gate. */
  listed: number;
}

/** An operator's "Pull now" waiting for the puller: when (ms since the epoch) and by which admin key. */
export interface PullRequest {
  at: number;
  by: string | null;
}

export interface PullLease {
  owner: string;
  until: number;
  /** Null for a lease taken before leases recorded it. */
  since: number | null;
}

/** A collection as the store needs it: an unfiltered view is the whole of stix_objects. */
export type CollectionRef = Pick<CollectionConfig, 'id' | 'filter'>;

export interface ObjectListing {
  collection: CollectionRef;
  /** Only this object (Get an Object, Get Object Versions). */
  objectId?: string;
  /** Continue after this item (from a `next` token). */
  after: { dateAdded: number; id: string } | null;
  addedAfter: number | null;
  ids: string[] | null;
  types: string[] | null;
  /** `modified` values to keep (normalized, millisecond RFC 3339); null keeps the one version stored. */
  modified: string[] | null;
  limit: number;
  withBody: boolean;
}

export interface ListedObject {
  id: string;
  type: string;
  modified: string;
  dateAdded: number;
  /** The object's serialized body, as stored or rendered on read; null for a listing without bodies. */
  body: string | null;
}

/** A page of a listing. */
export interface ObjectPage {
  items: ListedObject[];
  /** Another page follows. */
  more: boolean;
  /**
   * The last object listed, where the next page starts: the last of `items`, or one after it left
   * out (`skipped`), so that an object left out cannot move a walk.
   */
  last: { dateAdded: number; id: string } | undefined;
  /**
   * Objects left out of `items` because the records they are rendered from no longer give them. A
   * page is never lost to one object; writes keep objects and records in step, so a skip is a fault
   * of the store for the caller to log and count.
   */
  skipped: string[];
}

/** One exported indicator; `threats` holds the names of its linked threats when they were asked for. */
export interface ExportRow {
  iid: number;
  value: string;
  type: string;
  risk: string;
  stamp_seen: string | null;
  threats: string[];
}

/** Which indicators an export lists: what its count counts and its pages hold. */
export interface ExportSelection {
  /** The collection's filter: the export lists what the collection's view holds. */
  filter: CollectionFilter;
  /** Only these types (stored names); undefined: every type. */
  types?: readonly string[] | undefined;
  /** Leaves out values holding a line break, which a plain-text line cannot hold. */
  singleLine?: boolean | undefined;
}

export interface ExportQuery extends ExportSelection {
  /** Reads each row's linked threat names (the CSV's `threats`); the plain list does without. */
  withThreats: boolean;
  /** Gives each row's stamp_seen its listings' stamps (the CSV's column); without it, the row's own column, which the plain list does not show. */
  withSeen?: boolean | undefined;
  /** Rows per page (default 5,000). */
  pageSize?: number | undefined;
  /**
   * At most this many rows, the first in the export's order of choice (docs/interface.md section 11: highest risk,
   * then latest stamp_seen, then value) and given in that order; undefined: every row, in ascending iid.
   */
  max?: number | undefined;
}

/** An allowlist entry added at run time (docs/interface.md section 13). */
export interface AllowlistEntry {
  entry: string;
  reason: string;
  /** The admin key's id, or `command line`. */
  added_by: string;
  /** The label of the admin key `added_by` names; null when it has none, or names no key in the store. */
  added_by_label: string | null;
  added_at: Stamp;
}

/** What an allowlist entry would retire now: how many stored indicators it covers that are not retired, and the first of them. */
export interface AllowlistPreview {
  count: number;
  sample: Array<{ iid: number; value: string; type: string }>;
}

/**
 * Why an indicator retired: the lifecycle aged it out, the source that listed it withdrew it, an
 * allowlist entry added at run time covers it, or the one feed that gave it was deleted (`feeds delete`).
 */
export type IndicatorRetiredReason = 'aged-out' | 'allowlisted' | 'upstream' | 'feed-deleted';

/** A threat an indicator is linked to, and when the link was made. */
export interface IndicatorThreat {
  tid: number;
  name: string;
  category: string;
  risk: Risk;
  stamp_linked: Stamp;
}

/** A feed that lists (or listed) an indicator, and when it first did. */
export interface IndicatorFeed {
  fid: number;
  name: string;
  category: string;
  organization: string;
  pricing: string;
  stamp_linked: Stamp;
}

/** One indicator with its links, for the indicator lookup (docs/interface.md section 4.3). */
export interface IndicatorRecord {
  iid: number;
  type: string;
  indicator: string;
  risk: Risk;
  /** Retired by its risk (`retired`, set by the lifecycle or a pull) or by an import's `retired` flag. */
  retired: boolean;
  /** Null unless the service retired it (risk `retired`) and recorded why. */
  retired_reason: IndicatorRetiredReason | null;
  stamp_added: Stamp | null;
  stamp_updated: Stamp | null;
  stamp_seen: Stamp | null;
  stamp_retired: Stamp | null;
  /** Ascending tid. */
  threats: IndicatorThreat[];
  /** Ascending fid. */
  feeds: IndicatorFeed[];
  attributes: IndicatorAttributes;
  /** Its sightings (the sum of their counts), the latest seen, and the distinct keys that submitted it (docs/observations.md). */
  sightings: number;
  stamp_sighted: Stamp | null;
  submissions: number;
}

export interface NewKeyRow {
  id: string;
  hash: string;
  plan: string;
  label: string | null;
  created_at: string;
  /** A key of no plan (plan ''), for the admin API and the console only. */
  admin?: boolean;
}

/** A session as login writes it: the hashes only, never the session id or the key. */
export interface NewConsoleSession {
  sidHash: string;
  keyHash: string;
  /** `YYYY-MM-DD HH:MM:SS`, UTC. */
  createdAt: string;
  /** When it ends, ms since the epoch. */
  expiresMs: number;
}

/** A live session: the admin key it was opened with (its id and label, never its hash) and when it ends. */
export interface ConsoleSession {
  keyId: string;
  label: string | null;
  expiresMs: number;
}
