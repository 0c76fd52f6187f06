// The store's write commands and what each gives back: a file's records, a feed pull's and a
// lifecycle run's plans, and the typed result of each. This file imports
// nothing else of the store: the application reads it, the store's writers implement it.
import { ThreatgateError } from '../../errors.js';
import type { RunReport } from './runs.js';
import type { SightingPlan, SightingRecord, SubmissionPlan, SubmissionRecord } from './observations.js';

/** Risks a source may give, lowest first: an indicator listed by several takes the highest. */
export const RISK_RANKS = ['unknown', 'none', 'low', 'medium', 'high', 'critical'] as const;
export type SourceRisk = (typeof RISK_RANKS)[number];

/** What the pull module tells the writer about the pull (WriteCommand `pull`). */
export interface PullPlan {
  fid: number;
  /** The pull's start, `YYYY-MM-DD HH:MM:SS`: every stamp the pull sets. */
  at: string;
  /**
   * The source's `threat`, linked to every value; created with this category when no threat has
   * that name or other name.
   */
  sourceThreat: { name: string; category: string } | null;
  /** The source's `risk` (`retired` read as `unknown`): the risk of the threats the pull creates (docs/feeds.md, "What a pull does with each row"). */
  sourceRisk: SourceRisk;
  /** The source answered 304 Not Modified: its latest listing is seen again, nothing else read. */
  repeat: boolean;
  /**
   * The source lists only what is new since the previous pull (a TAXII collection, a MISP feed):
   * the values it leaves out stay in its listing, and an empty pull is no outage.
   */
  incremental?: boolean;
  /** The feed's pull state after this pull: validators for the next request and when it is due. */
  etag: string | null;
  lastModified: string | null;
  nextDue: number;
  /** SHA-256 of the body read (one-body sources); undefined keeps the stored one. */
  bodyHash?: string | null;
  /** Where the next pull of a structured source resumes; undefined keeps the stored cursor. */
  cursor?: string | null;
  /** An upstream feed's descriptive fields (lookup-api): they fill the feed's empty ones. */
  describe?: { description: string; website: string; category: string; pricing: string };
  /** The pull's run (docs/interface.md section 12), filled as the source is read; the write records it with its counts. */
  run: RunReport;
  /** Runs kept per feed (config `health.keepRuns`). */
  keepRuns: number;
  /**
   * Values the feed listed when the pull began (its latest good pull's listing), for the run's churn;
   * absent for a first pull and an incremental source, whose runs have no churn.
   */
  listedBefore?: number;
  /**
   * The sanity gate's churn check (`maxChurn`, docs/sources.md): given how many of the pull's values
   * the feed lists now, once they are staged and before anything is written; throws PullRefused to
   * keep nothing. Absent when no check applies (no maxChurn, a forced or incremental pull).
   */
  checkOverlap?: (overlap: number) => void;
}

/** What a pull did, for its output line and log (docs/interface.md section 10, `feeds pull`). */
export interface PullCounts {
  /** Retired threats the pull observed: they stay retired (docs/interface.md section 3), and the pull's log line names them. */
  retiredSeen: string[];
  /** Distinct values the pull listed (after normalization and the allowlist). */
  values: number;
  /** Distinct values the source withdrew (revoked, expired, deleted, retired upstream) and did not also list. */
  withdrawn: number;
  newIndicators: number;
  /** New feed and threat links. */
  newLinks: number;
  /** Threats created for names no threat had. */
  newThreats: number;
  /** Values the feed listed before this pull and no longer lists (dropped or withdrawn). */
  unlisted: number;
  /** `unlisted` over the values the feed listed before (PullPlan `listedBefore`), 0 to 1; null without them (FeedRun `churn`). */
  churn: number | null;
  /** Threats the pull named, found or created. */
  threats: number;
}

/** A pull that must change nothing: the transaction is rolled back, the feed records the reason. */
export class PullRefused extends ThreatgateError {}

/** A lifecycle run (WriteCommand `lifecycle`): every time is a `YYYY-MM-DD HH:MM:SS` stamp. */
export interface LifecyclePlan {
  /** The run's time: the stamps it sets. */
  at: string;
  /** An active threat last observed before this retires. */
  threatCutoff: string;
  /** An indicator last listed before the cutoff of its type (else `default`), and listed by no source now, ages out. */
  indicatorCutoffs: { byType: Record<string, string>; default: string };
}

/** Staff retire or reactivate one threat (WriteCommand `threat-state`). */
export interface ThreatStatePlan {
  tid: number;
  retired: boolean;
  at: string;
}

export interface LifecycleCounts {
  /** Threats retired by this run (tid and name), in tid order. */
  retiredThreats: { tid: number; name: string }[];
  /** Indicators whose risk became `retired`. */
  agedIndicators: number;
}

export interface OwnerIds {
  feeds: number[];
  threats: number[];
}

export interface TouchedOwners {
  /**
   * Owners whose own aggregates (risk counts, attributes, properties) are computed again: from their
   * stored value counts and the indicators the import added or changed (value-counts.ts).
   */
  recompute: OwnerIds;
  /**
   * Owners whose own aggregates stand, but whose summary's list of the other kind (a feed's threats,
   * a threat's feeds, each with its shared indicator count and its record's fields) may have changed.
   */
  relist: OwnerIds;
}

