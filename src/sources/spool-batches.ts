// A paged source's batches (a TAXII walk, a MISP feed, lookup-api pages) read to their end into a
// file before the pull's transaction begins, then replayed into it: the network walk holds no
// database connection or lock, so pulls run side by side, leases are renewed while a walk runs,
// and the transaction lasts as long as the writing, not as long as the upstream
// (docs/interface.md section 10, "Background pulls").
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { FeedBatch } from './parsers/feed-entry.js';
import { makePullDir } from './pull-temp.js';

export interface SpooledBatches {
  /** The batches again, in order, read back from the file. */
  replay(): AsyncIterable<FeedBatch>;
  /** Deletes the file; safe to call more than once. */
  remove(): Promise<void>;
}

const LENGTH_BYTES = 4;

/**
 * Reads `batches` to their end into a file of length-prefixed frames (v8 serialization keeps every
 * field and type as it was). A failure of the source passes through, and the file is removed then.
 * `onRows` hears the rows read so far.
 */
export async function spoolBatches(batches: AsyncIterable<FeedBatch>, onRows?: (rows: number) => void): Promise<SpooledBatches> {
  const dir = await makePullDir();
  const path = join(dir, 'batches');
  const remove = () => rm(dir, { recursive: true, force: true });
  let rows = 0;
  try {
    const file = await open(path, 'w');
    try {
      for await (const batch of batches) {
        const frame = serialize(batch);
        const length = Buffer.alloc(LENGTH_BYTES);
        length.writeUInt32BE(frame.byteLength);
        await file.writev([length, frame]);
        rows += batch.entries.length + batch.skipped;
        onRows?.(rows);
      }
    } finally {
      await file.close();
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { replay: () => replay(path), remove };
}

async function* replay(path: string): AsyncGenerator<FeedBatch> {
  const file = await open(path, 'r');
  try {
    const length = Buffer.alloc(LENGTH_BYTES);
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(length, 0, LENGTH_BYTES, position);
      if (bytesRead === 0) return;
      const size = length.readUInt32BE(0);
      const frame = Buffer.alloc(size);
      await file.read(frame, 0, size, position + LENGTH_BYTES);
      position += LENGTH_BYTES + size;
      yield deserialize(frame) as FeedBatch;
    }
  } finally {
    await file.close();
  }
}
