// Reads and removals of the run-time allowlist (docs/interface.md section 13); adding goes through a write (allowlist-writer.ts).
import type { Kysely } from 'kysely';
import type { IndicatorCover } from '../contract/commands.js';
import type { AllowlistEntry, AllowlistPreview } from '../contract/records.js';
import type { Database } from '../db/schema.js';
import { scanCovered } from '../ingest/allowlist-writer.js';

/** The entries, oldest first, each with the label of the key that added it (docs/interface.md, section 13). */
export async function listAllowlistEntries(db: Kysely<Database>): Promise<AllowlistEntry[]> {
  const rows = await db
    .selectFrom('allowlist_entries as a')
    .leftJoin('api_keys as k', 'k.id', 'a.added_by')
    .select(['a.entry', 'a.reason', 'a.added_by', 'a.added_at', 'k.label as added_by_label'])
    .orderBy('a.added_at')
    .orderBy('a.entry')
    .execute();
  // A key stored with an empty label has none to show.
  return rows.map((row) => ({ ...row, added_by_label: row.added_by_label === '' ? null : row.added_by_label }));
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
