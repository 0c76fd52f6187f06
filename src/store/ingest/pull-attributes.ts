// What a pull's rows said besides their values (`csv.attributes`, `json.attributes`: docs/sources.md, "What a pull keeps"),
// merged into their indicators' `attributes` in the pull's transaction: staged with the values, read
// once in iid order, and given to the new indicators as they are inserted (pull-writer.ts) and to the
// stored ones that changed in one UPDATE.
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { RowTable } from '../db/bulk-insert.js';
import type { ValueAttributeStagingRow } from '../contract/staging-rows.js';
import type { Database } from '../db/schema.js';
import { analyzeTemporary, type Dialect } from '../db/dialect.js';
import { ATTRIBUTE_LIMITS } from '../contract/write-batch.js';
import { noteChangedFrom } from '../changes/change-set.js';
import { keepIndicatorRows } from '../changes/replaced-indicators.js';

/**
 * A row's attributes: its type and normalized value, its place among the pull's attribute rows, and
 * the attributes as JSON text (`{"port": ["443"]}`, sources/pull-batches.ts keeps them within
 * ATTRIBUTE_LIMITS); a value may come many times. Appended to a table without a key, as pull_rows is.
 */
export const VALUE_ATTRIBUTE_STAGING: RowTable<ValueAttributeStagingRow> = {
  table: 'pull_attributes',
  columns: ['type', 'value', 'seq', 'attributes'],
  tail: '',
  arrays: ['text', 'text', 'bigint', 'text'],
};

/** Staged rows read per statement, and changed indicators per INSERT. */
const PAGE = 5000;
const WRITE_ROWS = 300;

/**
 * Adds what a row said to an indicator's attributes (`stored`, changed in place), in the order said:
 * a value already under its name is not added again, and past ATTRIBUTE_LIMITS nothing more is (the
 * first ones are kept: the names and values the indicator had, then the pull's in its order).
 * Returns whether anything was added. A stored name whose value is not a list (no import writes
 * one) is left as it is.
 */
export function addAttributes(stored: Map<string, unknown>, said: Readonly<Record<string, unknown>>): boolean {
  let added = false;
  for (const [name, values] of Object.entries(said)) {
    if (!Array.isArray(values)) continue;
    const had = stored.get(name);
    if (had === undefined && stored.size >= ATTRIBUTE_LIMITS.keys) continue;
    if (had !== undefined && !Array.isArray(had)) continue;
    const list: unknown[] = had ?? [];
    for (const value of values) {
      if (list.length >= ATTRIBUTE_LIMITS.valuesPerKey) break;
      if (typeof value !== 'string' || list.includes(value)) continue;
      list.push(value);
      added = true;
    }
    if (had === undefined && list.length > 0) stored.set(name, list);
  }
  return added;
}

/** The JSON object of a stored `attributes` column as a Map (an entry per name, `__proto__` included); empty when it is no object. */
function storedAttributes(text: string): Map<string, unknown> {
  const parsed: unknown = JSON.parse(text);
  return new Map(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : []);
}

/**
 * Merges the staged attributes of the pull's values into their indicators (addAttributes): new
 * indicators take them as they come, left in pull_attribute_changes for their insert
 * (newAttributes), so no new row is written twice; existing ones whose attributes gain something are
 * changed records (stamp_updated, their rows from before kept for the aggregates, a new STIX version
 * since their STIX objects carry the attributes). The same attributes pulled again change nothing.
 * Returns how many existing indicators changed. Needs pull_values' iids (stageValues), and runs
 * before the new indicators are inserted.
 */
export async function mergePulledAttributes(trx: Transaction<Database>, at: string, dialect: Dialect): Promise<number> {
  const { rows: any } = await sql`select 1 as one from pull_attributes limit 1`.execute(trx);
  if (any.length === 0) return 0;
  // By iid, in the order the source said them: each indicator's rows come together, and the
  // indicators are read in their own order. A row that says just what its indicator holds adds
  // nothing, whatever the other rows say: the steady state of a list pulled day after day stays in
  // SQL, and only the rows that may add something are read and merged here.
  const { numAffectedRows } = await sql`insert into pull_attribute_iids (iid, seq, attributes, new)
    select v.iid, a.seq, a.attributes, v.new from pull_attributes a join pull_values v on v.type = a.type and v.value = a.value
    left join indicators i on i.iid = v.iid and v.new = 0
    where v.new = 1 or i.attributes <> a.attributes
    order by v.iid, a.seq`.execute(trx);
  await sql`delete from pull_attributes`.execute(trx);
  if (Number(numAffectedRows ?? 0n) === 0) return 0;

  let pending: RawBuilder<unknown>[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    await sql`insert into pull_attribute_changes (iid, attributes, new) values ${sql.join(pending)}`.execute(trx);
    pending = [];
  };
  let current: { iid: number; attributes: Map<string, unknown>; added: boolean; isNew: number } | undefined;
  const finish = async () => {
    if (current?.added) pending.push(sql`(${current.iid}, ${JSON.stringify(Object.fromEntries(current.attributes))}, ${current.isNew})`);
    if (pending.length >= WRITE_ROWS) await flush();
  };
  type Row = { iid: number; seq: number; said: string; stored: string; new: number };
  for (let after = { iid: Number.MIN_SAFE_INTEGER, seq: 0 }; ; ) {
    // The page's bound is said of indicators too: PostgreSQL merges the two in iid order, and does
    // not carry an inequality across the join, so it read indicators from their first row for every
    // page, a pull's pages together quadratic in the store.
    const { rows } = await sql<Row>`
      select p.iid, p.seq, p.attributes as said, coalesce(i.attributes, '{}') as stored, p.new
      from pull_attribute_iids p left join indicators i on i.iid = p.iid and p.new = 0 and i.iid >= ${after.iid}
      where (p.iid, p.seq) > (${after.iid}, ${after.seq})
      order by p.iid, p.seq limit ${PAGE}`.execute(trx);
    for (const row of rows) {
      const iid = Number(row.iid);
      if (current?.iid !== iid) {
        await finish();
        current = { iid, attributes: storedAttributes(row.stored), added: false, isNew: Number(row.new) };
      }
      if (addAttributes(current.attributes, JSON.parse(row.said) as Record<string, unknown>)) current.added = true;
    }
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1]!;
    after = { iid: Number(last.iid), seq: Number(last.seq) };
  }
  await finish();
  await flush();

  await analyzeTemporary(trx, dialect, ['pull_attribute_changes']);
  // Their rows as they were, for the aggregates to take away (value-counts.ts); new indicators have none.
  const changing = sql`select iid from pull_attribute_changes where new = 0`;
  await keepIndicatorRows(trx, changing);
  // The changed indicators by key: with `update … from`, SQLite, which has no statistics for the
  // staging table, put indicators in the outer loop and read it whole.
  const updated = await sql`update indicators set attributes = (select c.attributes from pull_attribute_changes c where c.iid = indicators.iid),
      stamp_updated = ${at}, content_hash = ''
    where iid in (${changing})`.execute(trx);
  // New indicators are noted as changed when they are inserted (resolveIndicators).
  await noteChangedFrom(trx, 'indicators', changing);
  return Number(updated.numAffectedRows ?? 0n);
}

/** The attributes a new indicator of the pull is inserted with (an expression over pull_values' row): what its rows said, else none. */
export const newAttributes = sql`coalesce((select c.attributes from pull_attribute_changes c where c.iid = pull_values.iid), '{}')`;
