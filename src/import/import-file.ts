// Imports one file into the store: read, validate, write, all in one transaction.
import type { Clock } from '../clock.js';
import { ImportError } from '../errors.js';
import type { ImportOptions, PositionedRecord } from '../store/import-writer.js';
import type { ImportSummary } from '../store/records.js';
import type { Store } from '../store/store.js';
import { readRecords, type RawRecord } from './read-records.js';
import { parseRecord } from './record-schemas.js';

/** Validates each raw record as it streams by; the first bad one aborts the whole import. */
export async function* validateRecords(raw: AsyncIterable<RawRecord>, onRecord?: (count: number) => void): AsyncGenerator<PositionedRecord> {
  let count = 0;
  for await (const { position, kind, raw: value } of raw) {
    const parsed = parseRecord(kind, value);
    if (!parsed.ok) throw new ImportError(position, parsed.reason);
    count++;
    onRecord?.(count);
    yield { position, record: parsed.record };
  }
}

export async function importFile(
  store: Store,
  path: string,
  clock: Clock,
  onRecord?: (count: number) => void,
  options?: ImportOptions,
): Promise<ImportSummary> {
  return store.importRecords(validateRecords(readRecords(path), onRecord), clock, options);
}

/** Imports records already in memory (the demo data set, tests), through the same validation. */
export async function importDataset(
  store: Store,
  dataset: { threats: unknown[]; feeds: unknown[]; indicators: unknown[]; links: unknown[] },
  clock: Clock,
  options?: ImportOptions,
): Promise<ImportSummary> {
  async function* raw(): AsyncGenerator<RawRecord> {
    const sections = [
      ['threats', 'threat'],
      ['feeds', 'feed'],
      ['indicators', 'indicator'],
      ['links', 'link'],
    ] as const;
    for (const [section, kind] of sections) {
      const list = dataset[section];
      for (let i = 0; i < list.length; i++) yield { position: `${section}[${i}]`, kind, raw: list[i] };
    }
  }
  return store.importRecords(validateRecords(raw()), clock, options);
}
