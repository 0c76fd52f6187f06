// Migration 0007: every value's count per feed and threat, so that an import updates a touched
// owner's aggregates from what changed instead of reading all its indicators again (value-counts.ts).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * `owner_value_counts`: one row per (owner, facet, name, value) with a count above 0. `kind` is the
 * owner's (0 feed, 1 threat: LINK_KIND); `facet` what is counted (0 risk bucket, named '', 1 an
 * attribute's value, 2 a scalar property's value: FACET in aggregates.ts). The summaries keep the
 * 25 most frequent values of each property; this table keeps them all.
 *
 * The table starts empty: an owner whose rows do not match its stored risk counts is read through its
 * links the next time an import touches it, and its rows written then (value-counts.ts), so an
 * existing store needs no pass over its indicators here. SQLite keeps the rows in their key's
 * B-tree alone (without rowid): an owner's rows are one range.
 */
export const ownerValueCounts = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('owner_value_counts')
      .addColumn('kind', 'integer', (c) => c.notNull())
      .addColumn('owner', dialect === 'sqlite' ? 'integer' : 'bigint', (c) => c.notNull())
      .addColumn('facet', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('count', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('owner_value_counts_pk', ['kind', 'owner', 'facet', 'name', 'value'])
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
  },
});
