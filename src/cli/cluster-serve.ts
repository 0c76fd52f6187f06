// `serve --workers N`: the cluster primary forks N workers on one port, relays SIGTERM/SIGINT and restarts crashed workers.
import cluster, { type Worker } from 'node:cluster';
import { ConfigError } from '../errors.js';
import type { Logger } from '../logger.js';
import { servePrimaryCounters } from '../plans/cluster-rate-limit-store.js';
import { servePrimaryMetrics } from '../metrics/cluster-metrics.js';
import type { Registry } from 'prom-client';
import type { PullerStatus } from '../sources/pull-thread.js';

const WORKER_FAILED = 'threatgate:worker-failed';
/** A worker's message to the primary: an operator asked for a pull now; wake the pull thread. */
export const PULL_REQUESTED = 'threatgate:pull-requested';
/** The primary's message to its workers: how its puller is now (their /readyz says it). */
const PULLER_STATUS = 'threatgate:puller-status';

/** In the primary: tells every worker how the puller is (on each change, and to each new worker). */
export function sendPullerStatus(status: PullerStatus, to: Worker[] = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined)): void {
  for (const worker of to) if (worker.isConnected()) worker.send({ type: PULLER_STATUS, status });
}

/** In a worker: the puller's status as the primary last told it; undefined before it has (or when it runs none). */
export function followPullerStatus(): () => PullerStatus | undefined {
  let latest: PullerStatus | undefined;
  process.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === PULLER_STATUS) latest = (message as { status: PullerStatus }).status;
  });
  return () => latest;
}
/** A worker that keeps dying (bad disk, exhausted memory) should stop the service, not loop forever. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 60_000;
/** A worker's failure message may arrive just after its exit event; wait this long for it. */
const FAILURE_MESSAGE_WAIT_MS = 200;

export interface ClusterOptions {
  workers: number;
  /** Keep the rate-limit counters in the primary (no Redis): one budget per key across workers. */
  sharedCounters: boolean;
  /** How long workers get to drain after the relayed signal before they are killed. */
  stopTimeoutMs: number;
  logger: Logger;
  /** Called once, when every worker listens, with the shared port. */
  onReady: (port: number) => void;
  err: (line: string) => void;
  /**
   * Called once when the cluster starts stopping: the primary's own background work (its pull
   * thread) stops then, and the primary exits only once it has, after the workers.
   */
  onStopping?: () => Promise<void> | void;
  /** A worker passed on a "Pull now": the primary's pull thread checks for due feeds at once. */
  onPullRequested?: () => void;
  /** The primary's puller's status now, sent to each worker once it listens; absent: the primary runs none. */
  pullerStatus?: () => PullerStatus;
  /** The primary's own metrics (its pull thread's), added to the workers' on every scrape; absent: metrics are off. */
  metricsRegistry?: Registry;
}

/** In a worker: hands a start-up failure to the primary, which prints it once, then exits 1. */
export function reportWorkerFailure(error: unknown): void {
  const message = error instanceof ConfigError ? error.message : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
  setTimeout(() => process.exit(1), 1000).unref();
  if (!process.send) process.exit(1);
  process.send({ type: WORKER_FAILED, message }, () => process.exit(1));
}

function failureMessage(message: unknown): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { type, message: text } = message as { type?: unknown; message?: unknown };
  return type === WORKER_FAILED && typeof text === 'string' ? text : undefined;
}

/**
 * Forks the workers (each re-runs this command line, opens its own store and listens on the same
 * port: the primary holds the listening socket and hands connections out round-robin). With
 * --port 0 every worker gets the same port: node:cluster keys the shared handle by the requested
 * address, and that is checked before the ready line.
 */
export function runClusterPrimary(options: ClusterOptions): void {
  const { logger } = options;
  if (options.sharedCounters) servePrimaryCounters(cluster);
  if (options.metricsRegistry) servePrimaryMetrics(cluster, options.metricsRegistry);
  const live = new Set<number>();
  const ports = new Map<number, number>();
  const restarts: number[] = [];
  let ready = false;
  let stopping = false;
  let exitCode = 0;

  const fork = () => live.add(cluster.fork().id);

  /** The primary's own background work stopping (its pull thread: a pull rolled back or finished, its lease released). */
  let background: Promise<unknown> = Promise.resolve();
  const exitWhenDone = () => void background.finally(() => process.exit(exitCode));

  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    background = Promise.resolve(options.onStopping?.()).catch(() => undefined);
    logger.info('stopping workers', { reason, workers: live.size });
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => {
      logger.error('workers did not stop in time; killing them', { workers: live.size });
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, options.stopTimeoutMs).unref();
    if (live.size === 0) exitWhenDone();
  };

  const fail = (message: string) => {
    if (exitCode !== 0) return;
    exitCode = 1;
    options.err(`threatgate: ${message}`);
    stopAll('start-up failed');
  };

  cluster.on('listening', (worker: Worker, address) => {
    ports.set(worker.id, address.port);
    // A worker listens once its app (and its ear for these messages) is built: it learns how the puller is.
    const status = options.pullerStatus?.();
    if (status !== undefined) sendPullerStatus(status, [worker]);
    if (ready) {
      logger.info('worker listening', { worker: worker.process.pid });
      return;
    }
    if (ports.size < options.workers) return;
    const distinct = new Set(ports.values());
    if (distinct.size !== 1) {
      fail(`--port: workers ended up on different ports (${[...distinct].join(', ')})`);
      return;
    }
    ready = true;
    options.onReady(address.port);
  });

  cluster.on('message', (worker: Worker, message: unknown) => {
    if (message === PULL_REQUESTED) {
      options.onPullRequested?.();
      return;
    }
    const failure = failureMessage(message);
    if (failure === undefined) return;
    if (!ready) fail(failure);
    else logger.error('worker failed to start', { worker: worker.process.pid, error: failure });
  });

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    live.delete(worker.id);
    ports.delete(worker.id);
    const how = signal ?? `code ${code}`;
    if (stopping) {
      if (live.size === 0) exitWhenDone();
      return;
    }
    if (!ready) {
      setTimeout(() => fail(`a worker exited during start-up (${how})`), FAILURE_MESSAGE_WAIT_MS);
      return;
    }
    const now = Date.now();
    while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length >= MAX_RESTARTS) {
      logger.error('workers keep exiting; stopping', { restarts: restarts.length, windowMs: RESTART_WINDOW_MS });
      exitCode = 1;
      stopAll('too many worker restarts');
      return;
    }
    restarts.push(now);
    logger.warn('worker exited unexpectedly; starting a new one', { worker: worker.process.pid, exit: how });
    fork();
  });

  process.once('SIGTERM', () => stopAll('SIGTERM'));
  process.once('SIGINT', () => stopAll('SIGINT'));
  for (let i = 0; i < options.workers; i++) fork();
}
