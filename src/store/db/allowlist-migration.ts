// Migration 0015: the run-time allowlist (docs/interface.md section 13).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * `allowlist_entries`: entries added at run time (`threatgate allowlist add`, the console), kept in
 * the store so every instance's pulls use them, beside the config's. `entry` is as the operator wrote
 * it (trimmed); `added_by` names who added it (the command line, or an admin key's id).
 */
export const runtimeAllowlist = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('allowlist_entries')
      .addColumn('entry', 'text', (c) => c.primaryKey())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('added_by', 'text', (c) => c.notNull())
      .addColumn('added_at', 'text', (c) => c.notNull())
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
  },
});
