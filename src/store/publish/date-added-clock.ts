// Allocates TAXII date_added values: integer microseconds, unique and strictly increasing across imports.
import type { Kysely } from 'kysely';
import { readMeta, writeMeta } from '../db/meta.js';
import type { Database } from '../db/schema.js';

const COUNTER_KEY = 'date_added_last';

/**
 * Each allocation is one microsecond after the previous one, and never before the wall clock.
 * The counter lives in the store (inside the import's transaction), so instances and restarts agree.
 */
export class DateAddedClock {
  private constructor(
    private last: number,
    /** The first value this import may hand out: rows at or above it were added by this import. */
    readonly importStart: number,
  ) {}

  static async open(db: Kysely<Database>, nowMs: number): Promise<DateAddedClock> {
    const stored = Number((await readMeta(db, COUNTER_KEY)) ?? '0');
    const start = Math.max(nowMs * 1000, stored + 1);
    return new DateAddedClock(start - 1, start);
  }

  next(): number {
    this.last += 1;
    return this.last;
  }

  /** Marks every value up to `value` as handed out (after a bulk shift of stored values). */
  reserveThrough(value: number): void {
    if (value > this.last) this.last = value;
  }

  /**
   * The value that replaces a collection's newest date_added: rounded up to a whole millisecond,
   * so a client that resumes with X-TAXII-Date-Added-Last truncated to milliseconds (as some do)
   * neither misses nor repeats objects. Only ever raises the maximum, so order is kept.
   */
  alignToMillisecond(value: number): number {
    const aligned = Math.ceil(value / 1000) * 1000;
    if (aligned > this.last) this.last = aligned;
    return aligned;
  }

  async save(db: Kysely<Database>): Promise<void> {
    if (this.last >= this.importStart) await writeMeta(db, COUNTER_KEY, String(this.last));
  }
}
