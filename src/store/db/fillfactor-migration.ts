// Migration 0023: room on each page of `indicators` for the row versions a pull writes
// (docs/deployment.md, "Sizing"). PostgreSQL only: SQLite rewrites a row in place.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * Every pull stamps each value it lists (`stamp_seen`, `stamp_listed`), and PostgreSQL writes an
 * update as a new version of the row. When the row's page has room for it and no indexed column
 * changed, the new version stays on that page and no index is touched (a heap-only tuple); on a full
 * page it goes elsewhere and every index of the table, the trigram index among them, gets a new
 * entry. A fill factor of 50 leaves half of each page free when rows are written, room for one new
 * version of every row on it: the versions a pull leaves behind are pruned from the page before the
 * next pull needs the space. The table is about as large as it became anyway, where every pull left
 * a dead version of each listed row.
 *
 * The setting applies to pages written from now on; `VACUUM FULL indicators` rewrites an existing
 * store's table at once (it locks the table while it runs).
 */
export const INDICATORS_FILLFACTOR = 50;

export const indicatorsFillfactor = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    if (dialect !== 'postgres') return;
    await sql.raw(`alter table indicators set (fillfactor = ${INDICATORS_FILLFACTOR})`).execute(db);
  },
});
