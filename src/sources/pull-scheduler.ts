// The background work of `serve` (DESIGN sections 7 and 8): pulls due feeds one at a time, each under a
// lease in the store, so that of several instances sharing a database one pulls a feed at a time, and
// runs the lifecycle after each pull and at least hourly, under a lease of its own.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { runLifecycle, type LifecycleSettings } from '../lifecycle/run-lifecycle.js';
import { pullFeed, type PullDeps, type PullOutcome } from './pull-feed.js';
import { readFeedStates, timingImports, type ReportMetric } from './pull-metrics.js';

/**
 * How long a lease holds without renewal. A holder renews it while it pulls; one that dies stops
 * renewing, and the feed is free again this long after. Renewal waits behind the pull's
 * transaction on SQLite (one connection), so the lease outlasts a long write on its own.
 */
export const LEASE_MS = 5 * 60_000;
const RENEW_MS = 60_000;
/** The lifecycle runs at least this often, and after every pull. */
export const LIFECYCLE_EVERY_MS = 3_600_000;
const LIFECYCLE_LEASE = 'lifecycle';

export interface PullSchedulerOptions extends Omit<PullDeps, 'signal' | 'onProgress'> {
  /** How often the store is asked which feeds are due. */
  checkMs: number;
  /** The lifecycle (DESIGN 8) runs after each pull and at least hourly, under its own lease; absent, not at all. */
  lifecycle?: LifecycleSettings;
  /** Names this instance in leases; default: host, pid and a random part. */
  owner?: string;
  /**
   * Hears what the metrics count (DESIGN 9): each pull's outcome, the lifecycle's retirements, the
   * imports' durations, and every feed's last good pull and schedule, read from the store at the
   * first check, after checks that pulled and at least hourly. Absent, none of it is gathered.
   */
  report?: ReportMetric;
}

export interface PullScheduler {
  /** Checks for due feeds now and pulls them (also what the timer runs); resolves when done. */
  tick(): Promise<void>;
  /** Stops the timer and aborts a running pull (which then changes nothing); resolves when it has stopped. */
  stop(): Promise<void>;
}

export function startPullScheduler(options: PullSchedulerOptions): PullScheduler {
  const { store, clock, logger, report } = options;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  let stopped = false;

  /** Pulls the feed under its lease; false when another instance holds it (or it is no longer due). */
  async function pullLeased(fid: number): Promise<boolean> {
    const now = clock.now();
    if (!(await store.takePullLease(fid, owner, now, now + LEASE_MS))) return false;
    const renew = setInterval(() => {
      void store.renewPullLease(fid, owner, clock.now() + LEASE_MS).catch(() => undefined);
    }, RENEW_MS);
    const started = performance.now();
    let outcome: PullOutcome | undefined;
    try {
      outcome = await pullFeed(fid, { ...options, ...(report ? { store: timingImports(store, 'pull', report) } : {}), signal: abort.signal });
      return true;
    } finally {
      // A pull that threw (its failure could not even be recorded) failed too.
      report?.({
        kind: 'pull',
        fid,
        outcome: outcome?.ok ? (outcome.notModified ? 'not_modified' : 'ok') : 'failed',
        seconds: (performance.now() - started) / 1000,
        at: Math.floor(now / 1000),
      });
      clearInterval(renew);
      await store.releasePullLease(fid, owner).catch(() => undefined);
    }
  }

  let lastLifecycle = Number.NEGATIVE_INFINITY;

  /** One lifecycle run, by one instance at a time; its retirements are logged. */
  async function lifecycleLeased(settings: LifecycleSettings): Promise<void> {
    const now = clock.now();
    if (!(await store.takeLease(LIFECYCLE_LEASE, owner, now, now + LEASE_MS))) return;
    try {
      const counts = await runLifecycle(report ? timingImports(store, 'lifecycle', report) : store, settings, clock);
      lastLifecycle = now;
      report?.({ kind: 'retired', threats: counts.retiredThreats.length, indicators: counts.agedIndicators });
      if (counts.retiredThreats.length > 0 || counts.agedIndicators > 0) {
        logger.info('lifecycle', { retiredThreats: counts.retiredThreats, agedIndicators: counts.agedIndicators });
      }
    } finally {
      await store.releaseLease(LIFECYCLE_LEASE, owner).catch(() => undefined);
    }
  }

  let lastFeedStates = Number.NEGATIVE_INFINITY;

  /** The feed gauges from the store (another instance's pulls included), for the metrics. */
  async function reportFeedStates(reportTo: ReportMetric): Promise<void> {
    const now = clock.now();
    reportTo({ kind: 'feeds', feeds: await readFeedStates(store, now) });
    lastFeedStates = now;
  }

  async function check(): Promise<void> {
    let pulled = false;
    try {
      for (const fid of await store.dueFeedSources(clock.now())) {
        if (stopped) return;
        pulled = (await pullLeased(fid)) || pulled;
      }
      const settings = options.lifecycle;
      if (settings !== undefined && !stopped && (pulled || clock.now() - lastLifecycle >= LIFECYCLE_EVERY_MS)) await lifecycleLeased(settings);
    } catch (error) {
      // The store is unreachable (or the pull's failure could not be recorded): try again at the next check.
      if (!stopped) logger.error('pull scheduler: checking due feeds failed', { error: error instanceof Error ? error.message : String(error) });
    }
    if (report !== undefined && !stopped && (pulled || clock.now() - lastFeedStates >= LIFECYCLE_EVERY_MS)) {
      await reportFeedStates(report).catch((error: unknown) => {
        logger.warn('pull scheduler: reading the feeds for the metrics failed', { error: error instanceof Error ? error.message : String(error) });
      });
    }
  }

  function tick(): Promise<void> {
    running ??= check().finally(() => {
      running = undefined;
    });
    return running;
  }

  const timer = setInterval(() => void tick(), options.checkMs);
  timer.unref();
  void tick();
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
