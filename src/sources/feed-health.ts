// The health of a source feed (docs/interface.md section 12.1): its state, decided by one pure function from its
// runs, stamps and schedule, and the status row `feeds status` and GET /admin/api/feeds show.
import { formatStamp } from '../clock.js';
import type { Stamp } from '../domain.js';
import type { FeedHealthFacts, FeedRun } from '../store/contract/runs.js';
import { nextRun, parseSchedule, scheduleFromFeed, type Schedule } from './schedule.js';
import { parseSource } from './source-definition.js';

export type FeedHealthState = 'ok' | 'failing' | 'stale' | 'quiet-upstream' | 'never-pulled' | 'paused';

/** Every state, in the order they are decided. */
export const FEED_HEALTH_STATES: readonly FeedHealthState[] = ['paused', 'never-pulled', 'failing', 'stale', 'quiet-upstream', 'ok'];

/** How long an unchanged upstream may stay so before it is `quiet-upstream`, unless the config says otherwise (`health.quietDays`). */
export const DEFAULT_QUIET_DAYS = 14;

export interface FeedHealthSettings {
  /** Config `health.quietDays`. */
  quietDays: number;
}

const DAY_MS = 86_400_000;

/** What the state is decided from, in plain numbers: times in ms since the epoch. */
export interface FeedHealthInput {
  /** The feed still has a source; false once `feeds remove` took it away. */
  hasSource: boolean;
  /** How its latest run ended; null when no run is recorded. */
  lastRun: 'good' | 'failed' | null;
  /** The feed's `stamp_pulled`: its last good pull, also for pulls made before runs were recorded. */
  stampPulled: number | null;
  /** When the latest good (ok or not-modified) run started. */
  lastGoodRun: number | null;
  /** The feed's `stamp_modified`: when a pull last added or changed something. */
  stampModified: number | null;
  /** The time between two scheduled pulls, in seconds; null when the definition no longer parses. */
  scheduleSeconds: number | null;
}

/** The last good pull: the later of `stamp_pulled` and the latest good run. */
export function lastGoodPull(input: Pick<FeedHealthInput, 'stampPulled' | 'lastGoodRun'>): number | null {
  if (input.stampPulled === null) return input.lastGoodRun;
  return input.lastGoodRun === null ? input.stampPulled : Math.max(input.stampPulled, input.lastGoodRun);
}

/**
 * A feed's state, the first that holds in the order of docs/interface.md section 12.1: `paused` (no source), `never-pulled`,
 * `failing` (its last run failed), `stale` (no good pull for more than two schedule periods),
 * `quiet-upstream` (good pulls, but nothing changed for more than `quietDays`), else `ok`.
 * Two periods of a daily or slower schedule are at least the two days that section asks for then.
 * A feed whose pulls never changed anything (`stamp_modified` null) is not called quiet: there is
 * no date to be quiet since, and a good pull of an empty list is not an upstream gone silent.
 */
export function feedHealthState(input: FeedHealthInput, settings: FeedHealthSettings, now: number): FeedHealthState {
  if (!input.hasSource) return 'paused';
  const good = lastGoodPull(input);
  if (input.lastRun === null && good === null) return 'never-pulled';
  if (input.lastRun === 'failed') return 'failing';
  if (good === null || (input.scheduleSeconds !== null && now - good > 2 * input.scheduleSeconds * 1000)) return 'stale';
  if (input.stampModified !== null && now - input.stampModified > settings.quietDays * DAY_MS) return 'quiet-upstream';
  return 'ok';
}

