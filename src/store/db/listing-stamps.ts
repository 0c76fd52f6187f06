// An indicator's seen stamps with its listings' (listing-stamps-migration.ts): what every read of
// `stamp_seen` goes through, and the later-of expressions a listing that goes leaves on the row with.
import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * The latest stamp among the feeds whose whole listing holds the indicator `iid` (a column or a
 * value) now; null when no such feed lists it. Read through source_listings_iid and listing_stamps'
 * key: a probe per listing.
 */
export function listingStampOf(iid: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`(select max(s.stamp_listed) from source_listings l join listing_stamps s on s.fid = l.fid where l.iid = ${iid})`;
}

/**
 * Each indicator's latest listing stamp, for the listings `which` (a condition on `l`,
 * source_listings) selects: rows of (iid, at), one per indicator listed by a full-list feed.
 */
export function listingStampsBy(which: RawBuilder<unknown>): RawBuilder<{ iid: number | string; at: string }> {
  return sql<{ iid: number | string; at: string }>`select l.iid, max(s.stamp_listed) as at from source_listings l join listing_stamps s on s.fid = l.fid
    where ${which} group by l.iid`;
}

/** The later of a row's own stamp and its listings' as read beside it (text order is time order). */
export function laterStampOf(own: string | null, listed: string | null | undefined): string | null {
  return listed !== null && listed !== undefined && (own === null || listed > own) ? listed : own;
}

/** `column` raised to `at` when it is earlier or null: the later of the two (text order is time order). */
export const laterOf = (column: string, at: string): RawBuilder<string> =>
  sql<string>`case when ${sql.ref(column)} is null or ${sql.ref(column)} < ${at} then ${at} else ${sql.ref(column)} end`;

/** The later of two nullable stamps (text, compared as text); null when both are. */
export function laterStamp(dialect: Dialect, a: RawBuilder<unknown>, b: RawBuilder<unknown>): RawBuilder<string | null> {
  // PostgreSQL's greatest() leaves nulls out; SQLite's max() of several arguments is null when one is.
  return dialect === 'postgres' ? sql<string | null>`greatest(${a}, ${b})` : sql<string | null>`nullif(max(coalesce(${a}, ''), coalesce(${b}, '')), '')`;
}

/** The indicator `alias`'s `stamp_seen` as the API gives it: its own, or its listings' when later. */
export function seenStampOf(dialect: Dialect, alias: string): RawBuilder<string | null> {
  return laterStamp(dialect, sql.ref(`${alias}.stamp_seen`), listingStampOf(sql.ref(`${alias}.iid`)));
}
