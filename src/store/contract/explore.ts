// What an explore query asks of the store (docs/explore.md): a tree of filters, each answered
// through an index of its own, already checked and normalized by the query's reader
// (explore/explore-filters.ts), and the page of rows to return.

/** A stamp compared as the store keeps stamps: `YYYY-MM-DD HH:MM:SS`, UTC, as text. */
export type StampOp = '=' | '>' | '>=' | '<' | '<=';

/** A whole number compared: an observation counter (docs/observations.md); `!=` is a `not` of `=`. */
export type CountOp = StampOp;

/**
 * A text match: `exact` values (already lowercased where the store's column is, compared as they
 * are), or a `like` pattern: `%` for each `*` the user wrote, the user's own `%`, `_` and `\`
 * escaped with `\`, lowercased, at least three characters in a row that are not wildcards.
 */
export type TextMatch = { exact: string } | { like: string };

/** An IPv4 or IPv6 block as the bounds of its addresses: `family` then the address as fixed-width hex. */
export interface NetworkRange {
  /** `4` + 8 hex digits or `6` + 32 hex digits, the block's first address. */
  lo: string;
  /** The same for its last address. */
  hi: string;
}

/** In both trees an `and` of no filters matches every row, an `or` of none no row. */
export type IndicatorFilter =
  | { kind: 'and' | 'or'; filters: IndicatorFilter[] }
  | { kind: 'not'; filter: IndicatorFilter }
  /** The stored value: one of `values` (normalized, and as given) under one of `types`, when given. */
  | { kind: 'value'; values: string[]; types?: readonly string[] }
  /** The stored value, lowercased, LIKE `like` (TextMatch). */
  | { kind: 'value-like'; like: string }
  /** Addresses and blocks wholly inside `range` (stored ip, ipv4, ipv6 and cidr values). */
  | { kind: 'inside'; range: NetworkRange }
  /** Stored address blocks wider than one address (`198.51.100.0/24`, whatever type stored them). */
  | { kind: 'blocks' }
  | { kind: 'type'; types: readonly string[] }
  | { kind: 'risk'; risks: readonly string[] }
  | { kind: 'stamp'; column: 'stamp_added' | 'stamp_seen' | 'stamp_updated' | 'stamp_retired'; op: StampOp; at: string }
  /** The latest sighting's time: indicators never sighted have none and match no comparison. */
  | { kind: 'sighted'; op: StampOp; at: string }
  /** The sum of its sightings' counts, or the distinct keys that submitted it. */
  | { kind: 'count'; column: 'sightings' | 'submissions'; op: CountOp; value: number }
  /** Linked to a threat whose name or other name (lowercased) matches. */
  | { kind: 'threat'; name: TextMatch }
  /** Listed by (linked to) a feed whose name (lowercased) matches. */
  | { kind: 'feed'; name: TextMatch }
  /** An attribute `name` (as stored; null: any attribute) with a value (lowercased) that matches. */
  | { kind: 'attribute'; name: string | null; value: TextMatch };

export type ThreatFilter =
  | { kind: 'and' | 'or'; filters: ThreatFilter[] }
  | { kind: 'not'; filter: ThreatFilter }
  /** The name or an other name (lowercased) matches. */
  | { kind: 'threat'; name: TextMatch }
  /** The category, lowercased, is one of these. */
  | { kind: 'category'; categories: readonly string[] }
  | { kind: 'risk'; risks: readonly string[] }
  | { kind: 'stamp'; column: 'stamp_added' | 'stamp_seen' | 'stamp_sighted'; op: StampOp; at: string }
  /** The sum of its direct sightings' counts. */
  | { kind: 'count'; column: 'sightings'; op: CountOp; value: number }
  | { kind: 'retired'; retired: boolean }
  /** Cites an ATT&CK technique: `T1059` exactly, and with `subtechniques` also `T1059.001` and the like. */
  | { kind: 'ttp'; technique: string; subtechniques: boolean }
  /** Linked to an indicator that a feed whose name (lowercased) matches lists. */
  | { kind: 'feed'; name: TextMatch };

/** Feeds (search.php's `search=feed`): by name and category; the store holds few, so these need no index. */
export interface FeedFilter {
  /** The name, lowercased, matches; null: any name. */
  name: TextMatch | null;
  /** The category, lowercased, is one of these; null: any category. */
  categories: readonly string[] | null;
}

export type ExploreQuery =
  | { mode: 'indicators'; filter: IndicatorFilter; offset: number; limit: number; maxMillis: number }
  | { mode: 'threats'; filter: ThreatFilter; offset: number; limit: number; maxMillis: number }
  | { mode: 'feeds'; filter: FeedFilter; offset: number; limit: number; maxMillis: number };

/** An indicator as explore lists it: names of its threats and feeds, at most ten of each. */
export interface ExploreIndicatorRow {
  iid: number;
  indicator: string;
  type: string;
  risk: string;
  stamp_added: string | null;
  stamp_updated: string | null;
  stamp_seen: string | null;
  stamp_retired: string | null;
  threats: string[];
  feeds: string[];
}

export interface ExploreThreatRow {
  tid: number;
  threat: string;
  category: string;
  risk: string;
  othernames: string[];
  stamp_added: string | null;
  stamp_seen: string | null;
  /** As threat.php gives it: true, false, or null when never set. */
  retired: boolean | null;
  /** How many indicators are linked to it. */
  indicators: number;
}

export interface ExploreFeedRow {
  fid: number;
  feed: string;
  organization: string;
  category: string;
  pricing: string;
  stamp_added: string | null;
  stamp_pulled: string | null;
  /** How many indicators it lists (links). */
  indicators: number;
}

/**
 * A page of rows, newest first (iid, tid or fid descending), and whether more follow it. A query still
 * running after its `maxMillis` is stopped: `timedOut`, and no rows.
 */
export type ExploreResult =
  | { mode: 'indicators'; rows: ExploreIndicatorRow[]; more: boolean; timedOut?: false }
  | { mode: 'threats'; rows: ExploreThreatRow[]; more: boolean; timedOut?: false }
  | { mode: 'feeds'; rows: ExploreFeedRow[]; more: boolean; timedOut?: false }
  | { timedOut: true };

/** The most names of threats and feeds an explore row carries. */
export const EXPLORE_NAMES_PER_ROW = 10;
