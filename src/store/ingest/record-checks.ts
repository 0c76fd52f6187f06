// What an import checks once all its records are written, before its refresh and commit: keys that
// came twice with other content, related threats (which may come later in the file), and the
// targets of its staged links.
import type { Transaction } from 'kysely';
import { ImportError } from '../../errors.js';
import { firstKeyConflict } from '../changes/staged-keys.js';
import { firstMissingLinkTarget } from '../changes/staged-links.js';
import { conflictReason } from '../contract/write-batch.js';
import type { Database } from '../db/schema.js';
import type { RelatedReference } from '../contract/write-batch.js';

/** A tid, fid or iid staged twice with other content (changes/staged-keys.ts): the earliest such repeat in the file. */
export async function checkKeyConflicts(trx: Transaction<Database>): Promise<void> {
  const conflict = await firstKeyConflict(trx);
  if (conflict) throw new ImportError(conflict.conflictPosition, conflictReason(conflict.kind, conflict.id, conflict.position));
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

/** Every staged link must point at an indicator and a feed or threat that exist (in the store or this write); the first that does not is refused. */
export async function checkLinkTargets(trx: Transaction<Database>): Promise<void> {
  const missing = await firstMissingLinkTarget(trx);
  if (missing) throw new ImportError(missing.position, missing.reason);
}
