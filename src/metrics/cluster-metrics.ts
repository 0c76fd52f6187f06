// /metrics under `serve --workers N`: whichever worker a scrape reaches answers with the whole
// cluster's sum. The worker asks the primary; the primary asks every worker for its registry
// (as JSON), adds its own (the pull thread's metrics live there) and sums them with prom-client's
// AggregatorRegistry.aggregate, each metric by its aggregator (counters and histograms add up).
import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** Tagged like the rate-limit messages (plans/cluster-rate-limit-store.ts), never mixing with them. */
const SCRAPE = 'threatgate:metrics-scrape';
const SCRAPE_REPLY = 'threatgate:metrics-scrape-reply';
const COLLECT = 'threatgate:metrics-collect';
const COLLECTED = 'threatgate:metrics-collected';

/** The primary waits this long for every worker's registry; a worker waits a little longer for the sum. */
export const COLLECT_TIMEOUT_MS = 3000;
const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 2000;

interface ScrapeRequest {
  type: typeof SCRAPE;
  id: number;
}
interface ScrapeReply {
  type: typeof SCRAPE_REPLY;
  id: number;
  text?: string;
  error?: string;
}
interface CollectRequest {
  type: typeof COLLECT;
  id: number;
}
interface Collected {
  type: typeof COLLECTED;
  id: number;
  metrics?: object[];
  error?: string;
}

const typeOf = (message: unknown): unknown => (typeof message === 'object' && message !== null ? (message as { type?: unknown }).type : undefined);

/** The IPC side of a worker: `process` in a cluster worker. */
export interface WorkerChannel {
  send?: (message: unknown) => boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

/** What the primary needs of node:cluster (the module itself). */
export interface ClusterPrimary {
  readonly workers?: NodeJS.Dict<Worker>;
  on(event: 'message', listener: (worker: Worker, message: unknown) => void): unknown;
  on(event: 'exit', listener: (worker: Worker) => void): unknown;
}

/** Sends over IPC; a channel that closed meanwhile is ignored (the asking side times out). */
function sendSafely(send: () => unknown): void {
  try {
    send();
  } catch {
    // Nothing to do: see above.
  }
}

/**
 * Worker side, both halves: answers the primary's collection requests with this registry, and
 * returns the scrape for GET /metrics, which asks the primary for the cluster's sum.
 */
export function joinClusterMetrics(channel: WorkerChannel, registry: Registry): () => Promise<string> {
  let nextId = 0;
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>();
  channel.on('message', (message) => {
    const type = typeOf(message);
    if (type === COLLECT) {
      const { id } = message as CollectRequest;
      registry.getMetricsAsJSON().then(
        (metrics) => sendSafely(() => channel.send?.({ type: COLLECTED, id, metrics } satisfies Collected)),
        (error: unknown) => sendSafely(() => channel.send?.({ type: COLLECTED, id, error: error instanceof Error ? error.message : String(error) } satisfies Collected)),
      );
    } else if (type === SCRAPE_REPLY) {
      const reply = message as ScrapeReply;
      const entry = waiting.get(reply.id);
      if (!entry) return;
      waiting.delete(reply.id);
      clearTimeout(entry.timer);
      if (reply.text !== undefined) entry.resolve(reply.text);
      else entry.reject(new Error(reply.error ?? 'the cluster primary sent no metrics'));
    }
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      if (!channel.send) {
        reject(new Error('not running as a cluster worker'));
        return;
      }
      const id = ++nextId;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('no answer from the cluster primary'));
      }, SCRAPE_TIMEOUT_MS);
      waiting.set(id, { resolve, reject, timer });
      sendSafely(() => channel.send?.({ type: SCRAPE, id } satisfies ScrapeRequest));
    });
}

interface Collection {
  /** Workers whose registry has not arrived yet, by worker id. */
  pending: Set<number>;
  answers: object[][];
  resolve: (answers: object[][]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Primary side: answers each worker's scrape with the sum of every live worker's registry and
 * `registry` (the primary's own). Scrapes that arrive while one is being gathered share it. A worker
 * that exits meanwhile is left out (its counts went with it); one that stays silent for
 * COLLECT_TIMEOUT_MS fails the scrape rather than leaving a partial sum.
 */
export function servePrimaryMetrics(cluster: ClusterPrimary, registry: Registry, timeoutMs = COLLECT_TIMEOUT_MS): { gather(): Promise<string> } {
  let nextId = 0;
  const collections = new Map<number, Collection>();
  let gathering: Promise<string> | undefined;

  const settleIfDone = (id: number, collection: Collection) => {
    if (collection.pending.size > 0) return;
    collections.delete(id);
    clearTimeout(collection.timer);
    collection.resolve(collection.answers);
  };

  const collectWorkers = () =>
    new Promise<object[][]>((resolve, reject) => {
      const id = ++nextId;
      const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && w.isConnected());
      const collection: Collection = {
        pending: new Set(workers.map((w) => w.id)),
        answers: [],
        resolve,
        reject,
        timer: setTimeout(() => {
          collections.delete(id);
          reject(new Error(`${collection.pending.size} worker(s) sent no metrics within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      collections.set(id, collection);
      for (const worker of workers) sendSafely(() => worker.send({ type: COLLECT, id } satisfies CollectRequest));
      settleIfDone(id, collection);
    });

  const gather = async () => {
    const answers = await collectWorkers();
    const own = await registry.getMetricsAsJSON();
    return AggregatorRegistry.aggregate([...answers, own]).metrics();
  };

  cluster.on('message', (worker, message) => {
    const type = typeOf(message);
    if (type === COLLECTED) {
      const answer = message as Collected;
      const collection = collections.get(answer.id);
      if (!collection || !collection.pending.delete(worker.id)) return;
      if (answer.metrics === undefined) {
        collections.delete(answer.id);
        clearTimeout(collection.timer);
        collection.reject(new Error(`a worker could not read its metrics: ${answer.error ?? 'no reason given'}`));
        return;
      }
      collection.answers.push(answer.metrics);
      settleIfDone(answer.id, collection);
    } else if (type === SCRAPE) {
      const { id } = message as ScrapeRequest;
      gathering ??= gather().finally(() => {
        gathering = undefined;
      });
      const reply = (answer: Omit<ScrapeReply, 'type' | 'id'>) => {
        if (worker.isConnected()) sendSafely(() => worker.send({ type: SCRAPE_REPLY, id, ...answer } satisfies ScrapeReply));
      };
      gathering.then(
        (text) => reply({ text }),
        (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
      );
    }
  });
  cluster.on('exit', (worker) => {
    for (const [id, collection] of collections) if (collection.pending.delete(worker.id)) settleIfDone(id, collection);
  });
  return { gather };
}
