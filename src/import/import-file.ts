// The import pipeline's entries: a file or an in-memory data set is read, validated and batched here, and written by the store's one call (Store.applyWrite).
import type { Clock } from '../clock.js';
import type { WriteOptions } from '../store/contract/store.js';
import { RECORDS, type WriteSummary } from '../store/contract/commands.js';
import type { Store } from '../store/contract/store.js';
import type { WriteBatch } from '../store/contract/write-batch.js';
import { batchesOfFile } from './file-batches.js';
import { prepareBatches } from './prepare-batches.js';
import type { RawRecord } from './read-records.js';
import { validateRecords } from './validate-records.js';

/**
 * The file is read, validated and batched on a worker thread while this one writes (file-batches.ts).
 * `onRecord` hears how many records were read so far, a batch at a time.
 */
export async function importFile(
  store: Store,
  path: string,
  clock: Clock,
  onRecord?: (count: number) => void,
  options?: WriteOptions,
): Promise<WriteSummary> {
  async function* reported(batches: AsyncIterable<WriteBatch>): AsyncGenerator<WriteBatch> {
    for await (const batch of batches) {
      onRecord?.(batch.records);
      yield batch;
    }
  }
  return store.applyWrite(RECORDS, reported(batchesOfFile(path)), clock, options);
}

/** Imports records already in memory (the demo data set, tests), through the same validation. */
export async function importDataset(
  store: Store,
  dataset: { threats: unknown[]; feeds: unknown[]; indicators: unknown[]; links: unknown[] },
  clock: Clock,
  options?: WriteOptions,
): Promise<WriteSummary> {
  /** A thousand records at a time, as a file gives them a chunk at a time. */
  async function* raw(): AsyncGenerator<RawRecord[]> {
    const sections = [
      ['threats', 'threat'],
      ['feeds', 'feed'],
      ['indicators', 'indicator'],
      ['links', 'link'],
    ] as const;
    for (const [section, kind] of sections) {
      const list = dataset[section];
      for (let from = 0; from < list.length; from += 1000) {
        const to = Math.min(from + 1000, list.length);
        const part: RawRecord[] = [];
        for (let i = from; i < to; i++) part.push({ position: `${section}[${i}]`, kind, raw: list[i] });
        yield part;
      }
    }
  }
  return store.applyWrite(RECORDS, prepareBatches(validateRecords(raw())), clock, options);
}
