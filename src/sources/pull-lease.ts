// One pull of a feed at a time, everywhere (docs/interface.md section 10, "Background pulls"): `serve`'s scheduler and
// `feeds pull` both pull under the feed's lease in the store, renewed while the pull runs and
// released when it ends, so two instances, or a command and an instance, never pull one feed at once.
import type { Clock } from '../clock.js';
import type { Store } from '../store/contract/store.js';

/**
 * How long a lease holds without renewal. A holder renews it every RENEW_MS while it pulls; one
 * that dies stops renewing, and the feed is free again this long after. A paged source is walked
 * before the pull's transaction (pull-feed.ts, prefetch), so renewals go through during the walk
 * on SQLite's one connection too; they wait only behind the writing, which the lease outlasts.
 */
export const LEASE_MS = 5 * 60_000;
export const RENEW_MS = 60_000;

export interface LeaseOptions {
  store: Store;
  clock: Clock;
  owner: string;
  /** `due`: only a due feed (the scheduler); `any`: whenever it is free (`feeds pull`). */
  take: 'due' | 'any';
  leaseMs?: number;
  renewMs?: number;
}

/** Runs `pull` under the feed's lease; `{ taken: false }` when another holder has it (or, for `due`, it is no longer due). */
export async function underPullLease<T>(fid: number, options: LeaseOptions, pull: () => Promise<T>): Promise<{ taken: false } | { taken: true; result: T }> {
  const { store, clock, owner } = options;
  const leaseMs = options.leaseMs ?? LEASE_MS;
  const now = clock.now();
  const taken = options.take === 'due' ? await store.takePullLease(fid, owner, now, now + leaseMs) : await store.claimPullLease(fid, owner, now, now + leaseMs);
  if (!taken) return { taken: false };
  // One renewal at a time. On PostgreSQL a renewal waits behind any transaction holding the feed's
  // row; the pull's own writes it only just before it commits (recordPullState). A renewal started
  // every minute regardless of the last would hold one more pooled connection for each minute of
  // such a wait, starving the puller and whatever else shares its pool.
  let renewing: Promise<void> | undefined;
  const renew = setInterval(() => {
    renewing ??= store
      .renewPullLease(fid, owner, clock.now() + leaseMs)
      .catch(() => undefined)
      .finally(() => {
        renewing = undefined;
      });
  }, options.renewMs ?? RENEW_MS);
  try {
    return { taken: true, result: await pull() };
  } finally {
    clearInterval(renew);
    await renewing;
    await store.releasePullLease(fid, owner).catch(() => undefined);
  }
}
