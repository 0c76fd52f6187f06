// The thread `serve` pulls feeds on (background-pulls.ts): its own store connection and event loop,
// so a long pull's statements never hold up the threads that answer requests.
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../clock.js';
import { createLogger } from '../logger.js';
import type { BackgroundEvent } from '../metrics/metrics.js';
import { openStore } from '../store/open-store.js';
import { createAllowlist } from './allowlist.js';
import type { PullThreadData, PullThreadMessage } from './background-pulls.js';
import { startPullScheduler } from './pull-scheduler.js';

const port = parentPort!;
const data = workerData as PullThreadData;
const send = (message: PullThreadMessage) => port.postMessage(message);
const logger = createLogger(data.logLevel, (line) => send({ kind: 'log', line }));

try {
  const store = await openStore(data.db, { setting: data.setting, collections: data.collections });
  const scheduler = startPullScheduler({
    store, clock: systemClock, env: data.env, allowlist: createAllowlist(data.allowlist), logger, checkMs: data.checkMs, lifecycle: data.lifecycle,
    concurrency: data.concurrency, allowPrivateNetworks: data.allowPrivateNetworks, health: data.health,
    // The registry is the parent's: the thread's events travel as messages, like its log lines.
    ...(data.metrics ? { report: (event: BackgroundEvent) => send({ kind: 'metric', event }) } : {}),
  });
  port.on('message', (message: unknown) => {
    if (message !== 'stop') return;
    void scheduler
      .stop()
      .then(() => store.close())
      .finally(() => send({ kind: 'stopped' }));
  });
} catch (error) {
  send({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
