// The store's write contract for imports: the batches it takes, the columns their rows fill, and the
// statements that write them. Import builds the batches (src/import/prepare-batches.ts), the store writes them.
import type { BulkInsert } from '../db/bulk-insert.js';
import type { ImportCounts } from './records.js';
import type { PullPlan } from '../ingest/pull-writer.js';
import type { LifecyclePlan, ThreatStatePlan } from '../ingest/lifecycle-writer.js';

/** A related tid as the file's threats first name it: it must be a threat of the store or the file. */
export interface RelatedReference {
  tid: number;
  ordinal: number;
  position: string;
}

/**
 * One INSERT's worth of rows (`params` holds `count` rows of the table's columns, in order; `keys`
 * their rows of KEY_STAGING below), or the end of the records with how many of each kind
 * were read and the related tids named. `records` counts the records read so far.
 */
export type WriteBatch =
  | { kind: 'threats'; params: unknown[]; keys: unknown[]; count: number; records: number; names: [tid: number, nameKeys: string[]][] }
  | { kind: 'feeds' | 'indicators'; params: unknown[]; keys: unknown[]; count: number; records: number }
  | { kind: 'links'; params: unknown[]; count: number; records: number }
  /** Source objects of the file's feeds (fid, JSON), after the feeds: each replaces the feed's source when it differs. */
  | { kind: 'sources'; rows: [fid: number, definition: string][]; stamp: string; records: number }
  /** A lifecycle run, or staff retiring or reactivating a threat (lifecycle-writer.ts), before the end. */
  | { kind: 'lifecycle'; plan: LifecyclePlan; records: number }
  | { kind: 'threat-state'; plan: ThreatStatePlan; records: number }
  /** A feed pull (pull-writer.ts) starts with its plan, then gives its values, then the end. */
  | { kind: 'pull'; plan: PullPlan; records: number }
  /**
   * Values of a pull: `params` rows of VALUE_STAGING, `threats` (`threatCount` rows) of
   * VALUE_THREAT_STAGING, `refs` (`refCount` rows) of VALUE_REF_STAGING, `withdrawn`
   * (`withdrawnCount` rows) of WITHDRAWN_STAGING: values the source no longer asserts (pull-writer.ts).
   */
  | {
      kind: 'values'; params: unknown[]; count: number; threats: unknown[]; threatCount: number; refs?: unknown[]; refCount?: number;
      withdrawn?: unknown[]; withdrawnCount?: number; records: number;
    }
  /** Threats upstream objects indicate: `rows` of REF_THREAT_STAGING, `defs` of THREAT_DEF_STAGING (pull-writer.ts). */
  | { kind: 'relations'; rows: unknown[]; count: number; defs: unknown[]; defCount: number; records: number }
  /** `skippedTtps`: ttps items of the threats read that name no ATT&CK technique (left out of STIX, counted for the summary). */
  | { kind: 'end'; records: number; read: ImportCounts; related: RelatedReference[]; skippedTtps?: number };

/** Columns of each table as an import writes them; computed aggregates start empty. */
export const THREAT_COLUMNS = [
  'tid', 'name', 'category', 'risk', 'description', 'notes', 'wikisummary', 'wikireference', 'retired', 'stamp_added', 'stamp_updated',
  'stamp_seen', 'stamp_retired', 'othernames', 'attributes', 'ttps', 'news', 'comments', 'related', 'content_hash', 'summary',
  'updated_last_domain',
] as const;

export const FEED_COLUMNS = [
  'fid', 'name', 'organization', 'name_key', 'organization_key', 'category', 'pricing', 'contact', 'website', 'schedule', 'stamp_added',
  'stamp_updated', 'stamp_pulled', 'stamp_modified', 'description', 'accesslink', 'content_hash', 'indicators', 'summary',
] as const;

export const INDICATOR_COLUMNS = [
  'iid', 'value', 'type', 'risk', 'stamp_added', 'stamp_updated', 'stamp_seen', 'retired', 'attributes', 'properties', 'content_hash',
] as const;

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

/** Links go to a staging table first: their targets may come later in the file (import-staging.ts). */
export const LINK_STAGING: BulkInsert = {
  table: 'import_links',
  columns: ['kind', 'owner', 'iid', 'stamp_linked', 'ordinal', 'position'],
  tail: `on conflict (kind, owner, iid) do update set stamp_linked = excluded.stamp_linked, ordinal = excluded.ordinal, position = excluded.position`,
};

/** The `kind` of a staged link (import-staging.ts). */
export const LINK_KIND = { feed: 0, threat: 1 } as const;

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
