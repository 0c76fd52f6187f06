// The background puller of `serve` (DESIGN section 7): pulls due feeds one at a time, each under a
// lease in the store, so that of several instances sharing a database one pulls a feed at a time.
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { pullFeed, type PullDeps } from './pull-feed.js';

/**
 * How long a lease holds without renewal. A holder renews it while it pulls; one that dies stops
 * renewing, and the feed is free again this long after. Renewal waits behind the pull's
 * transaction on SQLite (one connection), so the lease outlasts a long write on its own.
 */
export const LEASE_MS = 5 * 60_000;
const RENEW_MS = 60_000;

export interface PullSchedulerOptions extends Omit<PullDeps, 'signal' | 'onProgress'> {
  /** How often the store is asked which feeds are due. */
  checkMs: number;
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

  async function pullLeased(fid: number): Promise<void> {
    const now = clock.now();
    if (!(await store.takePullLease(fid, owner, now, now + LEASE_MS))) return;
    const renew = setInterval(() => {
      void store.renewPullLease(fid, owner, clock.now() + LEASE_MS).catch(() => undefined);
    }, RENEW_MS);
    try {
      await pullFeed(fid, { ...options, signal: abort.signal });
    } finally {
      clearInterval(renew);
      await store.releasePullLease(fid, owner).catch(() => undefined);
    }
  }

  async function check(): Promise<void> {
    try {
      for (const fid of await store.dueFeedSources(clock.now())) {
        if (stopped) return;
        await pullLeased(fid);
      }
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
