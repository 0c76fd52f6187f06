// The rows of one batch of one kind, pending by key: a tid, fid or iid given twice in one import must
// come with the same content. Pure JavaScript, as prepare-batches.ts (a worker runs it).
import { ImportError } from '../errors.js';
import { conflictReason, KEY_KIND, type KeyKind } from '../store/contract/write-batch.js';
import type { KeyStagingRow } from '../store/contract/staging-rows.js';

interface Pending<T> {
  value: T;
  ordinal: number;
  position: string;
}

/**
 * The rows of one batch of one kind, by key. A batch never holds one key twice (PostgreSQL refuses
 * a statement that touches a row twice): a repeat within the batch is compared here, whole, and
 * dropped when it is the same record; the store compares repeats across batches (KeyStagingRow).
 */
export class PendingRows<T> {
  private readonly rows = new Map<number, Pending<T>>();

  constructor(private readonly kind: KeyKind) {}

  get size(): number {
    return this.rows.size;
  }

  /** Adds the record at `position`; throws its ImportError when its key is pending with other content. */
  add(id: number, value: T, ordinal: number, position: string): void {
    const earlier = this.rows.get(id);
    if (earlier === undefined) this.rows.set(id, { value, ordinal, position });
    else if (JSON.stringify(earlier.value) !== JSON.stringify(value)) {
      throw new ImportError(position, conflictReason(KEY_KIND[this.kind], id, earlier.position));
    }
  }

  /**
   * The pending records as the store's rows (`addRow` appends a record's row to `rows` and returns
   * its content hash), and their keys; then none are pending.
   */
  take<Row>(addRow: (rows: Row[], value: T) => string): { rows: Row[]; keys: KeyStagingRow[] } {
    const rows: Row[] = [];
    const keys: KeyStagingRow[] = [];
    const kind = KEY_KIND[this.kind];
    for (const [id, { value, ordinal, position }] of this.rows) {
      const contentHash = addRow(rows, value);
      keys.push([kind, id, Number.parseInt(contentHash.slice(0, 13), 16), ordinal, position]);
    }
    this.rows.clear();
    return { rows, keys };
  }
}
