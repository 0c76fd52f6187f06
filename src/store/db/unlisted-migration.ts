// Migration 0024: the aging clock of the values no source lists (docs/interface.md section 3:
// indicators age out) in a table of its own, beside `indicators` rather than in it.
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * - `unlisted_indicators`: an indicator pulls listed that no source lists now and that is not
 *   retired, with when a pull last listed it (`stamp_unlisted`). A value enters when its last
 *   listing goes, and leaves when a pull lists it again or it is retired.
 * - `unlisted_indicators_aging`: those by that stamp, the range the hourly lifecycle reads.
 * Migration 0022 kept the stamp in a column of `indicators` with a partial index on it. Writing an
 * indexed column makes PostgreSQL write the row's new version into every index of the table (13,
 * the trigram index of explore's wildcards among them) instead of keeping it on its page with no
 * index touched: marking the values a pull dropped cost as much as inserting them. Here it costs a
 * row in a table of two columns. The stamps and the rows not retired carry over.
 */
export const unlistedIndicators = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    const iid = dialect === 'sqlite' ? sql`integer primary key` : sql`bigint primary key`;
    await sql`create table unlisted_indicators (iid ${iid}, stamp_unlisted text not null)`.execute(db);
    await sql`insert into unlisted_indicators (iid, stamp_unlisted)
      select iid, stamp_unlisted from indicators where stamp_unlisted is not null and risk <> 'retired' order by iid`.execute(db);
    await db.schema.createIndex('unlisted_indicators_aging').on('unlisted_indicators').columns(['stamp_unlisted', 'iid']).execute();
    await db.schema.dropIndex('indicators_aging').execute();
    await db.schema.alterTable('indicators').dropColumn('stamp_unlisted').execute();
  },
});
