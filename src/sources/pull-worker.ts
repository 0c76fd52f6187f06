// The thread `serve` pulls feeds on (background-pulls.ts): its own store connection and event loop,
// so a long pull's statements never hold up the threads that answer requests.
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.js';
import { createLogger } from '../logger.js';
import type { BackgroundEvent } from '../metrics/metrics.js';
import { BACKGROUND_BUSY_MS, openStore } from '../store/open-store.js';
import { createAllowlist } from './allowlist.js';
import type { PullThreadData, PullThreadMessage } from './pull-thread.js';
import { startPullScheduler } from './pull-scheduler.js';

const port = parentPort!;
const data = workerData as PullThreadData;
const send = (message: PullThreadMessage) => port.postMessage(message);
const logger = createLogger(data.logLevel, (line) => send({ kind: 'log', line }));

try {
  // The puller waits out another instance's or a command's write, as long as a pull's write can take.
  const store = await openStore(data.db, { setting: data.setting, collections: data.collections, busyTimeoutMs: BACKGROUND_BUSY_MS });
  // The thread this one replaces died holding leases: they are released before anything is pulled.
  if (data.releaseOwner !== undefined) {
    const released = await store.releaseLeasesOf(data.releaseOwner);
    if (released > 0) logger.info('released the leases of the pull thread that stopped', { leases: released, owner: data.releaseOwner });
  }
  const scheduler = startPullScheduler({
    owner: data.owner, store, clock: systemClock, env: data.env, allowlist: createAllowlist(data.allowlist), logger, checkMs: data.checkMs, lifecycle: data.lifecycle,
    concurrency: data.concurrency, allowPrivateNetworks: data.allowPrivateNetworks, health: data.health,
    // The registry is the parent's: the thread's events travel as messages, like its log lines.
    ...(data.metrics ? { report: (event: BackgroundEvent) => send({ kind: 'metric', event }) } : {}),
  });
  send({ kind: 'ready' });
  port.on('message', (message: unknown) => {
    if (message === 'wake') scheduler.wake();
    if (message !== 'stop') return;
    void scheduler
      .stop()
      .then(() => store.close())
      .finally(() => send({ kind: 'stopped' }));
  });
} catch (error) {
  send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
