// The rows indicators had before a write changed them, kept in the change set (replaced_indicators)
// for the stages after ingest: ChangeSet.replacedIndicators() reads them.
//
// An import that changes an indicator's type or value may leave it without a STIX form (a value
// that is no address of its new type). Its object is then revoked, and the revoked version must
// repeat what clients hold, which only the indicator's earlier row can render: the rows of such
// changes are kept here (`repatterned` 1), in the import's transaction, before the import
// overwrites them. The earlier rows of the indicators changed otherwise are kept too (`repatterned`
// 0): the aggregates take an indicator's earlier contribution away from its feeds and threats
// before adding its new one (derive/value-counts.ts).
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { IndicatorUpsertRow } from '../contract/staging-rows.js';

/**
 * Keeps the current rows of the indicators in an upsert batch that the batch changes (another
 * content hash: the upsert's own test), marking those whose type or value changes. A batch that
 * changes nothing (a re-import) reads the hashes alone.
 */
export async function keepReplacedIndicators(trx: Transaction<Database>, batch: readonly IndicatorUpsertRow[]): Promise<void> {
  const incoming = new Map<number, { pattern: string; hash: string }>();
  for (const [iid, value, type, , , , , , , , hash] of batch) incoming.set(iid, { pattern: `${type}\u0000${value}`, hash });
  if (incoming.size === 0) return;
  const { rows } = await sql<{ iid: number; type: string; value: string; content_hash: string }>`
    select iid, type, value, content_hash from indicators where iid in (${sql.join([...incoming.keys()])})`.execute(trx);
  const changed: number[] = [];
  const repatterned: number[] = [];
  for (const r of rows) {
    const next = incoming.get(Number(r.iid))!;
    if (next.hash === r.content_hash) continue;
    changed.push(Number(r.iid));
    if (next.pattern !== `${r.type}\u0000${r.value}`) repatterned.push(Number(r.iid));
  }
  if (changed.length === 0) return;
  const marked = repatterned.length === 0 ? sql`0` : sql`case when iid in (${sql.join(repatterned)}) then 1 else 0 end`;
  // A key comes at most once with its content (ingest/record-checks.ts), so a row is kept once, from before the import.
  await sql`insert into replaced_indicators (iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned)
    select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, ${marked} from indicators where iid in (${sql.join(changed)})
    on conflict (iid) do nothing`.execute(trx);
}

/**
 * Keeps the current rows of the indicators `iids` selects (a query giving one iid column), for a
 * writer that changes indicators in place rather than by upsert batches (a pull raising a risk): the
 * aggregates then take their earlier rows away from their owners' counts instead of reading those
 * owners again (derive/value-counts.ts). Rows kept of indicators that do not change in the end are unused.
 */
export async function keepIndicatorRows(trx: Kysely<Database>, iids: RawBuilder<unknown>): Promise<void> {
  await sql`insert into replaced_indicators (iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, repatterned)
    select iid, value, type, risk, stamp_added, stamp_updated, retired, attributes, properties, 0 from indicators where iid in (${iids})
    on conflict (iid) do nothing`.execute(trx);
}
