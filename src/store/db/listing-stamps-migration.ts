// Migration 0025: when each feed's whole listing was last seen, so that a pull that lists the same
// values again writes one row instead of every listed indicator's (docs/deployment.md, "Seen stamps").
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * `listing_stamps`: a feed whose latest pull read its source's whole list (a full-list source, or a
 * 304 of one) and the start of that pull. Every value the feed lists now (source_listings) was seen
 * then, so an indicator's `stamp_seen` and `stamp_listed` are the later of its own columns and the
 * stamps of the feeds listing it (listing-stamps.ts). A feed without a row gives its values no stamp
 * of its own: an incremental source's pulls write the stamps of the values they list on the rows.
 * The table starts empty: until a feed's next pull, its values' own columns hold that stamp already.
 */
export const listingStamps = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    const fid = dialect === 'sqlite' ? sql`integer primary key` : sql`bigint primary key`;
    await sql`create table listing_stamps (fid ${fid}, stamp_listed text not null)`.execute(db);
  },
});
