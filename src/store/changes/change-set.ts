// The change set of a write: which records it inserted or changed, the links it staged, and the
// rows indicators had before it changed them, in the temporary tables of its transaction
// (change-tables.ts). The writers of ingest note what they change through this folder's functions;
// derive and publish read only the ChangeSet ingest hands them.
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { changeTables, type ChangeTables } from './change-tables.js';

/**
 * How many records a write inserted or changed. Which ones is in the change set's tables of the
 * transaction, for the derive and publish stages that follow in the same transaction.
 */
export interface ImportChanges {
  threats: number;
  feeds: number;
  indicators: number;
  feedLinks: number;
  threatLinks: number;
  /**
   * The store held no data before this import (no records, links or STIX objects): everything in
   * it is new, so later steps may write it in bulk instead of comparing with what was there.
   */
  fresh: boolean;
  /** A feed pull: it changes the feed's pull stamps and sightings even when no record changed. */
  pulled: boolean;
  /**
   * An observation of a stored record (a sighting, a submission of a known value: docs/observations.md):
   * it changes counters and stamps the lookups show even when no record changed.
   */
  observed?: boolean;
  /**
   * Records the observation touched without changing them as records (ObservedRecords); absent,
   * none. They change no aggregate, so derive leaves them.
   */
  seenThreats?: number;
  sightedIndicators?: number;
}

/** The records whose keys a write notes when it inserts or changes them. */
export type ChangedRecords = 'threats' | 'feeds' | 'indicators';

/**
 * Records an observation touched without changing them as records: threats whose stamp_seen moved,
 * whose own STIX object gets a new version (its `last_seen`) and nothing else (not their links, nor
 * their aggregates); indicators whose sightings changed, whose STIX sighting gets one
 * (docs/stix-mapping.md, "Sightings").
 */
export type ObservedRecords = 'seen-threats' | 'sighted-indicators';

/** The table of the change set that holds the keys of each kind of record. */
const CHANGED_TABLE = {
  threats: 'changed_threats', feeds: 'changed_feeds', indicators: 'changed_indicators', 'seen-threats': 'observed_threats', 'sighted-indicators': 'sighted_indicators',
} as const satisfies Record<ChangedRecords | ObservedRecords, keyof ChangeTables>;

/**
 * What ingest hands derive and publish: how much changed, and queries over what changed, which they
 * read as subqueries; no stage outside this folder names the change set's tables.
 */
export interface ChangeSet extends ImportChanges {
  /**
   * The write's links of one kind (LINK_KIND), or of both, that are new to the store (`added`), or
   * new or restamped (`changed`).
   */
  links(which: 'added' | 'changed', kind?: 0 | 1): RawBuilder<{ kind: number; owner: number; iid: number }>;
  /** The keys of the records of one table that the write inserted or changed, or observed (ObservedRecords). */
  changedIds(records: ChangedRecords | ObservedRecords): RawBuilder<{ id: number }>;
  /** The rows indicators had before the write changed them; `repatterned` 1 when their type or value changed. */
  replacedIndicators(): RawBuilder<ReplacedIndicatorRow>;
}

export type ReplacedIndicatorRow = ChangeTables['replaced_indicators'];

/** The change set of a write whose changes are `counts`, staged in its transaction's tables. */
export function changeSetOf(counts: ImportChanges): ChangeSet {
  return {
    ...counts,
    links: (which, kind) => {
      const flag = which === 'added' ? sql`added = 1` : sql`changed = 1`;
      const ofKind = kind === undefined ? sql`` : sql` and kind = ${kind}`;
      return sql`select kind, owner, iid from import_links where ${flag}${ofKind}`;
    },
    changedIds: (records) => sql`select id from ${sql.table(CHANGED_TABLE[records])}`,
    replacedIndicators: () =>
      sql`select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned from replaced_indicators`,
  };
}

export function anyChange(changes: ImportChanges): boolean {
  return changes.threats + changes.feeds + changes.indicators + changes.feedLinks + changes.threatLinks > 0;
}

/** True when an observation touched a record (ObservedRecords): publish has versions to make, and the data changed. */
export function anyObserved(changes: ImportChanges): boolean {
  return (changes.seenThreats ?? 0) + (changes.sightedIndicators ?? 0) > 0;
}

/**
 * A statement's most keys: each is a bound parameter, and SQLite takes at most 32,766 of them in one
 * statement (PostgreSQL 65,535), which a pull that changes the risk of more indicators than that
 * would otherwise pass.
 */
export const KEYS_PER_STATEMENT = 10_000;

/** Notes the keys of records that a writer inserted or changed, or observed; a key noted before stays noted once. */
export async function noteChanged(trx: Kysely<Database>, records: ChangedRecords | ObservedRecords, keys: readonly number[]): Promise<void> {
  for (let i = 0; i < keys.length; i += KEYS_PER_STATEMENT) {
    await changeTables(trx)
      .insertInto(CHANGED_TABLE[records])
      .values(keys.slice(i, i + KEYS_PER_STATEMENT).map((id) => ({ id })))
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}

/**
 * Notes the keys `keys` selects (a query giving one column of keys), for a writer that changes
 * records in one statement and has them in a table of its own rather than in memory.
 */
export async function noteChangedFrom(trx: Kysely<Database>, records: ChangedRecords, keys: RawBuilder<unknown>): Promise<void> {
  await sql`insert into ${sql.table(CHANGED_TABLE[records])} (id) select * from (${keys}) as k where true on conflict (id) do nothing`.execute(trx);
}

/**
 * Notes the keys of records the writer has just inserted, which no writer of the write can have noted
 * before: a plain insert, without the conflict check each row of noteChangedFrom's pays, which
 * PostgreSQL makes a speculative insertion (bench/README.md, "PostgreSQL: no conflict clause where
 * none can conflict").
 */
export async function noteInsertedFrom(trx: Kysely<Database>, records: ChangedRecords, keys: RawBuilder<unknown>): Promise<void> {
  await sql`insert into ${sql.table(CHANGED_TABLE[records])} (id) ${keys}`.execute(trx);
}

/** How many records of one kind the write inserted or changed (or observed) so far. */
export async function countChanged(trx: Kysely<Database>, records: ChangedRecords | ObservedRecords): Promise<number> {
  const row = await changeTables(trx)
    .selectFrom(CHANGED_TABLE[records])
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
