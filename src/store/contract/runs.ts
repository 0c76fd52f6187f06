// Feed health and provenance as the store keeps them (docs/interface.md section 12): one run per pull, what
// each feed's health is computed from, and the facts that say why a value is where it is.
import type { Risk, Stamp } from '../../domain.js';
import type { IndicatorRetiredReason } from './records.js';

/** What started a pull: the background schedule, `feeds pull`, or the console (admin API). */
export const RUN_TRIGGERS = ['schedule', 'command', 'console'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** How a pull ended: `not-modified` is a good pull that found the source unchanged (a 304, the same body). */
export type RunOutcome = 'ok' | 'not-modified' | 'failed';

/** Why a pull left a value out (docs/interface.md section 12.3, `rejected`): it did not parse as its type, or the allowlist keeps it out. */
export type RejectionReason = 'unparseable' | 'allowlisted';

/** Rejected values kept per run, for `why`: a feed that rejects half its list must not double the store. */
export const REJECTIONS_KEPT = 100;

/** A value a pull rejected, as the source wrote it (unparseable) or normalized (allowlisted); a few are kept per run. */
export interface RejectedValue {
  value: string;
  reason: RejectionReason;
}

/**
 * What the pull itself knows of its run, filled while the source is read: the transport's status and
 * bytes, the rows rejected. The store adds the counts it computes when it writes the run.
 */
export interface RunReport {
  trigger: RunTrigger;
  /** When the pull started, ms since the epoch. */
  started: number;
  /** The status of the upstream's last response (null: a file, or no response at all). */
  httpStatus: number | null;
  /** Body bytes read, after decompression, over every request of the pull. */
  bytes: number;
  rejected: Record<RejectionReason, number>;
  /** The first rejected values (at most REJECTIONS_KEPT a run), for `why`. */
  rejections: RejectedValue[];
}

/** One pull of a feed, as `feeds history` and `/admin/api/feeds/{fid}/runs` show it (docs/interface.md section 12.3: a contract). */
export interface FeedRun {
  run: number;
  fid: number;
  started: Stamp;
  finished: Stamp;
  /** finished - started, in seconds (0.1 s resolution). */
  seconds: number;
  trigger: RunTrigger;
  outcome: RunOutcome;
  http_status: number | null;
  bytes: number | null;
  /** Distinct values listed; null for a failed run. */
  values: number | null;
  new_indicators: number | null;
  new_links: number | null;
  /** Values the feed listed before and no longer lists (dropped or withdrawn). */
  unlisted: number | null;
  /**
   * The share (0 to 1) of the previous listing's values this pull no longer lists: `unlisted` over
   * what the feed listed before it (docs/sources.md, the sanity gate). Null for a failed run, a
   * first pull and an incremental source (taxii, misp), whose pulls list only what is new.
   */
  churn: number | null;
  rejected: Record<RejectionReason, number>;
  /** Threats the pull named (found or created). */
  threats: number | null;
  /** Why it failed, secrets masked; null unless failed. */
  error: string | null;
  etag: string | null;
  last_modified: string | null;
}

/** A run as the store writes it: the report and the counts of an ok or not-modified run, or a failure's error. */
export interface RunRecord {
  fid: number;
  report: RunReport;
  finished: number;
  outcome: RunOutcome;
  counts?: { values: number; newIndicators: number; newLinks: number; unlisted: number; churn: number | null; threats: number };
  error?: string;
  etag: string | null;
  lastModified: string | null;
}

/** A failed pull as the store records it: on the feed (its error and retry time) and as a run. */
export interface PullFailure {
  reason: string;
  /** The failure's time, `YYYY-MM-DD HH:MM:SS`, and ms since the epoch. */
  at: string;
  finished: number;
  /** When to try again (ms since the epoch). */
  nextDue: number;
  run: RunReport;
  keepRuns: number;
}

/** What a feed's health state (sources/feed-health.ts) and status line are made from, one per feed with a source or runs. */
export interface FeedHealthFacts {
  fid: number;
  feed: string;
  organization: string;
  /** The feed's schedule and its source definition (JSON); definition null when the source was removed (paused). */
  schedule: string;
  definition: string | null;
  /** The last good pull (ok or not-modified) as the feed records it, and when its listing last changed. */
  stamp_pulled: Stamp | null;
  stamp_modified: Stamp | null;
  /** Values the feed lists now (its latest good pull's listing). */
  listed: number;
  last_run: FeedRun | null;
  /** The latest run that did not fail. */
  last_good_run: FeedRun | null;
}

/** A feed that lists a value now or listed it before. */
export interface ProvenanceFeed {
  fid: number;
  feed: string;
  organization: string;
  listed_now: boolean;
  /** When the feed first linked the value (its first listing, or the import that linked it). */
  first_listed: Stamp;
  /** Its latest good pull while it lists the value; the last pull that listed it otherwise (null: linked by an import, never pulled). */
  last_listed: Stamp | null;
  /** The risk this feed gives (gave) the value; null for a link an import made. */
  risk: Risk | null;
  /** `pull` when pulls listed it, `import` when an import file linked it. */
  linked_by: 'pull' | 'import';
}

/** A threat a value is linked to, and what linked it. */
export interface ProvenanceThreat {
  tid: number;
  name: string;
  retired: boolean;
  stamp_linked: Stamp;
  /** The feed whose pull made the link; null when an import file did. */
  linked_by: { fid: number; feed: string } | null;
}

/** The last time a pull rejected the value. */
export interface ProvenanceRejection {
  fid: number;
  feed: string;
  at: Stamp;
  reason: RejectionReason;
}

/** What the store knows of one value (docs/interface.md section 12.4); the allowlist's part is the caller's. */
export interface ValueFacts {
  indicator: {
    iid: number;
    type: string;
    value: string;
    risk: Risk;
    retired: boolean;
    retired_reason: IndicatorRetiredReason | null;
    stamp_retired: Stamp | null;
    stamp_added: Stamp | null;
    stamp_seen: Stamp | null;
  } | null;
  feeds: ProvenanceFeed[];
  threats: ProvenanceThreat[];
  rejection: ProvenanceRejection | null;
  /** Collections whose STIX objects hold the indicator now (not revoked), by id. */
  collections: string[];
}
