// The statements that write a file's records: each table's upsert by content hash, and the staging
// of its links and keys (change-set.ts), in the columns of contract/write-batch.ts.
import type { BulkInsert } from '../db/bulk-insert.js';
import { FEED_COLUMNS, INDICATOR_COLUMNS, THREAT_COLUMNS } from '../contract/write-batch.js';

/** Columns an upsert leaves alone: the key and the aggregates computed after the import. */
const COMPUTED = new Set(['summary', 'indicators', 'updated_last_domain']);

/** The upsert of one table: rows whose content hash is unchanged are left alone; changed keys are returned. */
function upsertSpec(table: 'threats' | 'feeds' | 'indicators', key: string, columns: readonly string[]): BulkInsert {
  const updates = columns.filter((c) => c !== key && !COMPUTED.has(c)).map((c) => `${c} = excluded.${c}`);
  return {
    table,
    columns,
    tail: `on conflict (${key}) do update set ${updates.join(', ')} where ${table}.content_hash <> excluded.content_hash returning ${key}`,
  };
}

export const UPSERTS = {
  threats: { spec: upsertSpec('threats', 'tid', THREAT_COLUMNS), key: 'tid' },
  feeds: { spec: upsertSpec('feeds', 'fid', FEED_COLUMNS), key: 'fid' },
  indicators: { spec: upsertSpec('indicators', 'iid', INDICATOR_COLUMNS), key: 'iid' },
} as const;

/** Links go to a staging table first: their targets may come later in the file (change-set.ts). */
export const LINK_STAGING: BulkInsert = {
  table: 'import_links',
  columns: ['kind', 'owner', 'iid', 'stamp_linked', 'ordinal', 'position'],
  tail: `on conflict (kind, owner, iid) do update set stamp_linked = excluded.stamp_linked, ordinal = excluded.ordinal, position = excluded.position`,
};

/**
 * Every key of the file is staged with its first position and a 52-bit prefix of its content hash
 * (a false match between two different records is a 1 in 2^52 chance). A later record of the key
 * with another prefix marks the row with its own position, once; the import's end reads the
 * earliest mark (record-checks.ts). The keys live in a table of the transaction, not in memory: a
 * Map of every iid to its hash and position would grow with the file, where the import must stream
 * in constant memory (DESIGN section 3).
 */
export const KEY_STAGING: BulkInsert = {
  table: 'import_keys',
  columns: ['kind', 'id', 'content', 'ordinal', 'position'],
  tail:
    'on conflict (kind, id) do update set conflict_ordinal = excluded.ordinal, conflict_position = excluded.position ' +
    'where import_keys.content <> excluded.content and import_keys.conflict_ordinal is null',
};
