// Small shared settings kept in the store, so every instance agrees (signing secret, date_added counter).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function readMeta(db: Kysely<Database>, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

export async function writeMeta(db: Kysely<Database>, key: string, value: string): Promise<void> {
  await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
}

/**
 * The value under `key`, created once with `make()`; concurrent first callers all get the winner's
 * value. Read first: once the value exists this writes nothing, so a serving process asking for it
 * never waits for the write lock a pull holds (on SQLite, a wait that blocks the whole process).
 */
export async function readOrCreateMeta(db: Kysely<Database>, key: string, make: () => string): Promise<string> {
  const stored = await readMeta(db, key);
  if (stored !== undefined) return stored;
  await db
    .insertInto('meta')
    .values({ key, value: make() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  return (await readMeta(db, key))!;
}

export const NEXT_SECRET_KEY = 'taxii_next_secret';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}
