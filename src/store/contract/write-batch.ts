// The store's write contract: the batches a write takes and the columns their rows fill, in order.
// src/import builds them from a file (prepare-batches.ts), src/sources from a pull, src/lifecycle
// from a run; the store writes them (ingest/).
import type { ImportCounts } from './commands.js';

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
  /** Source objects of the file's feeds (fid, JSON), after the feeds: each replaces the feed's source when it differs, stamped with the write's time. */
  | { kind: 'sources'; rows: [fid: number, definition: string][]; records: number }
  /**
   * Values of a pull: `params` rows of VALUE_STAGING, `threats` (`threatCount` rows) of
   * VALUE_THREAT_STAGING, `refs` (`refCount` rows) of VALUE_REF_STAGING, `withdrawn`
   * (`withdrawnCount` rows) of WITHDRAWN_STAGING: values the source no longer asserts, `attributes`
   * (`attributeCount` rows) of VALUE_ATTRIBUTE_STAGING: what a row's columns said (pull-writer.ts).
   */
  | {
      kind: 'values'; params: unknown[]; count: number; threats: unknown[]; threatCount: number; refs?: unknown[]; refCount?: number;
      withdrawn?: unknown[]; withdrawnCount?: number; attributes?: unknown[]; attributeCount?: number; records: number;
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

/**
 * How much of what pulls say an indicator's `attributes` keep (issue 33): a pull adds the values it
 * reads to the stored lists, the first ones kept. An indicator holds at most `keys` attribute names
 * and `valuesPerKey` values under each; a name over `nameLength` characters or a value over
 * `valueLength` is not kept at all. Bounded so that a feed that puts a new tag on a value every pull
 * cannot grow its row (and its STIX object) without end; first wins, so that once full an indicator
 * stops changing rather than churning a new STIX version each pull.
 */
export const ATTRIBUTE_LIMITS = { keys: 32, valuesPerKey: 64, nameLength: 64, valueLength: 256 } as const;

/** The `kind` of a staged link (ingest/change-set.ts). */
export const LINK_KIND = { feed: 0, threat: 1 } as const;

/** The `kind` of a staged key (ingest/change-set.ts), and how messages name its record and key. */
export const KEY_KIND = { threat: 0, feed: 1, indicator: 2 } as const;
export type KeyKind = keyof typeof KEY_KIND;
const KEY_NAMES: Record<number, [record: KeyKind, key: string]> = { 0: ['threat', 'tid'], 1: ['feed', 'fid'], 2: ['indicator', 'iid'] };

/** Why a record is refused: its key came earlier in the file with other content. */
export function conflictReason(kind: number, id: number, earlierPosition: string): string {
  const [record, key] = KEY_NAMES[kind] ?? ['record', 'id'];
  return `${record} ${key} ${id} conflicts with ${earlierPosition}: the same ${key} with other content`;
}

/** The batches of a write that reads no records (a lifecycle run, a threat's state, an allowlist entry): none; its plan is all. */
export async function* noBatches(): AsyncGenerator<WriteBatch> {}
