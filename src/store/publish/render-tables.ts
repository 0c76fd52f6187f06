// What the STIX projection renders in a write (stix-sync.ts, stix-rows.ts): the indicators and threat
// links to render, gathered from the change set into temporary tables of publish's own and read in
// pages of their key.
import { sql, type Kysely } from 'kysely';
import { onCommitDrop, type Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { dropTemporaryTables } from '../db/temporary-tables.js';

/** The render tables' columns. */
export type RenderTables = {
  /** The indicators to render. */
  render_iids: { iid: number };
  /** The threat links to render. */
  render_links: { tid: number; iid: number };
  /** The indicators to render that are new to the export (no object has their iid). */
  render_new: { iid: number };
};

/** Each table once: a table added to RenderTables must be added here, or this does not compile. */
const TABLES: Record<keyof RenderTables, true> = { render_iids: true, render_new: true, render_links: true };

/** The names of the render tables (the architecture test reads them too). */
export const RENDER_TABLE_NAMES = Object.keys(TABLES) as readonly (keyof RenderTables)[];

/** Makes one table of iids (render_iids, render_new) or of threat links (render_links) to render. */
export async function createRenderTable(trx: Kysely<Database>, dialect: Dialect, table: keyof RenderTables): Promise<void> {
  const columns = table === 'render_links' ? sql`tid bigint not null, iid bigint not null, primary key (tid, iid)` : sql`iid bigint primary key`;
  await sql`create temporary table ${sql.table(table)} (${columns}) ${onCommitDrop(dialect)}`.execute(trx);
}

/** Drops the render tables named, or all of them, once rendered. */
export async function dropRenderTables(trx: Kysely<Database>, tables: readonly (keyof RenderTables)[] = RENDER_TABLE_NAMES): Promise<void> {
  await dropTemporaryTables(trx, tables);
}
