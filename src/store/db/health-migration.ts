// Migration 0014: feed health and provenance (docs/interface.md section 12).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * - `feed_runs`: one row per pull, ok, not-modified or failed (run-writes.ts). `started_ms` and
 *   `finished_ms` are milliseconds since the epoch; the counts are null for a failed run, which
 *   read nothing it kept. The latest `health.keepRuns` of each feed are kept. The run id orders a
 *   feed's runs (feed_runs_fid), so the newest are one index range.
 * - `past_listings`: a value a feed no longer lists, with the last pull that listed it and the risk
 *   it gave; written for the values a pull drops (few), removed when the feed lists it again. A
 *   value listed now is in source_listings; when a feed first listed it is its feed link's stamp.
 * - `threat_link_sources`: the feed whose pull made a threat link (a link an import made has none).
 *   Written for the new threat links of a pull only.
 * - `pull_rejections`: the first values each pull rejected (unparseable, or kept out by the
 *   allowlist), the latest rejection per feed and value; pruned with the runs they belong to.
 * - `api_keys.admin`: 1 for a key of no plan that opens only the admin API and the console.
 */
export const feedHealth = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    const id = dialect === 'sqlite' ? 'integer' : 'bigint';
    await db.schema
      .createTable('feed_runs')
      .addColumn('run', id, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
      .addColumn('fid', id, (c) => c.notNull())
      .addColumn('started_ms', 'bigint', (c) => c.notNull())
      .addColumn('finished_ms', 'bigint', (c) => c.notNull())
      .addColumn('run_trigger', 'text', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('http_status', 'integer')
      .addColumn('bytes', 'bigint')
      .addColumn('value_count', 'bigint')
      .addColumn('new_indicators', 'bigint')
      .addColumn('new_links', 'bigint')
      .addColumn('unlisted', 'bigint')
      .addColumn('rejected_unparseable', 'bigint', (c) => c.notNull())
      .addColumn('rejected_allowlisted', 'bigint', (c) => c.notNull())
      .addColumn('threats', 'bigint')
      .addColumn('error', 'text')
      .addColumn('etag', 'text')
      .addColumn('last_modified', 'text')
      .execute();
    await db.schema.createIndex('feed_runs_fid').on('feed_runs').columns(['fid', 'run']).execute();
    await db.schema
      .createTable('past_listings')
      .addColumn('fid', id, (c) => c.notNull())
      .addColumn('iid', id, (c) => c.notNull())
      .addColumn('last_listed', 'text', (c) => c.notNull())
      .addColumn('risk', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('past_listings_pk', ['iid', 'fid'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema
      .createTable('threat_link_sources')
      .addColumn('iid', id, (c) => c.notNull())
      .addColumn('tid', id, (c) => c.notNull())
      .addColumn('fid', id, (c) => c.notNull())
      .addPrimaryKeyConstraint('threat_link_sources_pk', ['iid', 'tid'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema
      .createTable('pull_rejections')
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('fid', id, (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('run', id, (c) => c.notNull())
      .addPrimaryKeyConstraint('pull_rejections_pk', ['value', 'fid'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema.createIndex('pull_rejections_run').on('pull_rejections').columns(['fid', 'run']).execute();
    await db.schema.alterTable('api_keys').addColumn('admin', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  },
});
