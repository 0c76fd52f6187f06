// The store's write contract: the batches a write takes, each a list of typed rows per table
// (staging-rows.ts). src/import builds them from a file (prepare-batches.ts), src/sources from a
// pull; the store writes them (ingest/), and only the store knows the columns they fill.
import type { ImportCounts } from './commands.js';
import type {
  FeedUpsertRow, IndicatorUpsertRow, KeyStagingRow, LinkStagingRow, RefThreatStagingRow, ThreatDefStagingRow, ThreatUpsertRow, ValueAttributeStagingRow,
  ValueRefStagingRow, ValueStagingRow, ValueThreatStagingRow, WithdrawnStagingRow,
} from './staging-rows.js';

/** A related tid as the file's threats first name it: it must be a threat of the store or the file. */
export interface RelatedReference {
  tid: number;
  ordinal: number;
  position: string;
}

/**
 * One batch of a write: a file's records of one kind with their keys, its links, its feeds' sources,
 * a pull's values or relations, or the end of the records with how many of each kind were read and
 * the related tids named. `records` counts the records read so far.
 */
export type WriteBatch =
  | { kind: 'threats'; rows: ThreatUpsertRow[]; keys: KeyStagingRow[]; records: number; names: [tid: number, nameKeys: string[]][] }
  | { kind: 'feeds'; rows: FeedUpsertRow[]; keys: KeyStagingRow[]; records: number }
  | { kind: 'indicators'; rows: IndicatorUpsertRow[]; keys: KeyStagingRow[]; records: number }
  | { kind: 'links'; rows: LinkStagingRow[]; records: number }
  /** Source objects of the file's feeds (fid, JSON), after the feeds: each replaces the feed's source when it differs, stamped with the write's time. */
  | { kind: 'sources'; rows: [fid: number, definition: string][]; records: number }
  /**
   * Values of a pull, the threats and upstream objects their rows name, the values the source
   * withdrew (no longer asserts), and what the rows' other columns said.
   */
  | {
      kind: 'values'; values: ValueStagingRow[]; threats: ValueThreatStagingRow[]; refs: ValueRefStagingRow[]; withdrawn: WithdrawnStagingRow[];
      attributes: ValueAttributeStagingRow[]; records: number;
    }
  /** Threats that upstream objects indicate, and the threats the source describes. */
  | { kind: 'relations'; refThreats: RefThreatStagingRow[]; threatDefs: ThreatDefStagingRow[]; records: number }
  /** `skippedTtps`: ttps items of the threats read that name no ATT&CK technique (left out of STIX, counted for the summary). */
  | { kind: 'end'; records: number; read: ImportCounts; related: RelatedReference[]; skippedTtps: number };

/**
 * How much of what pulls say an indicator's `attributes` keep: a pull adds the values it
 * reads to the stored lists, the first ones kept. An indicator holds at most `keys` attribute names
 * and `valuesPerKey` values under each; a name over `nameLength` characters or a value over
 * `valueLength` is not kept at all. Bounded so that a feed that puts a new tag on a value every pull
 * cannot grow its row (and its STIX object) without end; first wins, so that once full an indicator
 * stops changing rather than churning a new STIX version each pull.
 */
export const ATTRIBUTE_LIMITS = { keys: 32, valuesPerKey: 64, nameLength: 64, valueLength: 256 } as const;

/** The `kind` of a staged link (LinkStagingRow). */
export const LINK_KIND = { feed: 0, threat: 1 } as const;

/** The `kind` of a staged key (KeyStagingRow), and how messages name its record and key. */
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
