// Migration 0023: PostgreSQL's storage of `indicators` set for what pulls write (docs/deployment.md,
// "Sizing"). SQLite rewrites a row in place and has no trigram index: nothing changes there.
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
 */
export const INDICATORS_FILLFACTOR = 50;

/**
 * The trigram index (explore's wildcards) takes new entries into a pending list, merged into the
 * index when the list reaches this size (KiB): at 4 MB, PostgreSQL's default, a pull of many new
 * values spends most of its insert merging. A query reads the list whole until it is merged, which
 * a list this small keeps cheap (bench/README.md, "Source-feed pulls").
 */
export const TRIGRAM_PENDING_LIST_KIB = 16 * 1024;

/**
 * Both apply to what is written from now on; `VACUUM FULL indicators` rewrites an existing store's
 * table at once (it locks the table while it runs).
 */
export const indicatorsStorage = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    if (dialect !== 'postgres') return;
    await sql.raw(`alter table indicators set (fillfactor = ${INDICATORS_FILLFACTOR})`).execute(db);
    await sql.raw(`alter index indicators_value_trigrams set (gin_pending_list_limit = ${TRIGRAM_PENDING_LIST_KIB})`).execute(db);
  },
});
