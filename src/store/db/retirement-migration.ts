// Migration 0013: why and when an indicator retired (the indicator lookup reports both: docs/interface.md section 2.5).
import type { Kysely, Migration } from 'kysely';

/**
 * - `indicators.retired_reason`: what retired it, `aged-out` (the lifecycle: no source listed it
 *   for indicatorRetireDays) or `upstream` (a pull's source withdrew it); null while it is not
 *   retired, and for retirements made before this migration or by an import file, whose reason
 *   nobody recorded.
 * - `indicators.stamp_retired`: when, as threats have it; cleared with the reason when a pull lists
 *   the indicator again.
 * Both nullable without a default: no table rewrite on either dialect.
 */
export const indicatorRetirement: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('indicators').addColumn('retired_reason', 'text').execute();
    await db.schema.alterTable('indicators').addColumn('stamp_retired', 'text').execute();
  },
};
