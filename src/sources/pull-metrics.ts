// What the background pulls tell the metrics (DESIGN 9): each feed's last good pull and schedule as
// the store has them, and the time the imports of pulls and lifecycle runs take.
import type { BackgroundEvent, FeedState, ImportKind } from '../metrics/metrics.js';
import type { Store } from '../store/store.js';
import { nextRun, parseSchedule, scheduleFromFeed, type Schedule } from './schedule.js';
import { parseSource } from './source-definition.js';

/** Where the background work's events go: the registry's process, directly or by a thread message. */
export type ReportMetric = (event: BackgroundEvent) => void;

/** Seconds since the epoch of a store stamp (`YYYY-MM-DD HH:MM:SS`, UTC). */
export function stampSeconds(stamp: string): number | null {
  const ms = Date.parse(`${stamp.replace(' ', 'T')}Z`);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/** The gap between two scheduled pulls: N for `every N`, else between the cron's next two runs. */
export function scheduleSeconds(schedule: Schedule, now: number): number {
  if (schedule.kind === 'interval') return schedule.seconds;
  const first = nextRun(schedule, new Date(now));
  return (nextRun(schedule, first).getTime() - first.getTime()) / 1000;
}

/** The schedule a pull of this feed follows: its source's own, else the feed's (as pullFeed reads them). */
function scheduleOf(definition: string, feedSchedule: string): Schedule | null {
  try {
    const source = parseSource(JSON.parse(definition));
    return source.schedule === undefined ? scheduleFromFeed(feedSchedule) : parseSchedule(source.schedule);
  } catch {
    // A definition that no longer parses fails its pulls, which the pull counter shows.
    return null;
  }
}

/** Every pulled feed's last good pull and schedule, read from the store. */
export async function readFeedStates(store: Store, now: number): Promise<FeedState[]> {
  return (await store.listFeedSources()).map((source) => {
    const schedule = scheduleOf(source.definition, source.schedule);
    return {
      fid: source.fid,
      lastSuccess: source.stamp_pulled === null ? null : stampSeconds(source.stamp_pulled),
      scheduleSeconds: schedule === null ? null : scheduleSeconds(schedule, now),
    };
  });
}

/**
 * The store with its writes timed: each one that commits is reported as `of` (a pull, a lifecycle
 * run) with its wall time. Every other member is the store's own, through the prototype.
 */
export function timingImports(store: Store, of: ImportKind, report: ReportMetric): Store {
  const timed = Object.create(store) as Store;
  timed.applyWrite = async (command, batches, clock, options) => {
    const started = performance.now();
    const summary = await store.applyWrite(command, batches, clock, options);
    report({ kind: 'import', of, seconds: (performance.now() - started) / 1000 });
    return summary;
  };
  return timed;
}
