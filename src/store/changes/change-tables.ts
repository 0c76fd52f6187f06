// The change set's tables: the links and keys a write staged, the records it inserted or changed,
// and the rows indicators had before it changed them, as temporary tables of the write's transaction
// (docs/architecture.md, "Writes"). Only the files of this folder name them in SQL (an architecture
// test holds every other file to that); the stages reach them through this folder's functions.
import { sql, type Generated, type Kysely } from 'kysely';
import { analyzeTemporary, onCommitDrop, type Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { dropTemporaryTables, withoutRowid } from '../db/temporary-tables.js';

/** The change set's tables, typed for Kysely. */
export type ChangeTables = {
  /**
   * Every link of the write; `changed` is 1 for those that were new or had another stamp_linked,
   * `added` 1 for those that were new (the store held no link of that owner and indicator).
   */
  import_links: {
    kind: number; owner: number; iid: number; stamp_linked: string; ordinal: number; position: string; changed: Generated<number>; added: Generated<number>;
  };
  /** Every tid, fid and iid of a file, at its first position; a conflicting repeat marks it (staged-keys.ts). */
  import_keys: {
    kind: number; id: number; content: number; ordinal: number; position: string; conflict_ordinal: number | null; conflict_position: string | null;
  };
  changed_threats: { id: number };
  changed_feeds: { id: number };
  changed_indicators: { id: number };
  /** Threats whose stamp_seen an observation moved, and indicators whose sightings changed (change-set.ts, ObservedRecords). */
  observed_threats: { id: number };
  sighted_indicators: { id: number };
  /**
   * The rows indicators had before the write changed them (replaced-indicators.ts): `repatterned` 1
   * when the type or value changed.
   */
  replaced_indicators: {
    iid: number; value: string; type: string; risk: string; stamp_added: string | null; stamp_updated: string | null; retired: number | null;
    attributes: string; properties: string; repatterned: number;
  };
};

/** Each table once: a table added to ChangeTables must be added here, or this does not compile. */
const TABLES: Record<keyof ChangeTables, true> = {
  import_links: true, import_keys: true, changed_threats: true, changed_feeds: true, changed_indicators: true, observed_threats: true, sighted_indicators: true,
  replaced_indicators: true,
};

/**
 * The names of the change set's tables, made and dropped together; the architecture test
 * (test/architecture/temporary-tables.test.ts) reads them to hold the rest of src to never naming them.
 */
export const CHANGE_TABLE_NAMES = Object.keys(TABLES) as readonly (keyof ChangeTables)[];

/** The store's tables and the change set's, seen through Kysely in the write's transaction. */
export function changeTables(trx: Kysely<Database>): Kysely<Database & ChangeTables> {
  return trx.withTables<ChangeTables>();
}

/** Makes the change set's tables for a write. `fresh`: the store holds no data, so every staged link is new (changed and added). */
export async function createChangeTables(trx: Kysely<Database>, dialect: Dialect, fresh: boolean): Promise<void> {
  // SQLite keeps temporary tables for the connection's life: a failed write may have left them.
  await dropChangeTables(trx);
  const onCommit = onCommitDrop(dialect);
  // The staged links and keys are filled as a file comes and read in key order (moveLinks, the
  // checks): kept in their key's B-tree alone on SQLite.
  const keyOnly = withoutRowid(dialect);
  const isNew = sql.lit(fresh ? 1 : 0);
  await sql`create temporary table import_links (
    kind integer not null, owner bigint not null, iid bigint not null, stamp_linked text not null,
    ordinal bigint not null, position text not null, changed integer not null default ${isNew}, added integer not null default ${isNew},
    primary key (kind, owner, iid)) ${keyOnly} ${onCommit}`.execute(trx);
  await sql`create temporary table import_keys (
    kind integer not null, id bigint not null, content bigint not null, ordinal bigint not null, position text not null,
    conflict_ordinal bigint, conflict_position text,
    primary key (kind, id)) ${keyOnly} ${onCommit}`.execute(trx);
  await sql`create temporary table changed_threats (id bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table changed_feeds (id bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table changed_indicators (id bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table observed_threats (id bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table sighted_indicators (id bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table replaced_indicators (
    iid bigint primary key, value text not null, type text not null, risk text not null,
    stamp_added text, stamp_updated text, retired integer, attributes text not null, properties text not null,
    repatterned integer not null) ${onCommit}`.execute(trx);
}

/**
 * PostgreSQL never analyzes a temporary table by itself, and plans one it knows nothing of as a few
 * rows: the aggregates read a large write's changed indicators a chunk at a time, each chunk's links
 * without the ones the write added, and with import_links taken for a few rows PostgreSQL sorted all
 * of its added links for every chunk (a cost of chunks times the write's size) instead of probing its
 * key for each of the chunk's links. Told their sizes once after the ingest, whatever they are
 * (analyzeTemporary), it probes. SQLite plans from the indexes: nothing to do.
 */
export async function analyzeChangeTables(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  // import_keys serves the ingest's checks alone: nothing after reads it.
  await analyzeTemporary(trx, dialect, CHANGE_TABLE_NAMES.filter((table) => table !== 'import_keys'));
}

/** Drops the change set's tables once the write's last stage has read them. */
export async function dropChangeTables(trx: Kysely<Database>): Promise<void> {
  await dropTemporaryTables(trx, CHANGE_TABLE_NAMES);
}
