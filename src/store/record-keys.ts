// A tid, fid or iid given twice in one import must come with the same content: the rule, and the
// pending rows of one batch that apply it. Pure JavaScript, as write-batches.ts (a worker runs it).
import { ImportError } from '../errors.js';
import type { BulkInsert } from './bulk-insert.js';

/** The `kind` of a staged key (import-staging.ts), and how messages name its record and key. */
export const KEY_KIND = { threat: 0, feed: 1, indicator: 2 } as const;
export type KeyKind = keyof typeof KEY_KIND;
const KEY_NAMES: Record<number, [record: KeyKind, key: string]> = { 0: ['threat', 'tid'], 1: ['feed', 'fid'], 2: ['indicator', 'iid'] };

/** Why a record is refused: its key came earlier in the file with other content. */
export function conflictReason(kind: number, id: number, earlierPosition: string): string {
  const [record, key] = KEY_NAMES[kind] ?? ['record', 'id'];
  return `${record} ${key} ${id} conflicts with ${earlierPosition}: the same ${key} with other content`;
}

/**
 * Every key of the file is staged with its first position and a 52-bit prefix of its content hash
 * (a false match between two different records is a 1 in 2^52 chance). A later record of the key
 * with another prefix marks the row with its own position, once; the import's end reads the
 * earliest mark (import-checks.ts). The keys live in a table of the transaction, not in memory: a
 * Map of a million iids to hashes alone holds 30 MB of heap, about 100 MB with their positions,
 * growing with the file where the import must stream in constant memory (DESIGN section 3).
 * Staging them costs 0.8 s of SQL in a 1M-indicator import on SQLite (bench/import-phases.ts).
 */
export const KEY_STAGING: BulkInsert = {
  table: 'import_keys',
  columns: ['kind', 'id', 'content', 'ordinal', 'position'],
  tail:
    'on conflict (kind, id) do update set conflict_ordinal = excluded.ordinal, conflict_position = excluded.position ' +
    'where import_keys.content <> excluded.content and import_keys.conflict_ordinal is null',
};

interface Pending<T> {
  value: T;
  ordinal: number;
  position: string;
}

/**
 * The rows of one batch of one kind, by key. A batch never holds one key twice (PostgreSQL refuses
 * a statement that touches a row twice): a repeat within the batch is compared here, whole, and
 * dropped when it is the same record; repeats across batches are compared in import_keys.
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
   * The pending rows, pushed by `push` (which returns the row's content hash) into the statement's
   * parameters, and their keys into those of KEY_STAGING; then none are pending.
   */
  take(push: (params: unknown[], value: T) => string): { params: unknown[]; keys: unknown[]; count: number } {
    const params: unknown[] = [];
    const keys: unknown[] = [];
    const kind = KEY_KIND[this.kind];
    for (const [id, { value, ordinal, position }] of this.rows) {
      const contentHash = push(params, value);
      keys.push(kind, id, Number.parseInt(contentHash.slice(0, 13), 16), ordinal, position);
    }
    const count = this.rows.size;
    this.rows.clear();
    return { params, keys, count };
  }
}
