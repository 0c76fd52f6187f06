// Validates raw import records as they stream by; the first bad one aborts the whole import.
import { ImportError } from '../errors.js';
import type { PositionedRecord } from '../store/write-batches.js';
import type { RawRecord } from './read-records.js';
import { parseRecord } from './record-schemas.js';

export async function* validateRecords(raw: AsyncIterable<RawRecord>): AsyncGenerator<PositionedRecord> {
  for await (const { position, kind, raw: value } of raw) {
    const parsed = parseRecord(kind, value);
    if (!parsed.ok) throw new ImportError(position, parsed.reason);
    yield { position, record: parsed.record };
  }
}
