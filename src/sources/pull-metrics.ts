// What the background pulls tell the metrics (docs/deployment.md, "Metrics"; docs/interface.md section 12): each feed's state, last good pull and
// schedule as the store has them, and the time the imports of pulls and lifecycle runs take.
import type { BackgroundEvent, FeedState, ImportKind } from '../metrics/metrics.js';
import type { Store } from '../store/contract/store.js';
import { feedHealth, type FeedHealthSettings } from './feed-health.js';

/** Where the background work's events go: the registry's process, directly or by a thread message. */
export type ReportMetric = (event: BackgroundEvent) => void;

/** Every feed's state, last good pull and schedule, read from the store and judged as `feeds status` judges them. */
export async function readFeedStates(store: Store, settings: FeedHealthSettings, now: number): Promise<FeedState[]> {
  return (await store.feedHealthFacts()).map((facts) => {
    const health = feedHealth(facts, settings, now);
    return {
      fid: facts.fid,
      state: health.state,
      lastSuccess: health.lastGoodPull === null ? null : health.lastGoodPull / 1000,
      scheduleSeconds: health.scheduleSeconds,
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
