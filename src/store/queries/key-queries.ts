// API key rows: only the SHA-256 hash of a key is ever written.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { writeMeta } from '../db/meta.js';
import type { ApiKeyRecord, NewKeyRow } from '../contract/records.js';
import type { Database } from '../db/schema.js';

export async function insertKey(db: Kysely<Database>, row: NewKeyRow): Promise<void> {
  const { admin, ...rest } = row;
  await db.insertInto('api_keys').values({ ...rest, admin: admin === true ? 1 : 0, revoked_at: null }).execute();
}

const withAdmin = <R extends { admin: number }>(row: R): Omit<R, 'admin'> & { admin: boolean } => ({ ...row, admin: Number(row.admin) === 1 });

export async function findKeyByHash(db: Kysely<Database>, hash: string): Promise<(ApiKeyRecord & { hash: string }) | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
  return row && withAdmin(row);
}

export async function listKeys(db: Kysely<Database>): Promise<ApiKeyRecord[]> {
  const rows = await db.selectFrom('api_keys').select(['id', 'plan', 'label', 'created_at', 'revoked_at', 'admin']).orderBy('created_at').orderBy('id').execute();
  return rows.map(withAdmin);
}

/** Changes whenever a key is revoked: servers that cache key records compare it. */
export const KEYS_VERSION_KEY = 'keys_version';

/** Revokes by public id or by hash of the key; returns the id revoked, if any. */
export async function revokeKey(db: Kysely<Database>, idOrHash: { id: string } | { hash: string }, at: string): Promise<string | undefined> {
  return db.transaction().execute(async (trx) => {
    const query = trx.updateTable('api_keys').set({ revoked_at: at }).where('revoked_at', 'is', null);
    const row = await ('id' in idOrHash ? query.where('id', '=', idOrHash.id) : query.where('hash', '=', idOrHash.hash))
      .returning('id')
      .executeTakeFirst();
    if (row) await writeMeta(trx, KEYS_VERSION_KEY, randomBytes(8).toString('hex'));
    return row?.id;
  });
}
