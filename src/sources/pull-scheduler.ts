// The background work of `serve` (DESIGN sections 7 and 8): pulls due feeds one at a time, each under a
// lease in the store, so that of several instances sharing a database one pulls a feed at a time, and
// runs the lifecycle after each pull and at least hourly, under a lease of its own.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { runLifecycle, type LifecycleSettings } from '../lifecycle/run-lifecycle.js';
import { pullFeed, type PullDeps } from './pull-feed.js';

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
}

export interface PullScheduler {
  /** Checks for due feeds now and pulls them (also what the timer runs); resolves when done. */
  tick(): Promise<void>;
  /** Stops the timer and aborts a running pull (which then changes nothing); resolves when it has stopped. */
  stop(): Promise<void>;
}

export function startPullScheduler(options: PullSchedulerOptions): PullScheduler {
  const { store, clock, logger } = options;
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
    try {
      await pullFeed(fid, { ...options, signal: abort.signal });
      return true;
    } finally {
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
      const counts = await runLifecycle(store, settings, clock);
      lastLifecycle = now;
      if (counts.retiredThreats.length > 0 || counts.agedIndicators > 0) {
        logger.info('lifecycle', { retiredThreats: counts.retiredThreats, agedIndicators: counts.agedIndicators });
      }
    } finally {
      await store.releaseLease(LIFECYCLE_LEASE, owner).catch(() => undefined);
    }
  }

  async function check(): Promise<void> {
    try {
      let pulled = false;
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
