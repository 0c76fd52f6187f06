// The keys of a file, staged in the change set (import_keys) as its records come: each tid, fid and
// iid once, with what tells a repeat that carries other content (ingest/record-checks.ts refuses it).
import type { Kysely, Transaction } from 'kysely';
import { insertRows, type RowTable } from '../db/bulk-insert.js';
import type { Dialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import type { KeyStagingRow } from '../contract/staging-rows.js';
import { changeTables } from './change-tables.js';

/**
 * Every key of the file is staged with its first position and a 52-bit prefix of its content hash
 * (a false match between two different records is a 1 in 2^52 chance). A later record of the key
 * with another prefix marks the row with its own position, once; the import's end reads the
 * earliest mark (firstKeyConflict). The keys live in a table of the transaction, not in memory: a
 * Map of every iid to its hash and position would grow with the file, where the import must stream
 * in constant memory (docs/architecture.md, "Writes").
 */
const KEY_STAGING: RowTable<KeyStagingRow> = {
  table: 'import_keys',
  columns: ['kind', 'id', 'content', 'ordinal', 'position'],
  tail:
    'on conflict (kind, id) do update set conflict_ordinal = excluded.ordinal, conflict_position = excluded.position ' +
    'where import_keys.content <> excluded.content and import_keys.conflict_ordinal is null',
  arrays: ['integer', 'bigint', 'bigint', 'bigint', 'text'],
};

/** Stages the keys of one batch of a file's records. */
export async function stageKeys(trx: Transaction<Database>, dialect: Dialect, rows: readonly KeyStagingRow[]): Promise<void> {
  await insertRows(trx, dialect, KEY_STAGING, rows);
}

/** A key (KEY_KIND) given again with other content: where it came first and where again. */
export interface KeyConflict {
  kind: number;
  id: number;
  position: string;
  conflictPosition: string;
}

/** The earliest repeat in the file of a key with other content; undefined when there is none. */
export async function firstKeyConflict(trx: Kysely<Database>): Promise<KeyConflict | undefined> {
  const row = await changeTables(trx)
    .selectFrom('import_keys')
    .select(['kind', 'id', 'position', 'conflict_position'])
    .where('conflict_ordinal', 'is not', null)
    .orderBy('conflict_ordinal')
    .limit(1)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { kind: Number(row.kind), id: Number(row.id), position: row.position, conflictPosition: row.conflict_position! };
}
