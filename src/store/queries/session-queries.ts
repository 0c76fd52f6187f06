// The operator console's sessions (docs/interface.md section 14): kept in the store, so every worker and instance shares them.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ConsoleSession, NewConsoleSession } from '../contract/records.js';

/** The meta key of the secret that signs console cookies and CSRF tokens, created once and shared by every instance. */
export const CONSOLE_SECRET_KEY = 'console_secret';

export async function createConsoleSession(db: Kysely<Database>, session: NewConsoleSession): Promise<void> {
  await db
    .insertInto('console_sessions')
    .values({ sid_hash: session.sidHash, key_hash: session.keyHash, created_at: session.createdAt, expires_ms: session.expiresMs })
    .execute();
}

/**
 * The session under `sidHash` if it is live at `now` and its key is still an active admin key: a
 * revoked key (or one no longer admin) ends its sessions at once, with no row to delete.
 */
export async function findConsoleSession(db: Kysely<Database>, sidHash: string, now: number): Promise<ConsoleSession | undefined> {
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('api_keys as k', 'k.hash', 's.key_hash')
    .select(['k.id', 'k.label', 's.expires_ms'])
    .where('s.sid_hash', '=', sidHash)
    .where('s.expires_ms', '>', now)
    .where('k.revoked_at', 'is', null)
    .where('k.admin', '=', 1)
    .executeTakeFirst();
  return row && { keyId: row.id, label: row.label, expiresMs: Number(row.expires_ms) };
}

/** Ends a session (logout); false when there was none. */
export async function deleteConsoleSession(db: Kysely<Database>, sidHash: string): Promise<boolean> {
  const result = await db.deleteFrom('console_sessions').where('sid_hash', '=', sidHash).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Removes the sessions that ended by `now`; the count removed. */
export async function deleteExpiredConsoleSessions(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db.deleteFrom('console_sessions').where('expires_ms', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
