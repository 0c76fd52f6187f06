// Migration 0022: what the lifecycle's aging reads (docs/interface.md section 3: indicators age out), kept apart from what every pull rewrites.
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * - `indicators.stamp_unlisted`: for an indicator pulls listed that no source lists now, when a
 *   pull last listed it (its `stamp_listed` at the moment its last listing ended); null while a
 *   source lists it, and for one no pull ever listed.
 * - `indicators_aging`: those of them not retired, by that stamp, which are the only indicators
 *   the hourly lifecycle can age out; it reads this index instead of the whole table.
 * Why a column of its own rather than an index on `stamp_listed`: every pull rewrites `stamp_listed`
 * (and `stamp_seen`) on every value it lists, and an index on a column an update changes makes
 * PostgreSQL write that row's entry anew in every index of the table, where an update of columns no
 * index holds stays on the row's page (a heap-only tuple). `stamp_unlisted` changes only when a value
 * leaves or rejoins the listings, so the pulls' rewrites stay as cheap as before.
 */
export const agingIndex: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('indicators').addColumn('stamp_unlisted', 'text').execute();
    await sql`update indicators set stamp_unlisted = stamp_listed
      where stamp_listed is not null and not exists (select 1 from source_listings l where l.iid = indicators.iid)`.execute(db);
    await db.schema
      .createIndex('indicators_aging')
      .on('indicators')
      .columns(['stamp_unlisted', 'iid'])
      .where('stamp_unlisted', 'is not', null)
      .where(sql.ref('risk'), '<>', 'retired')
      .execute();
  },
};
