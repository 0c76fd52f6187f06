// Rate-limit counters held by the cluster primary, so `serve --workers N` without Redis keeps one budget per key.
import type { Worker } from 'node:cluster';
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import { FixedWindowStore } from './fixed-window-store.js';
import type { RateLimitStoreFactory, WindowHits, WindowLimit } from './rate-limiters.js';
import { MemorySlidingLog, type LogCount, type SlidingLogStore } from './sliding-log.js';

/** Messages are tagged so they never mix with other IPC traffic. */
const REQUEST = 'threatgate:rate-limit';
const REPLY = 'threatgate:rate-limit-reply';
/** A worker's requests of one event-loop turn go in one message, and come back in one. */
const REQUEST_BATCH = 'threatgate:rate-limit-batch';
const REPLY_BATCH = 'threatgate:rate-limit-reply-batch';
/** The primary answers in microseconds; this only guards against a primary that is gone. */
const REPLY_TIMEOUT_MS = 2000;

type Operation = 'increment' | 'decrement' | 'get' | 'resetKey' | 'incrementInOrder' | 'logAdd' | 'logCount';

interface CounterRequest {
  type: typeof REQUEST;
  id: number;
  op: Operation;
  window: string;
  windowMs: number;
  key: string;
  /** incrementInOrder: the windows to count, in order, each with the limit past which counting stops. */
  windows?: readonly WindowLimit[];
  /** logAdd, logCount: the sliding window's `keep` (its `ms` is windowMs). */
  keep?: number;
}

type CountInfo = { totalHits: number; resetTime: number | undefined };

interface CounterReply {
  type: typeof REPLY;
  id: number;
  info?: CountInfo;
  /** incrementInOrder: the count of each window counted. */
  infos?: CountInfo[];
  /** logAdd, logCount: the key's events in the sliding window. */
  log?: LogCount;
  error?: string;
}

/** The IPC side of a worker: `process` in a cluster worker. */
export interface WorkerChannel {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

interface RequestBatch {
  type: typeof REQUEST_BATCH;
  requests: CounterRequest[];
}

interface ReplyBatch {
  type: typeof REPLY_BATCH;
  replies: CounterReply[];
}

const typeOf = (message: unknown): unknown => (typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined);

/**
 * Worker side: one store per window, each call a round trip to the primary. The calls made in one
 * turn of the event loop (all the requests that arrived together) travel in one message.
 */
export function createPrimaryCounterStores(channel: WorkerChannel): RateLimitStoreFactory {
  let nextId = 0;
  const pending = new Map<number, { resolve: (reply: CounterReply) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  const settle = (reply: CounterReply) => {
    const waiting = pending.get(reply.id);
    if (!waiting) return;
    pending.delete(reply.id);
    clearTimeout(waiting.timer);
    if (reply.error) waiting.reject(new Error(`rate-limit counters: ${reply.error}`));
    else waiting.resolve(reply);
  };
  channel.on('message', (message) => {
    const type = typeOf(message);
    if (type === REPLY_BATCH) for (const reply of (message as ReplyBatch).replies) settle(reply);
    else if (type === REPLY) settle(message as CounterReply);
  });

  let outbox: CounterRequest[] = [];
  const flush = () => {
    const requests = outbox;
    outbox = [];
    try {
      channel.send?.(requests.length === 1 ? requests[0] : ({ type: REQUEST_BATCH, requests } satisfies RequestBatch));
    } catch (error) {
      // A closed channel fails these calls (the store wrapper decides open or closed), not the process.
      const reason = error instanceof Error ? error.message : String(error);
      for (const request of requests) settle({ type: REPLY, id: request.id, error: `cannot reach the cluster primary (${reason})` });
    }
  };

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
      if (outbox.length === 0) setImmediate(flush);
      outbox.push({ type: REQUEST, id, ...request });
    });

