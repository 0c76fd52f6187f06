// Observations (docs/observations.md): a sighting ("Seen": someone met a value or a threat in their
// network) and a submission for analysis (`analyze.php`). Both are kept as rows of their own, and
// each of a known indicator or threat counts as an observation of it, as a pull's listing does.
// This file imports nothing else of the store: the application reads it, the store implements it.
import { ThreatgateError } from '../../errors.js';
import type { Stamp } from '../../domain.js';

/** What a sighting is of: a stored indicator, or a threat sighted directly. */
export type SightingTarget = { iid: number } | { tid: number };

/** Who reported an observation: an API key (its id and label), or the command line (`keyId` null). */
export interface Reporter {
  keyId: string | null;
  /** The key's label, or `command line`. */
  label: string | null;
}

/** A sighting as a reporter gives it (WriteCommand `sighting`). Stamps are `YYYY-MM-DD HH:MM:SS`, UTC. */
export interface SightingPlan {
  target: SightingTarget;
  by: Reporter;
  /** When it was reported: the write's time. */
  reportedAt: string;
  /** When it was seen (`--at`, `at`); the reporter's default is `reportedAt`. Never after it. */
  seenAt: string;
  /** How many times it was seen then, 1 or more. */
  count: number;
  /** The reporter's note (a case, an alert), or null. */
  note: string | null;
}

/** A stored sighting, as the lookups, `why` and the console show it. */
export interface SightingRecord {
  /** Increasing: newer sightings have higher ids. */
  id: number;
  iid: number | null;
  tid: number | null;
  reported_by: string | null;
  reported_by_label: string | null;
  reported_at: Stamp;
  seen_at: Stamp;
  count: number;
  note: string | null;
}

/** A value submitted for analysis (WriteCommand `submission`). */
export interface SubmissionPlan {
  /** The submitting key's id: only it may read the submission back. */
  keyId: string;
  /** The value as submitted (decoded, trimmed), and its normalized form and type when it has one. */
  value: string;
  type: string | null;
  /** The stored indicator of the value when it is known; null: unknown, and no indicator is created. */
  iid: number | null;
  at: string;
}

/** A stored submission: `qid` is its number, answered to the key that made it. */
export interface SubmissionRecord {
  qid: number;
  key_id: string;
  value: string;
  type: string | null;
  iid: number | null;
  submitted_at: Stamp;
}

/** What an indicator's or a threat's sightings add up to, kept as they arrive (never counted over all rows). */
export interface ObservationCounts {
  /** The sum of the sightings' counts. */
  sightings: number;
  /** The latest `seen_at` of its sightings, null when it has none. */
  stamp_sighted: Stamp | null;
  /** Distinct keys that submitted it for analysis (indicators only; 0 for threats). */
  submissions: number;
}

/** A sighting of an iid or a tid the store does not have: refused, nothing written. */
export class SightingRefused extends ThreatgateError {}
