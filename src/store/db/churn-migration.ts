// Migration 0017: a run's churn, the share of the feed's previous listing a pull no longer lists (docs/sources.md, the sanity gate).
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * `feed_runs.churn`: 0 to 1, null for a failed run, a first pull and an incremental source's run
 * (pull-churn.ts). A nullable column without a default: no table rewrite on either dialect, and the
 * runs recorded before it keep null. PostgreSQL's `real` is single precision; SQLite's is a double.
 */
export const runChurn = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('feed_runs').addColumn('churn', dialect === 'sqlite' ? 'real' : 'double precision').execute();
  },
});