/**
 * How an import's aggregates were refreshed: the whole-store pass, or only the owners it touched,
 * of which those in `read` were read again through their links (records new to the store, or owners
 * whose value counts could not be updated: value-counts.ts) and the others updated from their counts.
 */
export type AggregatePlan = { whole: true } | { whole: false; touched: TouchedOwners; read: OwnerIds };

export interface ImportCounts {
  threats: number;
  feeds: number;
  indicators: number;
  links: number;
}

export interface WriteSummary {
  /** Records read from the file. */
  read: ImportCounts;
  /** Records inserted or changed (0 everywhere on a re-import of the same file). */
  changed: ImportCounts;
  /**
   * ttps items of the threats read that carry no valid ATT&CK technique id: kept in the threat
   * (the lookup API shows them), left out of the STIX export (docs/stix-mapping.md).
   */
  skippedTtps: number;
  /** How the feed and threat aggregates were refreshed; null when nothing changed. */
  aggregates: AggregatePlan | null;
}

/**
 * Which stored indicators an allowlist entry covers (sources/allowlist.ts makes it): the store scans
 * the indicators of `types` that are not retired and tests each; an exact entry is one seek instead.
 */
export interface IndicatorCover {
  /** The one value an exact entry (a URL, an email, a hash) covers. */
  exact?: string;
  /** The stored types worth testing. */
  types: readonly string[];
  covers(value: string, type: string): boolean;
}

/** An allowlist entry added at run time (docs/interface.md section 13): kept in the store, and the stored indicators it covers retired. */
export interface AllowlistPlan {
  at: string;
  entry: string;
  reason: string;
  /** Who added it: `command line`, or the admin key's id. */
  addedBy: string;
  cover: IndicatorCover;
}

/** What adding an entry did: false when the store already had it (nothing changed). */
export interface AllowlistCounts {
  added: boolean;
  /** Indicators it retired (risk `retired`, reason `allowlisted`). */
  retired: number;
}

/** A feed deleted with what only it gave (WriteCommand `feed-delete`, ingest/feed-delete.ts). */
export interface FeedDeletePlan {
  fid: number;
  at: string;
  /** The holder of the feed's pull lease the delete runs under; null for a feed with no source (none to take). */
  leaseOwner: string | null;
}

/** What a feed delete removed, for its output line. */
export interface FeedDeleteCounts {
  feed: string;
  organization: string;
  /** Its feed links, all removed. */
  links: number;
  /** Indicators only it gave: retired (reason `feed-deleted`), their STIX objects revoked. */
  retired: number;
}

/** What deleting a feed would remove, for `feeds delete` to show before it asks. */
export interface FeedDeletePreview extends FeedDeleteCounts {
  fid: number;
  /** Whether it has a source (then the delete takes its pull lease). */
  source: boolean;
  /** Its pulls on record (docs/interface.md section 12), which go with it. */
  runs: number;
}

/** A feed delete that must change nothing (no such feed, or its pull lease is another's): rolled back, exit 1. */
export class FeedDeleteRefused extends ThreatgateError {}

/** What each kind of write carries beside its kind. */
export interface WritePlans {
  records: Record<never, never>;
  pull: { plan: PullPlan };
  lifecycle: { plan: LifecyclePlan };
  'threat-state': { plan: ThreatStatePlan };
  allowlist: { plan: AllowlistPlan };
  'feed-delete': { plan: FeedDeletePlan };
  sighting: { plan: SightingPlan };
  submission: { plan: SubmissionPlan };
}

export type WriteKind = keyof WritePlans;

/**
 * What a write is: a file's or a data set's records, a feed pull, a lifecycle run, staff retiring or
 * reactivating a threat, an allowlist entry added, a feed deleted. Records and pulls come with their
 * batches (write-batch.ts); the others need none. `WriteCommand<K>` is the command of kind K, which
 * lets the store give each kind its own result (WriteResult) without a cast.
 */
export type WriteCommand<K extends WriteKind = WriteKind> = { [P in K]: { kind: P } & WritePlans[P] }[K];

/** The write of a file's or a data set's records. */
export const RECORDS = { kind: 'records' } as const satisfies WriteCommand<'records'>;

/** What each kind of write gives back beside its summary. */
export interface WriteOutcomes {
  records: Record<never, never>;
  /** `run`: the id of the run the pull recorded (docs/sources.md). */
  pull: { pulled: PullCounts; run: number };
  lifecycle: { lifecycle: LifecycleCounts };
  'threat-state': { threatStateChanged: boolean };
  allowlist: { allowlisted: AllowlistCounts };
  'feed-delete': { feedDeleted: FeedDeleteCounts };
  /** The sighting as stored; throws SightingRefused (nothing written) when its iid or tid is not stored. */
  sighting: { sighted: SightingRecord };
  /** The submission as stored, its qid the key's to read back. */
  submission: { submitted: SubmissionRecord };
}

export type WriteResult<K extends WriteKind> = WriteSummary & WriteOutcomes[K];
