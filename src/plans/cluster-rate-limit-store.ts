// Rate-limit counters held by the cluster primary, so `serve --workers N` without Redis keeps one budget per key.
import type { Worker } from 'node:cluster';
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { FixedWindowStore } from './fixed-window-store.js';
import type { RateLimitStoreFactory } from './rate-limiters.js';

/** Messages are tagged so they never mix with other IPC traffic. */
const REQUEST = 'threatgate:rate-limit';
const REPLY = 'threatgate:rate-limit-reply';
/** The primary answers in microseconds; this only guards against a primary that is gone. */
const REPLY_TIMEOUT_MS = 2000;

type Operation = 'increment' | 'decrement' | 'get' | 'resetKey';

interface CounterRequest {
  type: typeof REQUEST;
  id: number;
  op: Operation;
  window: string;
  windowMs: number;
  key: string;
}

interface CounterReply {
  type: typeof REPLY;
  id: number;
  info?: { totalHits: number; resetTime: number | undefined };
  error?: string;
}

/** The IPC side of a worker: `process` in a cluster worker. */
export interface WorkerChannel {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

function isReply(message: unknown): message is CounterReply {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === REPLY;
}

function isRequest(message: unknown): message is CounterRequest {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === REQUEST;
}

/** Worker side: one store per window, each call a round trip to the primary. */
export function createPrimaryCounterStores(channel: WorkerChannel): RateLimitStoreFactory {
  let nextId = 0;
  const pending = new Map<number, { resolve: (reply: CounterReply) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  channel.on('message', (message) => {
    if (!isReply(message)) return;
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.error) waiting.reject(new Error(`rate-limit counters: ${message.error}`));
    else waiting.resolve(message);
  });

  const call = (request: Omit<CounterRequest, 'type' | 'id'>) =>
    new Promise<CounterReply>((resolve, reject) => {
      if (!channel.send) {
        reject(new Error('rate-limit counters: not running as a cluster worker'));
        return;
      }
      const id = ++nextId;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('rate-limit counters: no answer from the cluster primary'));
      }, REPLY_TIMEOUT_MS);
      pending.set(id, { resolve, reject, timer });
      channel.send({ type: REQUEST, id, ...request });
    });

  return (window) => {
    let windowMs = window.ms;
    const ask = (op: Operation, key: string) => call({ op, window: window.name, windowMs, key });
    const toInfo = (reply: CounterReply): ClientRateLimitInfo | undefined =>
      reply.info && { totalHits: reply.info.totalHits, resetTime: reply.info.resetTime === undefined ? undefined : new Date(reply.info.resetTime) };
    const store: Store = {
      localKeys: false,
      prefix: `${window.name}:`,
      init(options: Options) {
        windowMs = options.windowMs;
      },
      async increment(key: string): Promise<IncrementResponse> {
        const info = toInfo(await ask('increment', key));
        if (!info) throw new Error('rate-limit counters: empty answer to increment');
        return info;
      },
      async get(key: string) {
        return toInfo(await ask('get', key));
      },
      async decrement(key: string) {
        await ask('decrement', key);
      },
      async resetKey(key: string) {
        await ask('resetKey', key);
      },
    };
    return store;
  };
}

/** Primary side: answers every worker's counter requests from one FixedWindowStore per window. */
export function servePrimaryCounters(source: { on(event: 'message', listener: (worker: Worker, message: unknown) => void): unknown }): void {
  const stores = new Map<string, FixedWindowStore>();
  const storeFor = (window: string, windowMs: number) => {
    let store = stores.get(window);
    if (!store) {
      store = new FixedWindowStore();
      store.init({ windowMs } as Options);
      stores.set(window, store);
    }
    return store;
  };
  source.on('message', (worker, message) => {
    if (!isRequest(message)) return;
    const store = storeFor(message.window, message.windowMs);
    const run = async (): Promise<ClientRateLimitInfo | undefined> => {
      switch (message.op) {
        case 'increment':
          return store.increment(message.key);
        case 'get':
          return store.get(message.key);
        case 'decrement':
          await store.decrement(message.key);
          return undefined;
        case 'resetKey':
          await store.resetKey(message.key);
          return undefined;
      }
    };
    void run().then(
      (info) => reply(worker, { type: REPLY, id: message.id, ...(info ? { info: { totalHits: info.totalHits, resetTime: info.resetTime?.getTime() } } : {}) }),
      (error: unknown) => reply(worker, { type: REPLY, id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

function reply(worker: Worker, message: CounterReply): void {
  // A worker that exited meanwhile no longer waits for its answer.
  if (worker.isConnected()) worker.send(message);
}
