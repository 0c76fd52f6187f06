// The statements that write a file's records: each table's upsert by content hash, and the staging
// of its links and keys (change-set.ts); the columns each row of contract/staging-rows.ts fills.
import type { RowTable } from '../db/bulk-insert.js';
import type { FeedUpsertRow, IndicatorUpsertRow, KeyStagingRow, LinkStagingRow, ThreatUpsertRow } from '../contract/staging-rows.js';

/** The columns of a threat's row, in the order of ThreatUpsertRow. */
export const THREAT_COLUMNS = [
  'tid', 'name', 'category', 'risk', 'description', 'notes', 'wikisummary', 'wikireference', 'retired', 'stamp_added', 'stamp_updated',
  'stamp_seen', 'stamp_retired', 'othernames', 'attributes', 'ttps', 'news', 'comments', 'related', 'content_hash',
] as const;

/** The aggregates a record's row starts with: derive computes them once the write's links are in; an upsert leaves them alone. */
export const THREAT_COMPUTED = { summary: '{}', updated_last_domain: null } as const;
const FEED_COMPUTED = { indicators: '{}', summary: '{}' } as const;

const FEED_COLUMNS = [
  'fid', 'name', 'organization', 'name_key', 'organization_key', 'category', 'pricing', 'contact', 'website', 'schedule', 'stamp_added',
  'stamp_updated', 'stamp_pulled', 'stamp_modified', 'description', 'accesslink', 'content_hash',
] as const;

const INDICATOR_COLUMNS = [
  'iid', 'value', 'type', 'risk', 'stamp_added', 'stamp_updated', 'stamp_seen', 'retired', 'attributes', 'properties', 'content_hash',
] as const;

/** The upsert of one table: rows whose content hash is unchanged are left alone; changed keys are returned. */
function upsertTable<Row extends readonly unknown[]>(
  table: 'threats' | 'feeds' | 'indicators', key: string, columns: RowTable<Row>['columns'], fixed?: Readonly<Record<string, string | null>>,
): RowTable<Row> {
  const updates = (columns as readonly string[]).filter((c) => c !== key).map((c) => `${c} = excluded.${c}`);
  return {
    table,
    columns,
    ...(fixed === undefined ? {} : { fixed }),
    tail: `on conflict (${key}) do update set ${updates.join(', ')} where ${table}.content_hash <> excluded.content_hash returning ${key}`,
  };
}

export const UPSERTS = {
  threats: { table: upsertTable<ThreatUpsertRow>('threats', 'tid', THREAT_COLUMNS, THREAT_COMPUTED), key: 'tid' },
  feeds: { table: upsertTable<FeedUpsertRow>('feeds', 'fid', FEED_COLUMNS, FEED_COMPUTED), key: 'fid' },
  indicators: { table: upsertTable<IndicatorUpsertRow>('indicators', 'iid', INDICATOR_COLUMNS), key: 'iid' },
} as const;

/** Links go to a staging table first: their targets may come later in the file (change-set.ts). */
export const LINK_STAGING: RowTable<LinkStagingRow> = {
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
 * in constant memory (docs/architecture.md, "Writes").
 */
export const KEY_STAGING: RowTable<KeyStagingRow> = {
  table: 'import_keys',
  columns: ['kind', 'id', 'content', 'ordinal', 'position'],
  tail:
    'on conflict (kind, id) do update set conflict_ordinal = excluded.ordinal, conflict_position = excluded.position ' +
    'where import_keys.content <> excluded.content and import_keys.conflict_ordinal is null',
};
