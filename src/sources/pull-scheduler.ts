// The background work of `serve` (docs/interface.md section 10, "Background pulls"; section 3): pulls due feeds, up to `concurrency` at
// once, each under a lease in the store, so that of several instances sharing a database one pulls a
// feed at a time, and runs the lifecycle after pulls and at least hourly, under a lease of its own.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { runLifecycle, type LifecycleSettings } from '../lifecycle/run-lifecycle.js';
import type { PullDeps } from './pull-feed.js';
import { pullDueFeed } from './due-pull.js';
import { LEASE_MS, RENEW_MS } from './pull-lease.js';
import { DEFAULT_QUIET_DAYS, type FeedHealthSettings } from './feed-health.js';
import { readFeedStates, timingImports, type ReportMetric } from './pull-metrics.js';

export { LEASE_MS } from './pull-lease.js';
/** Pulls at once, unless the config says otherwise (`pull.concurrency`). */
export const DEFAULT_PULL_CONCURRENCY = 2;
/** The lifecycle runs at least this often, and after every pull. */
export const LIFECYCLE_EVERY_MS = 3_600_000;
const LIFECYCLE_LEASE = 'lifecycle';

export interface PullSchedulerOptions extends Omit<PullDeps, 'signal' | 'onProgress'> {
  /** How often the store is asked which feeds are due. */
  checkMs: number;
  /** The lifecycle (docs/interface.md section 3) runs after each pull and at least hourly, under its own lease; absent, not at all. */
  lifecycle?: LifecycleSettings;
  /** Names this instance in leases; default: host, pid and a random part. */
  owner?: string;
  /** Pulls run at once (config `pull.concurrency`): a slow feed holds one of them, not the others or the lifecycle. */
  concurrency?: number;
  /** Lease length and renewal period in ms (LEASE_MS, RENEW_MS); tests shorten them. */
  leaseMs?: number;
  renewMs?: number;
  /**
   * Hears what the metrics count (docs/deployment.md, "Metrics"): each pull's outcome and rejected values, the lifecycle's
   * retirements, the imports' durations, and every feed's state, last good pull and schedule, read
   * from the store at the first check, after checks that pulled and at least hourly. Absent, none of
   * it is gathered.
   */
  report?: ReportMetric;
  /** Config `health`: quietDays (DEFAULT_QUIET_DAYS unless given) for the feed state gauge, keepRuns for each pull's runs. */
  health?: FeedHealthSettings & { keepRuns?: number };
}

export interface PullScheduler {
  /** Checks for due feeds now and pulls them (the timer only starts them); resolves once they and the lifecycle after them are done. */
  tick(): Promise<void>;
  /** Checks for due feeds now rather than at the next tick (a "Pull now" was asked for). */
  wake(): void;
  /** Stops the timer and aborts a running pull (which then changes nothing); resolves when it has stopped. */
  stop(): Promise<void>;
}

