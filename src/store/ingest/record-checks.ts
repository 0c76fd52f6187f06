// What an import checks once all its records are written, before its refresh and commit: keys that
// came twice with other content, and related threats (which may come later in the file).
import type { Transaction } from 'kysely';
import { ImportError } from '../../errors.js';
import { staged } from './temp-tables.js';
import { conflictReason } from '../contract/write-batch.js';
import type { Database } from '../db/schema.js';
import type { RelatedReference } from '../contract/write-batch.js';

/** A tid, fid or iid staged twice with other content (KEY_STAGING, record-upserts.ts): the earliest such repeat in the file. */
export async function checkKeyConflicts(trx: Transaction<Database>): Promise<void> {
  const conflict = await staged(trx)
    .selectFrom('import_keys')
    .select(['kind', 'id', 'position', 'conflict_position'])
    .where('conflict_ordinal', 'is not', null)
    .orderBy('conflict_ordinal')
    .limit(1)
    .executeTakeFirst();
  if (conflict) throw new ImportError(conflict.conflict_position!, conflictReason(Number(conflict.kind), Number(conflict.id), conflict.position));
}

/** Tids looked up in one query. */
const CHUNK = 500;

/**
 * Every related tid the file's threats name must be a threat: of the store, or of the file, whose
 * threats are written by now. `references` are in file order: the first one missing is refused.
 */
export async function checkRelatedTargets(trx: Transaction<Database>, references: readonly RelatedReference[]): Promise<void> {
  for (let from = 0; from < references.length; from += CHUNK) {
    const chunk = references.slice(from, from + CHUNK);
    const rows = await trx.selectFrom('threats').select('tid').where('tid', 'in', chunk.map((r) => r.tid)).execute();
    const found = new Set(rows.map((r) => Number(r.tid)));
    const missing = chunk.find((r) => !found.has(r.tid));
    if (missing) throw new ImportError(missing.position, `threat related: no threat with tid ${missing.tid}`);
  }
}
