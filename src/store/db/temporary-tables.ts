// What every group of a write's temporary tables needs, whichever stage owns it (the change set,
// a pull's staging, publish's render tables): dropping a group, and SQLite's table without a rowid.
// The tables themselves are declared beside the stage that owns them (docs/architecture.md, "Writes").
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * Drops the named temporary tables that exist. PostgreSQL drops them at commit already
 * (onCommitDrop); SQLite keeps them for the connection's life, so a write drops its own once read,
 * and drops what a failed write left before making them again.
 */
export async function dropTemporaryTables(db: Kysely<any>, tables: readonly string[]): Promise<void> {
  for (const table of tables) await sql`drop table if exists ${sql.table(table)}`.execute(db);
}

/**
 * The tail of a table kept in its key's B-tree alone on SQLite (no rowid table beside it), for a
 * table filled and read in key order: each row is written once, and read without a lookup per row.
 * PostgreSQL has no such tables.
 */
export function withoutRowid(dialect: Dialect): RawBuilder<unknown> {
  return dialect === 'sqlite' ? sql`without rowid` : sql``;
}