export function startPullScheduler(options: PullSchedulerOptions): PullScheduler {
  const { store, clock, logger, report } = options;
  const owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_PULL_CONCURRENCY);
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const renewMs = options.renewMs ?? RENEW_MS;
  const abort = new AbortController();
  /** The pulls running now, by fid. */
  const active = new Map<number, Promise<void>>();
  let checking: Promise<void> | undefined;
  let stopped = false;
  let pulledSinceLifecycle = false;
  let pulledSinceReport = false;

  /** Starts a pull beside the others; when it ends, its slot goes to the next due feed. */
  function start(fid: number): void {
    const { owner: _owner, checkMs: _checkMs, lifecycle: _lifecycle, concurrency: _concurrency, leaseMs: _leaseMs, renewMs: _renewMs, health, ...pullDeps } = options;
    const running = pullDueFeed(fid, { ...pullDeps, owner, leaseMs, renewMs, signal: abort.signal, report, keepRuns: health?.keepRuns })
      .then((pulled) => {
        if (pulled) pulledSinceLifecycle = pulledSinceReport = true;
      })
      .catch((error: unknown) => {
        // The store is unreachable (or the pull's failure could not be recorded): the feed is tried again later.
        if (!stopped) logger.error('pull scheduler: a pull could not be recorded', { fid, error: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => {
        active.delete(fid);
        if (!stopped) void check();
      });
    active.set(fid, running);
  }

  let lastLifecycle = Number.NEGATIVE_INFINITY;

  /** One lifecycle run, by one instance at a time; its retirements are logged. */
  async function lifecycleLeased(settings: LifecycleSettings): Promise<void> {
    const now = clock.now();
    if (!(await store.takeLease(LIFECYCLE_LEASE, owner, now, now + leaseMs))) return;
    try {
      pulledSinceLifecycle = false;
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
    reportTo({ kind: 'feeds', feeds: await readFeedStates(store, options.health ?? { quietDays: DEFAULT_QUIET_DAYS }, now) });
    lastFeedStates = now;
  }

  /**
   * Starts due feeds in the free slots; then, unless it just started some (they run it when they
   * end), runs the lifecycle when pulls ended since it last ran or an hour has passed, and reports
   * the feeds' states. A pull still running from an earlier check holds neither back.
   */
  async function checkOnce(): Promise<void> {
    let started = 0;
    try {
      await logHeldFeeds();
      if (active.size < concurrency) {
        for (const fid of await store.dueFeedSources(clock.now())) {
          if (stopped || active.size >= concurrency) break;
          if (active.has(fid)) continue;
          start(fid);
          started++;
        }
      }
      const settings = options.lifecycle;
      if (settings !== undefined && !stopped && started === 0 && (pulledSinceLifecycle || clock.now() - lastLifecycle >= LIFECYCLE_EVERY_MS)) {
        await lifecycleLeased(settings);
      }
    } catch (error) {
      // The store is unreachable: try again at the next check.
      if (!stopped) logger.error('pull scheduler: checking due feeds failed', { error: error instanceof Error ? error.message : String(error) });
    }
    if (report === undefined || stopped || started > 0) return;
    const pulled = pulledSinceReport;
    pulledSinceReport = false;
    if (pulled || clock.now() - lastFeedStates >= LIFECYCLE_EVERY_MS) {
      await reportFeedStates(report).catch((error: unknown) => {
        logger.warn('pull scheduler: reading the feeds for the metrics failed', { error: error instanceof Error ? error.message : String(error) });
      });
    }
  }

  /** The lease each held feed was last logged for: a feed another holder keeps (a crashed instance's lease) is logged once per lease. */
  const heldLogged = new Map<number, string>();

  async function logHeldFeeds(): Promise<void> {
    const now = clock.now();
    for (const held of await store.heldDueFeeds(now)) {
      const key = `${held.owner} ${held.since ?? ''}`;
      if (held.owner === owner || heldLogged.get(held.fid) === key) continue;
      heldLogged.set(held.fid, key);
      logger.info('pull skipped: another holder has the feed\'s lease', {
        fid: held.fid, holder: held.owner, ...(held.since === null ? {} : { since: new Date(held.since).toISOString() }),
        until: new Date(held.until).toISOString(), secondsLeft: Math.ceil((held.until - now) / 1000),
      });
    }
  }

  /** A wake that came while a check ran: that check may have read the due feeds before the request was written. */
  let checkAgain = false;

  /** One check at a time; a check asked for while one runs shares it. */
  function check(): Promise<void> {
    checking ??= checkOnce().finally(() => {
      checking = undefined;
      if (checkAgain && !stopped) {
        checkAgain = false;
        void check();
      }
    });
    return checking;
  }

  async function tick(): Promise<void> {
    await check();
    // The pulls started, then the check after them (the lifecycle, the next due feeds), until none runs.
    while (active.size > 0 && !stopped) {
      await Promise.all(active.values());
      await check();
    }
  }

  const timer = setInterval(() => void check(), options.checkMs);
  timer.unref();
  void check();
  return {
    tick,
    wake() {
      if (stopped) return;
      if (checking !== undefined) checkAgain = true;
      else void check();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (active.size > 0) logger.info('stopping: cancelling the pulls running now; one writing rolls back at its next batch or stage', { fids: [...active.keys()] });
      abort.abort();
      await checking;
      await Promise.all(active.values());
    },
  };
}
