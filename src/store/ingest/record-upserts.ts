// The statements that write a file's records: each table's upsert by content hash, and the columns
// each row of contract/staging-rows.ts fills. Its links and keys are staged in the change set
// (changes/staged-links.ts, changes/staged-keys.ts).
import type { RowTable } from '../db/bulk-insert.js';
import type { FeedUpsertRow, IndicatorUpsertRow, ThreatUpsertRow } from '../contract/staging-rows.js';

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
