// What a feed reader yields: raw entries (not yet normalized) in batches, and the error for a body no reader can use.

/** One row of a feed as the source wrote it; the pull normalizes `value` and resolves the rest (DESIGN 7). */
export interface FeedEntry {
  value: string;
  type?: string;
  threat?: string;
  risk?: string;
  lastSeen?: string;
  /** Where the row is, for messages: `line 12` (text, csv, NDJSON) or `data[3]` (a JSON array). */
  position: string;
}

/**
 * A reader's output, one batch per chunk of the body: rows that carry no value (an empty csv cell, a
 * JSON object without the value field) are counted in `skipped`, not errors. Comment and blank
 * lines are not rows and are not counted.
 *
 * Readers yield batches rather than one array for the whole body because a body may reach
 * `maxMegabytes` (256 MB by default): text, csv and NDJSON are read as the chunks arrive, so a
 * pull holds one chunk's entries at a time, not several million.
 */
export interface FeedBatch {
  entries: FeedEntry[];
  skipped: number;
}

/** The body cannot be used at all, so the pull fails and changes nothing (DESIGN 7, "A failed pull"). */
export class FeedFormatError extends Error {
  override name = 'FeedFormatError';
  constructor(
    readonly position: string,
    readonly reason: string,
  ) {
    super(`${position}: ${reason}`);
  }
}

/** All entries of a reader's batches in one result, for small bodies and tests. */
export async function collectEntries(batches: AsyncIterable<FeedBatch>): Promise<FeedBatch> {
  const all: FeedBatch = { entries: [], skipped: 0 };
  for await (const batch of batches) {
    // One by one: spreading a large batch into push() can exceed the argument limit.
    for (const entry of batch.entries) all.entries.push(entry);
    all.skipped += batch.skipped;
  }
  return all;
}
