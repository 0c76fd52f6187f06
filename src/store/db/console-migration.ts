// Migration 0016: the operator console's sessions (docs/interface.md section 14).
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from './dialect.js';

/**
 * `console_sessions`: one row per signed-in console session, in the store so that every worker and
 * instance accepts it and a logout anywhere ends it everywhere. `sid_hash` is the SHA-256 of the
 * session id the cookie carries (a copy of the table opens no session); `key_hash` is the admin
 * key's `api_keys.hash`, so a session lives only while its key is an active admin key;
 * `expires_ms` is when it ends (ms since the epoch), `created_at` a stamp for the operator.
 */
export const consoleSessions = (dialect: Dialect): Migration => ({
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('console_sessions')
      .addColumn('sid_hash', 'text', (c) => c.primaryKey())
      .addColumn('key_hash', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_ms', 'bigint', (c) => c.notNull())
      .$call((t) => (dialect === 'sqlite' ? t.modifyEnd(sql`without rowid`) : t))
      .execute();
    await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_ms').execute();
  },
});