  const factory: RateLimitStoreFactory = (window) => {
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
  // A request's windows in one message: the primary counts them in order and stops after the first past its limit.
  factory.countInOrder = async (key, windows): Promise<WindowHits[]> => {
    const reply = await call({ op: 'incrementInOrder', window: '', windowMs: 0, key, windows });
    if (!reply.infos) throw new Error('rate-limit counters: empty answer to incrementInOrder');
    return reply.infos.map(({ totalHits, resetTime }) => ({ totalHits, resetMs: resetTime }));
  };
  // A sliding window's logs, at the primary: every worker's failures in one log per key.
  factory.slidingLog = (window): SlidingLogStore => {
    const ask = async (op: 'logAdd' | 'logCount', key: string) => {
      const reply = await call({ op, window: window.name, windowMs: window.ms, keep: window.keep, key });
      if (!reply.log) throw new Error(`rate-limit counters: empty answer to ${op}`);
      return reply.log;
    };
    return { add: (key) => ask('logAdd', key), count: (key) => ask('logCount', key) };
  };
  return factory;
}

/** Primary side: answers every worker's counter requests from one FixedWindowStore per window (one MemorySlidingLog per sliding one). */
export function servePrimaryCounters(
  source: { on(event: 'message', listener: (worker: Worker, message: unknown) => void): unknown },
  now: () => number = Date.now,
): void {
  const stores = new Map<string, FixedWindowStore>();
  const storeFor = (window: string, windowMs: number) => {
    let store = stores.get(window);
    if (!store) {
      store = new FixedWindowStore(now);
      store.init({ windowMs } as Options);
      stores.set(window, store);
    }
    return store;
  };
  const logs = new Map<string, MemorySlidingLog>();
  const logFor = ({ window, windowMs, keep }: CounterRequest) => {
    let log = logs.get(window);
    if (!log) {
      log = new MemorySlidingLog({ ms: windowMs, keep: keep ?? 1 }, now);
      logs.set(window, log);
    }
    return log;
  };
  const answer = async (request: CounterRequest): Promise<CounterReply> => {
    try {
      if (request.op === 'logAdd') return { type: REPLY, id: request.id, log: logFor(request).addNow(request.key) };
      if (request.op === 'logCount') return { type: REPLY, id: request.id, log: logFor(request).countNow(request.key) };
      if (request.op === 'incrementInOrder') {
        const infos: CountInfo[] = [];
        for (const window of request.windows ?? []) {
          const { totalHits, resetMs } = storeFor(window.name, window.ms).incrementNow(request.key);
          infos.push({ totalHits, resetTime: resetMs });
          // As the limiter counting one window at a time: a window past its limit ends the count.
          if (totalHits > window.limit) break;
        }
        return { type: REPLY, id: request.id, infos };
      }
      const store = storeFor(request.window, request.windowMs);
      let info: ClientRateLimitInfo | undefined;
      switch (request.op) {
        case 'increment':
          info = await store.increment(request.key);
          break;
        case 'get':
          info = await store.get(request.key);
          break;
        case 'decrement':
          await store.decrement(request.key);
          break;
        case 'resetKey':
          await store.resetKey(request.key);
          break;
      }
      return { type: REPLY, id: request.id, ...(info ? { info: { totalHits: info.totalHits, resetTime: info.resetTime?.getTime() } } : {}) };
    } catch (error) {
      return { type: REPLY, id: request.id, error: error instanceof Error ? error.message : String(error) };
    }
  };
  source.on('message', (worker, message) => {
    const type = typeOf(message);
    if (type === REQUEST) {
      void answer(message as CounterRequest).then((one) => reply(worker, one));
    } else if (type === REQUEST_BATCH) {
      // In order: a key's counts come out as they would one message at a time.
      void Promise.all((message as RequestBatch).requests.map(answer)).then((replies) => reply(worker, { type: REPLY_BATCH, replies }));
    }
  });
}

function reply(worker: Worker, message: CounterReply | ReplyBatch): void {
  // A worker that exited meanwhile no longer waits for its answer.
  if (worker.isConnected()) worker.send(message);
}
