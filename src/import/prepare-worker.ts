// Entry of the worker thread that reads an import file: it parses, validates and batches the
// records (prepare-batches.ts) while the import's thread writes the batches before.
import { parentPort, workerData } from 'node:worker_threads';
import { ImportError } from '../errors.js';
import type { WriteBatch } from '../store/contract/write-batch.js';
import { prepareBatches } from './prepare-batches.js';
import { readRecords } from './read-records.js';
import { validateRecords } from './validate-records.js';

export type PrepareReply = { batch: WriteBatch } | { importError: { position: string; reason: string } } | { failure: string };

/** Batches sent ahead of the import's thread at most; it grants one more for each it takes. */
export const BATCHES_AHEAD = 16;

const port = parentPort;
if (port === null) throw new Error('prepare-worker.js runs as a worker thread');
const { path } = workerData as { path: string };

let credit = BATCHES_AHEAD;
let granted: (() => void) | undefined;
port.on('message', (more: number) => {
  credit += more;
  granted?.();
  granted = undefined;
});

async function run(): Promise<void> {
  try {
    for await (const batch of prepareBatches(validateRecords(readRecords(path)))) {
      while (credit === 0) await new Promise<void>((resolve) => (granted = resolve));
      credit--;
      port!.postMessage({ batch } satisfies PrepareReply);
    }
  } catch (error) {
    const reply: PrepareReply =
      error instanceof ImportError ? { importError: { position: error.position, reason: error.reason } } : { failure: error instanceof Error ? error.message : String(error) };
    port!.postMessage(reply);
  }
  port!.close();
}

void run();
