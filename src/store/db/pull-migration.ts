// Migration 0008: what pulling source feeds needs in the store (docs/sources.md).
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * - `indicators_value`: a pull finds the indicator of each value it lists by (value, type), the
 *   lowest iid first (the rowid or primary key follows the indexed columns).
 * - `source_listings`: what each feed's latest successful pull listed, one row per (fid, iid), with
 *   the risk that source gives it (a rank, RISK_RANKS in pull-writer.ts). An indicator's risk is the
 *   highest among the feeds that list it now; a 304 sees these values again; an empty body where
 *   rows stand is an outage. Links (feed_links) stay when a value leaves the list; a listing goes.
 * - `feed_sources.seen_threats`: the tids the latest pull saw (JSON), seen again by a 304.
 * - `feed_sources.body_hash`: SHA-256 of the body the latest pull read: the same body again is
 *   seen again without being parsed, as after a 304.
 * - `feed_sources.cursor`: where the next pull of a structured source resumes (a TAXII
 *   `X-TAXII-Date-Added-Last`, a MISP event timestamp), written by the pull that read up to it.
 * - `feed_sources.lease_owner`/`lease_until`: which instance pulls the feed now and until when
 *   (milliseconds since the epoch); an expired lease is free, so a dead holder blocks nobody long.
 */
export const sourcePulls = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    const id = dialect === 'sqlite' ? 'integer' : 'bigint';
    await db.schema.createIndex('indicators_value').on('indicators').columns(['value', 'type']).execute();
    await db.schema
      .createTable('source_listings')
      .addColumn('fid', id, (c) => c.notNull())
      .addColumn('iid', id, (c) => c.notNull())
      .addColumn('risk', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('source_listings_pk', ['fid', 'iid'])
      .execute();
    await db.schema.createIndex('source_listings_iid').on('source_listings').columns(['iid', 'risk']).execute();
    await db.schema.alterTable('feed_sources').addColumn('seen_threats', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    await db.schema.alterTable('feed_sources').addColumn('cursor', 'text').execute();
    await db.schema.alterTable('feed_sources').addColumn('body_hash', 'text').execute();
    await db.schema.alterTable('feed_sources').addColumn('lease_owner', 'text').execute();
    await db.schema.alterTable('feed_sources').addColumn('lease_until', 'bigint').execute();
  },
});
