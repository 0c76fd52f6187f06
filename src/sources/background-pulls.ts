// Starts the pulls `serve` runs in the background (DESIGN section 7): on a thread of their own with
// its own store connection, or, for an in-memory SQLite store no other connection can open, here.
import type { Clock } from '../clock.js';
import type { CollectionConfig } from '../config.js';
import type { Logger, LogLevel } from '../logger.js';
import type { Store } from '../store/store.js';
import { startModuleWorker } from '../threads.js';
import { createAllowlist } from './allowlist.js';
import { startPullScheduler } from './pull-scheduler.js';
import type { LifecycleSettings } from '../lifecycle/run-lifecycle.js';
import type { BackgroundEvent } from '../metrics/metrics.js';
import type { FeedHealthSettings } from './feed-health.js';
import type { ReportMetric } from './pull-metrics.js';

/** What the pull thread is started with (structured-cloned: plain data only). */
export interface PullThreadData {
  db: string;
  setting: string;
  collections: readonly CollectionConfig[];
  allowlist: readonly string[] | undefined;
  checkMs: number;
  /** Config `pull.concurrency` (default 2) and `sources.allowPrivateNetworks` (default false). */
  concurrency?: number;
  allowPrivateNetworks?: boolean;
  /** Config `health`: quietDays for the feed state gauge, keepRuns for each pull's runs. */
  health?: FeedHealthSettings & { keepRuns?: number };
  logLevel: LogLevel;
  lifecycle: LifecycleSettings;
  /** Post the metrics' events (DESIGN 9) to this thread's parent, which owns the registry. */
  metrics: boolean;
  /** The environment `${env:NAME}` references of sources read (the composition root's). */
  env: Readonly<Record<string, string | undefined>>;
}

export type PullThreadMessage =
  | { kind: 'log'; line: string }
  | { kind: 'metric'; event: BackgroundEvent }
  | { kind: 'stopped' }
  | { kind: 'failed'; message: string };

export interface BackgroundPulls {
  /**
   * Aborts a running pull (it changes nothing) and stops; resolves once the store is closed, or
   * after `graceMs`, when a pull still writing is cut off (its transaction is rolled back).
   */
  stop(graceMs?: number): Promise<void>;
}

export interface BackgroundPullOptions extends Omit<PullThreadData, 'logLevel' | 'metrics'> {
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
    return { stop: () => scheduler.stop() };
  }
  const data: PullThreadData = {
    db: options.db, setting: options.setting, collections: options.collections, allowlist: options.allowlist, checkMs: options.checkMs, logLevel: options.logLevel,
    concurrency: options.concurrency, allowPrivateNetworks: options.allowPrivateNetworks, lifecycle: options.lifecycle, health: options.health, metrics: options.report !== undefined,
    env: options.env,
  };
  const worker = startModuleWorker(import.meta.url, 'pull-worker', { workerData: data });
  let stopped = false;
  const done = new Promise<void>((resolve) => {
    worker.on('message', (message: PullThreadMessage) => {
      if (message.kind === 'log') options.writeLog(message.line);
      else if (message.kind === 'metric') options.report?.(message.event);
      else if (message.kind === 'failed') logger.error('source pulls could not start', { error: message.message });
      else resolve();
    });
    worker.on('error', (error) => logger.error('the source pull thread failed', { error: error.message }));
    worker.on('exit', (code) => {
      if (!stopped) logger.error('the source pull thread stopped; feeds are not pulled until restart', { code });
      resolve();
    });
  });
  worker.unref();
  return {
    async stop(graceMs = Number.POSITIVE_INFINITY) {
      stopped = true;
      // Unreferenced, the thread would let the process end before it answered.
      worker.ref();
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      const late = Number.isFinite(graceMs) ? new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs))) : new Promise<never>(() => undefined);
      const how = await Promise.race([done.then(() => 'stopped' as const), late]);
      clearTimeout(timer);
      if (how === 'late') logger.warn('a pull was still writing when the grace period ended: it is cut off, and its transaction rolled back', { graceMs });
      await worker.terminate();
    },
  };
}
