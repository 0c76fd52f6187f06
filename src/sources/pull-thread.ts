// The puller's thread, supervised: restarted with a backoff if it dies, its leases released by its successor, its state told to /readyz and the metrics.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import { startModuleWorker } from '../threads.js';
import type { CollectionConfig } from '../config.js';
import type { LifecycleSettings } from '../lifecycle/run-lifecycle.js';
import type { LogLevel } from '../logger.js';
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
  /** Post the metrics' events (docs/deployment.md, metrics) to this thread's parent, which owns the registry. */
  metrics: boolean;
  /** The environment `${env:NAME}` references of sources read (the composition root's). */
  env: Readonly<Record<string, string | undefined>>;
  /** Names this thread in the leases it takes. */
  owner: string;
  /** The lease owner of the thread this one replaces (it died): its leases are released first. */
  releaseOwner?: string;
}

export type PullThreadMessage =
  | { kind: 'log'; line: string }
  | { kind: 'metric'; event: BackgroundEvent }
  | { kind: 'ready' }
  | { kind: 'stopped' }
  | { kind: 'failed'; message: string };

/** Whether the puller runs: `up` once its thread has opened the store and scheduled; `restarts` since the process started. */
export interface PullerStatus {
  up: boolean;
  restarts: number;
  /** Why it last stopped, while it is down (an error's message, or the thread's exit code). */
  lastFailure: string | null;
}

/** The first restart waits this long; each quick failure after it doubles the wait, up to RESTART_MAX_MS. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;
/** A thread that ran this long before it died starts its successor's backoff afresh. */
const HEALTHY_RUN_MS = 300_000;

export interface SupervisedPullThread {
  wake(): void;
  status(): PullerStatus;
  stop(graceMs: number): Promise<void>;
}

export interface PullThreadOptions {
  data: Omit<PullThreadData, 'owner' | 'releaseOwner'>;
  logger: Logger;
  writeLog: (line: string) => void;
  report?: ReportMetric | undefined;
  /** Hears every change of the status (the cluster primary passes it to its workers' /readyz). */
  onStatus?: ((status: PullerStatus) => void) | undefined;
}

/**
 * Starts the pull thread and keeps it running: a thread that exits (an exception nothing caught, a
 * store it could not open) is started again after a backoff, under a new lease owner, and the new
 * thread first releases the leases of the one that died, so no feed waits for a lease nobody holds.
 */
export function supervisePullThread(options: PullThreadOptions): SupervisedPullThread {
  const { logger } = options;
  const status: PullerStatus = { up: false, restarts: 0, lastFailure: null };
  let stopped = false;
  let current: Worker | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let quickFailures = 0;
  let stoppedThread: (() => void) | undefined;
  const instance = randomUUID().slice(0, 8);
  let generation = 0;

  const changed = (restarted = false) => {
    options.report?.({ kind: 'puller', up: status.up, restarted });
    options.onStatus?.({ ...status });
  };

  function start(releaseOwner: string | undefined): void {
    generation++;
    const owner = `${hostname()}:${process.pid}:${instance}:${generation}`;
    const worker = startModuleWorker(import.meta.url, 'pull-worker', { workerData: { ...options.data, owner, ...(releaseOwner ? { releaseOwner } : {}) } });
    const startedAt = Date.now();
    let failure: string | undefined;
    current = worker;
    worker.on('message', (message: PullThreadMessage) => {
      if (message.kind === 'log') options.writeLog(message.line);
      else if (message.kind === 'metric') options.report?.(message.event);
      else if (message.kind === 'ready') {
        status.up = true;
        status.lastFailure = null;
        changed();
      } else if (message.kind === 'failed') {
        failure = message.message;
        logger.error('source pulls could not start', { error: message.message });
      } else stoppedThread?.();
    });
    worker.on('error', (error) => {
      failure = error.message;
      logger.error('the source pull thread failed', { error: error.message });
    });
    worker.on('exit', (code) => {
      if (worker !== current) return;
      current = undefined;
      status.up = false;
      if (stopped) {
        stoppedThread?.();
        return;
      }
      status.lastFailure = failure ?? `the thread exited with code ${code}`;
      status.restarts++;
      quickFailures = Date.now() - startedAt >= HEALTHY_RUN_MS ? 1 : quickFailures + 1;
      const waitMs = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** (quickFailures - 1));
      logger.error('the source pull thread stopped; starting it again', { reason: status.lastFailure, code, restartInSeconds: waitMs / 1000, restarts: status.restarts });
      changed(true);
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (!stopped) start(owner);
      }, waitMs);
      restartTimer.unref();
    });
    worker.unref();
  }

  start(undefined);
  return {
    wake() {
      if (!stopped) current?.postMessage('wake');
    },
    status: () => ({ ...status }),
    async stop(graceMs) {
      stopped = true;
      clearTimeout(restartTimer);
      const worker = current;
      if (worker === undefined) return;
      // Unreferenced, the thread would let the process end before it answered.
      worker.ref();
      const done = new Promise<'stopped'>((resolve) => (stoppedThread = () => resolve('stopped')));
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      const late = Number.isFinite(graceMs) ? new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs))) : new Promise<never>(() => undefined);
      const how = await Promise.race([done, late]);
      clearTimeout(timer);
      // A write still running rolls back at its next batch or stage (apply.ts); past the grace period the thread is ended.
      if (how === 'late') logger.warn('a pull was still writing when the grace period ended: it is cut off, and its transaction rolled back', { graceMs });
      await worker.terminate();
    },
  };
}
