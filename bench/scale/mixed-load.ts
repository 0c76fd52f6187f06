// The scale bench's mixed load: an open loop at a fixed rate over several kinds of request, in a worker thread, latency per kind.
import { Worker } from 'node:worker_threads';
import { TIMED_GET } from '../http/timed-get.js';

export interface LoadKind {
  name: string;
  /** Share of the requests, relative to the other kinds' weights. */
  weight: number;
  /**
   * The paths, used in turn. `{AFTER}` becomes the time a minute before the request is sent (RFC 3339), `{N}` a
   * number from 1 to 100 that changes with each request of the kind.
   */
  paths: string[];
  headers?: Record<string, string>;
}

export interface KindStats {
  name: string;
  requests: number;
  /** p99 of the requests due before `splitAt` and of those due from then on (null: none). */
  p99Before: number | null;
  p99After: number | null;
  /** Answers other than 200, and requests that got no answer. */
  errors: number;
  statuses: Record<string, number>;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/**
 * The worker's own event loop sends on time whatever the bench's does meanwhile; a request's latency counts from
 * when it was due, so a server that falls behind shows it (no coordinated omission).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, kinds, rate, seconds } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const cycle = [];
const total = kinds.reduce((sum, k) => sum + k.weight, 0);
kinds.forEach((k, i) => { for (let n = Math.max(1, Math.round((k.weight / total) * 100)); n > 0; n--) cycle.push(i); });
for (let i = cycle.length - 1; i > 0; i--) { const j = (i * 7919) % (i + 1); [cycle[i], cycle[j]] = [cycle[j], cycle[i]]; }
const state = kinds.map(() => ({ sent: 0, latencies: [], due: [], errors: 0, statuses: {} }));
let inFlight = 0;
let sent = 0;
function send(dueAt) {
  const i = cycle[sent++ % cycle.length];
  const kind = kinds[i];
  const s = state[i];
  const n = s.sent++;
  const path = kind.paths[n % kind.paths.length]
    .replace('{AFTER}', encodeURIComponent(new Date(Date.now() - 60000).toISOString()))
    .replace('{N}', String(1 + (n % 100)));
  inFlight++;
  timedGet(agent, port, path, kind.headers || {}, (status) => {
    inFlight--;
    s.latencies.push(performance.now() - dueAt);
    s.due.push(dueAt - start);
    s.statuses[status] = (s.statuses[status] || 0) + 1;
    if (status !== 200) s.errors++;
  });
}
${TIMED_GET}
const interval = 1000 / rate;
const start = performance.now();
const end = start + seconds * 1000;
let next = start;
const timer = setInterval(() => {
  const now = performance.now();
  while (next <= now && next < end) {
    send(next);
    next += interval;
  }
  if (next >= end) {
    clearInterval(timer);
    const finish = () => {
      if (inFlight > 0) return setTimeout(finish, 20);
      agent.destroy();
      parentPort.postMessage(state.map((s, i) => ({ name: kinds[i].name, latencies: s.latencies, due: s.due, errors: s.errors, statuses: s.statuses })));
    };
    finish();
  }
}, 1);
`;

const quantile = (sorted: Float64Array, q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);

const p99Of = (latencies: number[]) => (latencies.length === 0 ? null : quantile(Float64Array.from(latencies).sort(), 0.99));

/**
 * Sends `rate` requests a second for `seconds`, spread over the kinds by weight, and waits for the last answer.
 * `splitAt()`, asked once the load has ended, is when (ms after the load's start) the p99 is split: the end of the
 * write the load ran beside.
 */
export async function runMixedLoad(port: number, kinds: readonly LoadKind[], rate: number, seconds: number, splitAt: () => number): Promise<KindStats[]> {
  const worker = new Worker(WORKER, { eval: true, workerData: { port, kinds, rate, seconds } });
  try {
    const raw = await new Promise<{ name: string; latencies: number[]; due: number[]; errors: number; statuses: Record<string, number> }[]>((done, fail) => {
      worker.once('message', done);
      worker.once('error', fail);
    });
    const split = splitAt();
    return raw.map((k) => {
      const sorted = Float64Array.from(k.latencies).sort();
      const before = k.latencies.filter((_, i) => k.due[i]! < split);
      const after = k.latencies.filter((_, i) => k.due[i]! >= split);
      return {
        name: k.name,
        requests: sorted.length,
        p99Before: p99Of(before),
        p99After: p99Of(after),
        errors: k.errors,
        statuses: k.statuses,
        p50: quantile(sorted, 0.5),
        p95: quantile(sorted, 0.95),
        p99: quantile(sorted, 0.99),
        max: sorted.at(-1) ?? 0,
      };
    });
  } finally {
    await worker.terminate();
  }
}
