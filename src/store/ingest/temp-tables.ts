// Every temporary table of a write, in one place: their columns (typed for Kysely), how each group
// is made and dropped. A write's stages hand each other what changed through these tables, so a
// write of any size holds none of it in memory; they end with the transaction.
import { sql, type Generated, type Kysely } from 'kysely';
import { onCommitDrop, type Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';

/** The change set: what every write stages and what derive and publish read. */
export type ChangeTables = {
  /**
   * Every link of the write; `changed` is 1 for those that were new or had another stamp_linked,
   * `added` 1 for those that were new (the store held no link of that owner and indicator).
   */
  import_links: {
    kind: number; owner: number; iid: number; stamp_linked: string; ordinal: number; position: string; changed: Generated<number>; added: Generated<number>;
  };
  /** Every tid, fid and iid of a file, at its first position; a conflicting repeat marks it (ingest/record-upserts.ts). */
  import_keys: {
    kind: number; id: number; content: number; ordinal: number; position: string; conflict_ordinal: number | null; conflict_position: string | null;
  };
  changed_threats: { id: number };
  changed_feeds: { id: number };
  changed_indicators: { id: number };
  /**
   * The rows indicators had before the write changed them (change-set.ts, keepReplacedIndicators):
   * `repatterned` 1 when the type or value changed.
   */
  replaced_indicators: {
    iid: number; value: string; type: string; risk: string; stamp_added: string | null; stamp_updated: string | null; retired: number | null;
    attributes: string; properties: string; repatterned: number;
  };
};

/** A feed pull's staging (ingest/pull-writer.ts). */
export type PullTables = {
  pull_rows: { type: string; value: string; risk: number; ordinal: number };
  pull_values: { type: string; value: string; risk: number; ordinal: number; iid: number | null; new: number; relisted: number };
  pull_value_threats: { type: string; value: string; name: string };
  pull_threats: { name_key: string; tid: number };
  pull_dropped: { iid: number };
  pull_listed: { iid: number; risk: number; ordinal: number; new: number; relisted: number };
  pull_value_refs: { ref: string; type: string; value: string };
  pull_ref_threats: { ref: string; name: string };
  pull_threat_defs: { name_key: string; name: string; category: string; aliases: string };
  pull_withdrawn: { type: string; value: string };
  pull_withdrawn_iids: { iid: number };
  /** What the rows said besides their values (pull-attributes.ts): as staged, by iid, and the indicators whose attributes change. */
  pull_attributes: { type: string; value: string; seq: number; attributes: string };
  pull_attribute_iids: { iid: number; seq: number; attributes: string };
  pull_attribute_changes: { iid: number; attributes: string; new: number };
};

/** What the STIX projection renders (publish/stix-sync.ts). */
export type RenderTables = {
  render_iids: { iid: number };
  render_links: { tid: number; iid: number };
  render_new: { iid: number };
};

export type TempTables = ChangeTables & PullTables & RenderTables;

/** The store's tables and the write's temporary ones, seen through Kysely in the write's transaction. */
export function staged(trx: Kysely<Database>): Kysely<Database & TempTables> {
  return trx.withTables<TempTables>();
}

/** The change set's tables, for SQL of other stages: they name these, never the tables' names. */
export const CHANGES = {
  links: sql.table('import_links'),
  keys: sql.table('import_keys'),
  threats: sql.table('changed_threats'),
  feeds: sql.table('changed_feeds'),
  indicators: sql.table('changed_indicators'),
  replacedIndicators: sql.table('replaced_indicators'),
} as const;

const CHANGED_TABLES = ['changed_threats', 'changed_feeds', 'changed_indicators'] as const;
const CHANGE_TABLES = ['import_links', 'import_keys', ...CHANGED_TABLES, 'replaced_indicators'] as const;
const PULL_TABLES: readonly (keyof PullTables)[] = [
  'pull_rows', 'pull_values', 'pull_value_threats', 'pull_threats', 'pull_dropped', 'pull_listed', 'pull_value_refs', 'pull_ref_threats',
  'pull_threat_defs', 'pull_withdrawn', 'pull_withdrawn_iids', 'pull_attributes', 'pull_attribute_iids', 'pull_attribute_changes',
];
const RENDER_TABLES: readonly (keyof RenderTables)[] = ['render_iids', 'render_new', 'render_links'];

async function dropTables(trx: Kysely<Database>, tables: readonly string[]): Promise<void> {
  for (const table of tables) await sql`drop table if exists ${sql.table(table)}`.execute(trx);
}

/** `fresh`: the store holds no data, so every staged link is new (changed and added). */
export async function createChangeTables(trx: Kysely<Database>, dialect: Dialect, fresh: boolean): Promise<void> {
  // SQLite keeps temporary tables for the connection's life: a failed write may have left them.
  await dropTables(trx, CHANGE_TABLES);
  const onCommit = onCommitDrop(dialect);
  // SQLite keeps the staged links in their key's B-tree alone (no rowid table beside it): each
  // link is written once, and moveLinks reads them in key order without a lookup per row.
  const withoutRowid = dialect === 'sqlite' ? sql`without rowid` : sql``;
  const isNew = sql.lit(fresh ? 1 : 0);
  await sql`create temporary table import_links (
    kind integer not null, owner bigint not null, iid bigint not null, stamp_linked text not null,
    ordinal bigint not null, position text not null, changed integer not null default ${isNew}, added integer not null default ${isNew},
    primary key (kind, owner, iid)) ${withoutRowid} ${onCommit}`.execute(trx);
  await sql`create temporary table import_keys (
    kind integer not null, id bigint not null, content bigint not null, ordinal bigint not null, position text not null,
    conflict_ordinal bigint, conflict_position text,
    primary key (kind, id)) ${withoutRowid} ${onCommit}`.execute(trx);
  for (const table of CHANGED_TABLES) await sql`create temporary table ${sql.table(table)} (id bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table replaced_indicators (
    iid bigint primary key, value text not null, type text not null, risk text not null,
    stamp_added text, stamp_updated text, retired integer, attributes text not null, properties text not null,
    repatterned integer not null) ${onCommit}`.execute(trx);
}

export async function dropChangeTables(trx: Kysely<Database>): Promise<void> {
  await dropTables(trx, CHANGE_TABLES);
}

export async function createPullTables(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  await dropPullTables(trx);
  const onCommit = onCommitDrop(dialect);
  await sql`create temporary table pull_rows (type text not null, value text not null, risk integer not null, ordinal bigint not null) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_values (
    type text not null, value text not null, risk integer not null, ordinal bigint not null,
    iid bigint, new integer not null default 0, relisted integer not null default 0,
    primary key (type, value)) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_value_threats (type text not null, value text not null, name text not null,
    primary key (type, value, name)) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_threats (name_key text primary key, tid bigint not null) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_dropped (iid bigint primary key) ${onCommit}`.execute(trx);
  // Keyed by iid (SQLite's rowid): read in order, it looks listings, links and indicators up in
  // their own order, where pull_values, in value order, would probe them at random.
  const iidKey = dialect === 'postgres' ? sql`bigint primary key` : sql`integer primary key`;
  await sql`create temporary table pull_listed (iid ${iidKey}, risk integer not null, ordinal bigint not null,
    new integer not null, relisted integer not null default 0) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_value_refs (ref text not null, type text not null, value text not null) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_ref_threats (ref text not null, name text not null) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_threat_defs (name_key text primary key, name text not null, category text not null,
    aliases text not null) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_withdrawn (type text not null, value text not null) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_withdrawn_iids (iid bigint primary key) ${onCommit}`.execute(trx);
  await sql`create temporary table pull_attributes (type text not null, value text not null, seq bigint not null, attributes text not null) ${onCommit}`.execute(trx);
  // Filled in key order and read in pages of it, as its own B-tree on SQLite (no rowid table beside it).
  const withoutRowid = dialect === 'sqlite' ? sql`without rowid` : sql``;
  await sql`create temporary table pull_attribute_iids (iid bigint not null, seq bigint not null, attributes text not null,
    primary key (iid, seq)) ${withoutRowid} ${onCommit}`.execute(trx);
  await sql`create temporary table pull_attribute_changes (iid bigint primary key, attributes text not null, new integer not null) ${onCommit}`.execute(trx);
}

export async function dropPullTables(trx: Kysely<Database>): Promise<void> {
  await dropTables(trx, PULL_TABLES);
}

/** One table of iids (render_iids, render_new) or of threat links (render_links) to render. */
export async function createRenderTable(trx: Kysely<Database>, dialect: Dialect, table: keyof RenderTables): Promise<void> {
  const columns = table === 'render_links' ? sql`tid bigint not null, iid bigint not null, primary key (tid, iid)` : sql`iid bigint primary key`;
  await sql`create temporary table ${sql.table(table)} (${columns}) ${onCommitDrop(dialect)}`.execute(trx);
}

export async function dropRenderTables(trx: Kysely<Database>, tables: readonly (keyof RenderTables)[] = RENDER_TABLES): Promise<void> {
  await dropTables(trx, tables);
}
