// Validates raw import records as they stream by; the first bad one aborts the whole import.
import { ImportError } from '../errors.js';
import type { PositionedRecord } from './prepare-batches.js';
import type { RawRecord } from './read-records.js';
import { parseRecord } from './record-schemas.js';

/** Records come and go in lists (a chunk of the file at a time): one await per list, not per record. */
export async function* validateRecords(raw: AsyncIterable<readonly RawRecord[]>): AsyncGenerator<PositionedRecord[]> {
  for await (const list of raw) {
    const valid: PositionedRecord[] = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const { position, kind, raw: value } = list[i]!;
      const parsed = parseRecord(kind, value);
      if (!parsed.ok) throw new ImportError(position, parsed.reason);
      valid[i] = { position, record: parsed.record };
    }
    yield valid;
  }
}