/** Seconds since the epoch of a store stamp (`YYYY-MM-DD HH:MM:SS`, UTC). */
export function stampSeconds(stamp: string): number | null {
  const ms = Date.parse(`${stamp.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

const stampMs = (stamp: Stamp | null): number | null => {
  const seconds = stamp === null ? null : stampSeconds(stamp);
  return seconds === null ? null : seconds * 1000;
};

/** The gap between two scheduled pulls: N for `every N`, else between the cron's next two runs. */
export function scheduleSeconds(schedule: Schedule, now: number): number {
  if (schedule.kind === 'interval') return schedule.seconds;
  const first = nextRun(schedule, new Date(now));
  return (nextRun(schedule, first).getTime() - first.getTime()) / 1000;
}

/** The schedule a pull of this feed follows: its source's own, else the feed's (as pullFeed reads them). */
export function scheduleOf(definition: string, feedSchedule: string): Schedule | null {
  try {
    const source = parseSource(JSON.parse(definition));
    return source.schedule === undefined ? scheduleFromFeed(feedSchedule) : parseSchedule(source.schedule);
  } catch {
    // A definition that no longer parses fails its pulls, which the runs and the pull counter show.
    return null;
  }
}

/** A feed's health as the status row and the state gauge both read it. */
export interface FeedHealth {
  state: FeedHealthState;
  /** The schedule its pulls follow (null: paused, or the definition no longer parses) and its period in seconds. */
  schedule: Schedule | null;
  scheduleSeconds: number | null;
  /** The last good pull, ms since the epoch. */
  lastGoodPull: number | null;
}

export function feedHealth(facts: FeedHealthFacts, settings: FeedHealthSettings, now: number): FeedHealth {
  const schedule = facts.definition === null ? null : scheduleOf(facts.definition, facts.schedule);
  const input: FeedHealthInput = {
    hasSource: facts.definition !== null,
    lastRun: facts.last_run === null ? null : facts.last_run.outcome === 'failed' ? 'failed' : 'good',
    stampPulled: stampMs(facts.stamp_pulled),
    lastGoodRun: stampMs(facts.last_good_run?.started ?? null),
    stampModified: stampMs(facts.stamp_modified),
    scheduleSeconds: schedule === null ? null : scheduleSeconds(schedule, now),
  };
  return { state: feedHealthState(input, settings, now), schedule, scheduleSeconds: input.scheduleSeconds, lastGoodPull: lastGoodPull(input) };
}

/** One feed in `feeds status --json` and GET /admin/api/feeds (a contract: docs/interface.md section 12.2). */
export interface FeedStatus {
  fid: number;
  feed: string;
  organization: string;
  state: FeedHealthState;
  /** The schedule its pulls follow, as parsed (`daily`, `every 6h`, a cron), else as the feed records it. */
  schedule: string;
  last_good_pull: Stamp | null;
  last_good_pull_age_seconds: number | null;
  last_run: FeedRun | null;
  /** Values the feed lists now. */
  values: number;
  /** New indicators of the last run (null: none yet, or it failed). */
  new_in_last_run: number | null;
  /**
   * The churn of the latest good run (FeedRun `churn`): the share of the listing before it that the
   * listing now no longer holds; a refused pull's reason says what it would have replaced.
   */
  churn: number | null;
  /** Why the last run failed; null unless it did. */
  last_error: string | null;
  stamp_modified: Stamp | null;
}

/** The status rows of the feeds the store reports, in its order (ascending fid). */
export function feedStatuses(facts: readonly FeedHealthFacts[], settings: FeedHealthSettings, now: number): FeedStatus[] {
  return facts.map((feed) => {
    const health = feedHealth(feed, settings, now);
    const good = health.lastGoodPull;
    return {
      fid: feed.fid,
      feed: feed.feed,
      organization: feed.organization,
      state: health.state,
      schedule: health.schedule?.text ?? feed.schedule,
      last_good_pull: good === null ? null : formatStamp(good),
      // A stamp ahead of this clock (another instance's) is no pull from the future: age 0.
      last_good_pull_age_seconds: good === null ? null : Math.max(0, Math.floor((now - good) / 1000)),
      last_run: feed.last_run,
      values: feed.listed,
      new_in_last_run: feed.last_run?.new_indicators ?? null,
      churn: feed.last_good_run?.churn ?? null,
      last_error: feed.last_run?.outcome === 'failed' ? feed.last_run.error : null,
      stamp_modified: feed.stamp_modified,
    };
  });
}
