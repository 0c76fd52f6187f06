// Migration 0010: what the lifecycle (docs/interface.md section 3) keeps in the store.
import type { Kysely, Migration } from 'kysely';

/**
 * - `indicators.stamp_listed`: the last time a pull listed the indicator (null: no pull ever did,
 *   so it came from import files only and never ages out).
 * - `threats.stix_generation`: how many times the threat was reactivated after a retirement. A
 *   retired threat's STIX object is revoked, which is final, so each reactivation publishes the
 *   threat (and its relationships) under new ids that count this up (docs/stix-mapping.md).
 * - `leases`: leases that are not a feed's (the lifecycle run), so one instance at a time runs it.
 */
export const lifecycle: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('indicators').addColumn('stamp_listed', 'text').execute();
    await db.schema.alterTable('threats').addColumn('stix_generation', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .createTable('leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('until', 'bigint', (c) => c.notNull())
      .execute();
  },
};
