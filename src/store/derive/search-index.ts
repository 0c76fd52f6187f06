// Keeps the indexes explore reads (docs/explore.md, "How queries stay bounded") in step with the
// indicators a write inserted or changed: each stored address or block as its range
// (indicator_networks) and each attribute value (indicator_attribute_values). The values' trigram
// index keeps itself: PostgreSQL's GIN index, and on SQLite triggers on the table (search-migration.ts).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { parseIpBlock } from '../../sources/normalize-value.js';
import { rangeOf } from '../../sources/ip-range.js';
import type { Database } from '../db/schema.js';
import type { ChangeSet } from '../changes/change-set.js';

/** The stored types whose values are addresses or blocks. */
export const NETWORK_TYPES = ['ip', 'ipv4', 'ipv6', 'cidr'] as const;

/**
 * An attribute value is kept up to this many characters: PostgreSQL refuses a B-tree entry beyond
 * about 2,700 bytes, and no port, country or ASN name comes near it. A longer value is found by its
 * first characters (explore compares the same prefix).
 */
export const ATTRIBUTE_VALUE_CHARS = 500;

const PAGE = 5000;
const INSERT_ROWS = 500;

/**
 * Writes the ranges of the network-typed indicators that `where` (a condition on `i`) selects,
 * reading them a page at a time in iid order. The caller has removed their earlier rows.
 */
export async function writeNetworks(db: Kysely<Database>, where: RawBuilder<unknown>): Promise<number> {
  let after = -1;
  let written = 0;
  for (;;) {
    const { rows } = await sql<{ iid: number; value: string }>`
      select i.iid, i.value from indicators i
      where i.type in (${sql.join(NETWORK_TYPES)}) and i.iid > ${after} and ${where}
      order by i.iid limit ${PAGE}`.execute(db);
    const ranges = [];
    for (const row of rows) {
      const block = parseIpBlock(row.value);
      if (block !== undefined) ranges.push({ iid: Number(row.iid), ...rangeOf(block) });
    }
    for (let i = 0; i < ranges.length; i += INSERT_ROWS) await db.insertInto('indicator_networks').values(ranges.slice(i, i + INSERT_ROWS)).execute();
    written += ranges.length;
    if (rows.length < PAGE) return written;
    after = Number(rows[rows.length - 1]!.iid);
  }
}

/** One value of one attribute of one indicator, as indicator_attribute_values keys it. */
type AttributeKey = [name: string, value: string, iid: number];

/**
 * The keys of an indicator's attributes (JSON text: name -> list of values), each value lowercased
 * and cut to ATTRIBUTE_VALUE_CHARS, as explore lowercases what it compares. A value that is not a
 * list counts as a list of itself; only strings and numbers are values.
 */
export function attributeKeys(iid: number, attributes: string): AttributeKey[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(attributes);
  } catch {
    return [];
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  const keys = new Map<string, AttributeKey>();
  for (const [name, list] of Object.entries(parsed as Record<string, unknown>)) {
    for (const item of Array.isArray(list) ? list : [list]) {
      if (typeof item !== 'string' && typeof item !== 'number') continue;
      const value = String(item).toLowerCase().slice(0, ATTRIBUTE_VALUE_CHARS);
      keys.set(`${name}\u0000${value}`, [name, value, iid]);
    }
  }
  return [...keys.values()];
}

/** Each page of (iid, attributes) rows that `rows` gives, in iid order. */
async function forEachAttributePage(db: Kysely<Database>, rows: RawBuilder<unknown>, handle: (keys: AttributeKey[]) => Promise<void>): Promise<void> {
  let after: number | null = null;
  for (;;) {
    const page: { iid: number; attributes: string }[] = (
      await sql<{ iid: number; attributes: string }>`
        select r.iid, r.attributes from (${rows}) as r ${after === null ? sql`` : sql`where r.iid > ${after}`} order by r.iid limit ${PAGE}`.execute(db)
    ).rows;
    await handle(page.flatMap((row) => attributeKeys(Number(row.iid), row.attributes)));
    if (page.length < PAGE) return;
    after = Number(page[page.length - 1]!.iid);
  }
}

const KEY_ROWS = 300;

/** Inserts the attribute keys of `rows` (a query giving iid and attributes), leaving those already there. */
export async function writeAttributeValues(db: Kysely<Database>, rows: RawBuilder<unknown>): Promise<void> {
  await forEachAttributePage(db, rows, async (keys) => {
    for (let i = 0; i < keys.length; i += KEY_ROWS) {
      const values = keys.slice(i, i + KEY_ROWS).map(([name, value, iid]) => ({ name, value, iid }));
      await db.insertInto('indicator_attribute_values').values(values).onConflict((oc) => oc.columns(['name', 'value', 'iid']).doNothing()).execute();
    }
  });
}

/** Deletes the attribute keys of `rows` (a query giving iid and attributes). */
async function deleteAttributeValues(db: Kysely<Database>, rows: RawBuilder<unknown>): Promise<void> {
  await forEachAttributePage(db, rows, async (keys) => {
    for (let i = 0; i < keys.length; i += KEY_ROWS) {
      const listed = sql.join(keys.slice(i, i + KEY_ROWS).map(([name, value, iid]) => sql`(${name}, ${value}, cast(${iid} as bigint))`));
      await sql`delete from indicator_attribute_values where (name, value, iid) in (values ${listed})`.execute(db);
    }
  });
}

/**
 * After a write's ingest, in its transaction: the ranges of the indicators it inserted or whose value
 * or type it changed, and the attribute values of those whose attributes it changed. An indicator a
 * write changed in place otherwise (a pull raising its risk, a lifecycle retiring it) keeps its rows:
 * a re-pull that changes no value and no attribute writes nothing here.
 */
export async function refreshSearchIndex(trx: Kysely<Database>, changes: ChangeSet): Promise<void> {
  if (changes.indicators === 0) return;
  const changed = changes.changedIds('indicators');
  const replaced = changes.replacedIndicators();
  // A changed indicator whose earlier row was kept with the same type and value keeps its range.
  const moved = sql`select c.id from (${changed}) as c where not exists (select 1 from (${replaced}) as r where r.iid = c.id and r.repatterned = 0)`;
  if (!changes.fresh) await sql`delete from indicator_networks where iid in (${moved})`.execute(trx);
  await writeNetworks(trx, sql`i.iid in (${moved})`);

  // The earlier keys of indicators whose attributes changed go; the keys of those and of new ones come.
  const before = sql`select r.iid, r.attributes from (${replaced}) as r join indicators i on i.iid = r.iid where i.attributes <> r.attributes`;
  if (!changes.fresh) await deleteAttributeValues(trx, before);
  await writeAttributeValues(
    trx,
    sql`select i.iid, i.attributes from indicators i where i.iid in (${changed}) and i.attributes <> '{}' and not exists (
      select 1 from (${replaced}) as r where r.iid = i.iid and r.attributes = i.attributes)`,
  );
}
