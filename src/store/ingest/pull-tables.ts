// A feed pull's staging tables, the pull writer's own (pull-writer.ts, pull-threats.ts,
// pull-attributes.ts, pull-churn.ts): what the pull listed, as it comes and then resolved, in
// temporary tables of the write's transaction. What the pull changes goes to the change set
// (changes/), which the stages after ingest read; these tables no other stage reads.
import { sql, type Kysely } from 'kysely';
import { onCommitDrop, type Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { dropTemporaryTables, withoutRowid } from '../db/temporary-tables.js';

/** The pull's staging tables, typed for Kysely. */
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
  pull_attribute_iids: { iid: number; seq: number; attributes: string; new: number };
  pull_attribute_changes: { iid: number; attributes: string; new: number };
};

/** Each table once: a table added to PullTables must be added here, or this does not compile. */
const TABLES: Record<keyof PullTables, true> = {
  pull_rows: true, pull_values: true, pull_value_threats: true, pull_threats: true, pull_dropped: true, pull_listed: true, pull_value_refs: true,
  pull_ref_threats: true, pull_threat_defs: true, pull_withdrawn: true, pull_withdrawn_iids: true, pull_attributes: true,
  pull_attribute_iids: true, pull_attribute_changes: true,
};

/** The names of the pull's staging tables, made and dropped together (the architecture test reads them too). */
export const PULL_TABLE_NAMES = Object.keys(TABLES) as readonly (keyof PullTables)[];

/** The store's tables and the pull's staging ones, seen through Kysely in the write's transaction. */
export function pullTables(trx: Kysely<Database>): Kysely<Database & PullTables> {
  return trx.withTables<PullTables>();
}

/** Makes the pull's staging tables (dropping what a failed write left on SQLite first). */
export async function createPullTables(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  await dropPullTables(trx);
  const onCommit = onCommitDrop(dialect);
  await sql`create temporary table pull_rows (type text not null, value text not null, risk integer not null, ordinal bigint not null) ${onCommit}`.execute(trx);
  // On PostgreSQL the key comes once the values are in (keyPullValues).
  const valuesKey = dialect === 'postgres' ? sql`` : sql`, primary key (type, value)`;
  await sql`create temporary table pull_values (
    type text not null, value text not null, risk integer not null, ordinal bigint not null,
    iid bigint, new integer not null default 0, relisted integer not null default 0${valuesKey}) ${onCommit}`.execute(trx);
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
  await sql`create temporary table pull_attribute_iids (iid bigint not null, seq bigint not null, attributes text not null, new integer not null,
    primary key (iid, seq)) ${withoutRowid(dialect)} ${onCommit}`.execute(trx);
  await sql`create temporary table pull_attribute_changes (iid bigint primary key, attributes text not null, new integer not null) ${onCommit}`.execute(trx);
}

/**
 * Whether the pull staged rows beside its values (threats, upstream objects, attributes, withdrawn
 * values): only those look values up by type and value; the rest of the pull goes by iid.
 */
export async function stagedBesideValues(trx: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ staged: number }>`select case when exists (select 1 from pull_value_threats) or exists (select 1 from pull_value_refs)
    or exists (select 1 from pull_attributes) or exists (select 1 from pull_withdrawn) then 1 else 0 end as staged`.execute(trx);
  return Number(rows[0]?.staged ?? 0) === 1;
}

/**
 * PostgreSQL's key of pull_values, made once stageValues has filled it, for a pull that staged rows
 * beside its values (stagedBesideValues); a list of bare values needs none (bench/README.md,
 * "PostgreSQL: staged rows sent as arrays"). Built by sorting, it costs less than inserting each
 * value into it as the grouping hands them over, at random: the pages of a temporary table's index
 * live in the session's small local buffers (temp_buffers), and a random insert reads and writes
 * them again and again (bench/README.md, "PostgreSQL: the staged values' key built after them").
 * SQLite's is made with the table.
 */
export async function keyPullValues(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`alter table pull_values add primary key (type, value)`.execute(trx);
}

/** Drops the pull's staging tables once the write's stages are done with it. */
export async function dropPullTables(trx: Kysely<Database>): Promise<void> {
  await dropTemporaryTables(trx, PULL_TABLE_NAMES);
}
