// Migration 0018: "Pull now" as a request the puller takes (docs/architecture.md, pulls off the serving processes).
import type { Kysely, Migration } from 'kysely';

/**
 * `feed_sources.pull_requested_at` (ms since the epoch) and `pull_requested_by` (the admin key id):
 * an operator asked for a pull now. A serving process writes the request and makes the feed due; the
 * puller of whichever instance takes the feed's lease next clears it and records the run with
 * trigger `console`. Nullable columns without defaults: no table rewrite on either dialect.
 */
export const pullRequests: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('feed_sources').addColumn('pull_requested_at', 'bigint').execute();
    await db.schema.alterTable('feed_sources').addColumn('pull_requested_by', 'text').execute();
  },
};
