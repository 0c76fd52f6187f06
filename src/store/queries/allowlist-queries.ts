// Reads and removals of the run-time allowlist (DESIGN 12); adding goes through a write (allowlist-writer.ts).
import type { Kysely } from 'kysely';
import type { IndicatorCover } from '../contract/commands.js';
import type { AllowlistEntry, AllowlistPreview } from '../contract/records.js';
import type { Database } from '../db/schema.js';
import { scanCovered } from '../ingest/allowlist-writer.js';

export async function listAllowlistEntries(db: Kysely<Database>): Promise<AllowlistEntry[]> {
  return db.selectFrom('allowlist_entries').select(['entry', 'reason', 'added_by', 'added_at']).orderBy('added_at').orderBy('entry').execute();
}

/** Deletes the entry; false when the store had none. What it retired stays retired until a pull lists it again. */
export async function removeAllowlistEntry(db: Kysely<Database>, entry: string): Promise<boolean> {
  const result = await db.deleteFrom('allowlist_entries').where('entry', '=', entry).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** What adding an entry would retire now: the same scan the write makes (the dry run). */
export async function previewAllowlistEntry(db: Kysely<Database>, cover: IndicatorCover, sampleSize: number): Promise<AllowlistPreview> {
  const preview: AllowlistPreview = { count: 0, sample: [] };
  await scanCovered(db, cover, (rows) => {
    preview.count += rows.length;
    for (const row of rows) if (preview.sample.length < sampleSize) preview.sample.push(row);
  });
  return preview;
}
