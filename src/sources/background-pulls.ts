// Starts the pulls `serve` runs in the background (docs/interface.md section 10, "Background pulls"): on a thread of their own with
// its own store connection, or, for an in-memory SQLite store no other connection can open, here.
import type { Clock } from '../clock.js';
import type { Logger, LogLevel } from '../logger.js';
import type { Store } from '../store/contract/store.js';
import { createAllowlist } from './allowlist.js';
import { startPullScheduler } from './pull-scheduler.js';
import { supervisePullThread, type PullerStatus, type PullThreadData } from './pull-thread.js';
import type { ReportMetric } from './pull-metrics.js';

export interface BackgroundPulls {
  /** Checks for due feeds now (a "Pull now" was asked for) rather than at the next check. */
  wake(): void;
  /** Whether the puller runs now, and how often it was restarted. */
  status(): PullerStatus;
  /**
   * Aborts a running pull (it changes nothing) and stops; resolves once the store is closed, or
   * after `graceMs`, when a pull still writing is cut off (its transaction is rolled back).
   */
  stop(graceMs?: number): Promise<void>;
}

export interface BackgroundPullOptions extends Omit<PullThreadData, 'logLevel' | 'metrics' | 'owner' | 'releaseOwner'> {
  /** Hears every change of the puller's status (pull-thread.ts). */
  onStatus?: (status: PullerStatus) => void;
  /** This process's store: used only when the database is in memory. */
  store: Store;
  clock: Clock;
  logger: Logger;
  logLevel: LogLevel;
  /** Where the thread's log lines go (the process's log writer). */
  writeLog: (line: string) => void;
  /** Where the pulls' and lifecycle's metrics go (the process's registry); absent, none are gathered. */
  report?: ReportMetric;
}

const IN_MEMORY = new Set([':memory:', 'sqlite::memory:']);

export function startBackgroundPulls(options: BackgroundPullOptions): BackgroundPulls {
  const { logger } = options;
  if (IN_MEMORY.has(options.db)) {
    const scheduler = startPullScheduler({
      store: options.store, clock: options.clock, env: options.env, allowlist: createAllowlist(options.allowlist), logger, checkMs: options.checkMs,
      concurrency: options.concurrency, allowPrivateNetworks: options.allowPrivateNetworks, lifecycle: options.lifecycle, health: options.health, report: options.report,
    });
    // In this process's event loop: it cannot die apart from the process.
    return { wake: () => scheduler.wake(), status: () => ({ up: true, restarts: 0, lastFailure: null }), stop: () => scheduler.stop() };
  }
  const thread = supervisePullThread({
    data: {
      db: options.db, setting: options.setting, collections: options.collections, allowlist: options.allowlist, checkMs: options.checkMs, logLevel: options.logLevel,
      concurrency: options.concurrency, allowPrivateNetworks: options.allowPrivateNetworks, lifecycle: options.lifecycle, health: options.health, metrics: options.report !== undefined,
      env: options.env,
    },
    logger, writeLog: options.writeLog, report: options.report, onStatus: options.onStatus,
  });
  return { wake: () => thread.wake(), status: () => thread.status(), stop: (graceMs = Number.POSITIVE_INFINITY) => thread.stop(graceMs) };
}
