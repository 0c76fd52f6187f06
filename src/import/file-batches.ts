// The write batches of an import file, read, validated and batched on a worker thread
// (prepare-worker.ts), so that the import's thread only writes them.
import { ImportError } from '../errors.js';
import type { WriteBatch } from '../store/contract/write-batch.js';
import { startModuleWorker } from '../threads.js';
import type { PrepareReply } from './prepare-worker.js';

/**
 * Yields the file's batches in order, ending with the `end` batch; a bad record throws its
 * ImportError. Stopping early (the import failed) stops the worker.
 */
export async function* batchesOfFile(path: string): AsyncGenerator<WriteBatch> {
  // A bounded heap: its live data is a few batches, and an unbounded one grows the process with
  // garbage. It leaves room for the largest records (a JSON document's elements are parsed one at a
  // time). A young generation larger than the default lets a chunk's records die young, where the
  // default one spends much of the worker's time collecting garbage (bench/README.md, import).
  const worker = startModuleWorker(import.meta.url, 'prepare-worker', {
    workerData: { path },
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 64 },
  });
  const replies: PrepareReply[] = [];
  let stopped: Error | undefined;
  let woken: (() => void) | undefined;
  const wake = () => {
    woken?.();
    woken = undefined;
  };
  worker.on('message', (reply: PrepareReply) => {
    replies.push(reply);
    wake();
  });
  worker.on('error', (error) => {
    stopped ??= new Error(`reading the import file failed: ${error.message}`);
    wake();
  });
  worker.on('exit', (code) => {
    stopped ??= new Error(`the import file's reader stopped (exit code ${code}) before the end of the file`);
    wake();
  });
  try {
    for (;;) {
      while (replies.length === 0) {
        if (stopped) throw stopped;
        await new Promise<void>((resolve) => (woken = resolve));
      }
      const reply = replies.shift()!;
      if ('importError' in reply) throw new ImportError(reply.importError.position, reply.importError.reason);
      if ('failure' in reply) throw new Error(`reading the import file failed: ${reply.failure}`);
      worker.postMessage(1);
      yield reply.batch;
      if (reply.batch.kind === 'end') return;
    }
  } finally {
    await worker.terminate();
  }
}
