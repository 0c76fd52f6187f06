// The keys of explore's indexes on stored indicators (search-migration.ts; docs/explore.md, "How
// queries stay bounded"): an address or block as its range, an attribute value as its lowercased
// text, and the writes that fill them, shared by the migration's backfill and by every write (derive/search-index.ts).
import { isIPv4, isIPv6 } from 'node:net';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { NetworkRange } from '../contract/explore.js';
import { insertRows, type RowTable } from './bulk-insert.js';
import type { Dialect } from './dialect.js';
import type { Database } from './schema.js';

/** The stored types whose values are addresses or blocks. */
export const NETWORK_TYPES = ['ip', 'ipv4', 'ipv6', 'cidr'] as const;

/**
 * An attribute value is kept up to this many characters: PostgreSQL refuses a B-tree entry beyond
 * about 2,700 bytes, and no port, country or ASN name comes near it. A longer value is found by its
 * first characters (explore compares the same prefix).
 */
export const ATTRIBUTE_VALUE_CHARS = 500;

const PAGE = 5000;
/** Rows per INSERT: on SQLite, a row's worth of parameters each; on PostgreSQL, as arrays (bulk-insert.ts), a page's ranges in one. */
const INSERT_ROWS = 500;
const ARRAY_ROWS = 10_000;

type NetworkRow = [iid: number, lo: string, hi: string];
const NETWORK_ROWS: RowTable<NetworkRow> = { table: 'indicator_networks', columns: ['iid', 'lo', 'hi'], tail: '', arrays: ['bigint', 'text', 'text'] };

/** Attribute keys per DELETE: three parameters each. */
const KEY_ROWS = 300;

const ATTRIBUTE_VALUE_ROWS: RowTable<AttributeKey> = {
  table: 'indicator_attribute_values',
  columns: ['name', 'value', 'iid'],
  tail: 'on conflict (name, value, iid) do nothing',
  arrays: ['text', 'text', 'bigint'],
};

/** Inserts the rows a statement at a time: ARRAY_ROWS at a time on PostgreSQL, INSERT_ROWS on SQLite. */
async function insertAll<Row extends readonly unknown[]>(db: Kysely<Database>, dialect: Dialect, table: RowTable<Row>, rows: readonly Row[]): Promise<void> {
  const step = dialect === 'postgres' ? ARRAY_ROWS : INSERT_ROWS;
  for (let i = 0; i < rows.length; i += step) await insertRows(db, dialect, table, rows.slice(i, i + step));
}

/**
 * `in (…)` over a list of ids: on PostgreSQL one array parameter (`= any`), which it binds and
 * plans as one value where a list of thousands costs a parameter each; SQLite takes the list.
 */
export function inIds(dialect: Dialect, ids: readonly number[]): RawBuilder<unknown> {
  return dialect === 'postgres' ? sql`= any(cast(${ids} as bigint[]))` : sql`in (${sql.join(ids)})`;
}

function ipv4Bits(address: string): bigint {
  return address.split('.').reduce((bits, part) => (bits << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address (node:net's isIPv6 said so) as its 128 bits: `::` filled, a trailing IPv4 part as two groups. */
function ipv6Bits(address: string): bigint {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted !== undefined) {
    const v4 = ipv4Bits(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const before = head === '' ? [] : head.split(':');
  const after = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return groups.reduce((bits, group) => (bits << 16n) | BigInt(parseInt(group, 16)), 0n);
}

/**
 * A stored value's range as NetworkRange keys it (the family digit, then the first and last address
 * as fixed-width lowercase hex), host bits of a block masked as pulls mask them; undefined for a value
 * that is no address or block. Explore's reader keys the blocks it is asked about the same way
 * (explore/explore-filters.ts, rangeOf); test/store/explore-store.test.ts holds the two equal.
 */
export function networkRangeOf(value: string): NetworkRange | undefined {
  const [address = '', prefixText, ...extra] = value.trim().split('/');
  if (extra.length > 0) return undefined;
  const family = isIPv4(address) ? 4 : isIPv6(address) && !address.includes('%') ? 6 : undefined;
  if (family === undefined) return undefined;
  const width = family === 4 ? 32 : 128;
  if (prefixText !== undefined && (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > width)) return undefined;
  const prefix = prefixText === undefined ? width : Number(prefixText);
  const hostBits = (1n << BigInt(width - prefix)) - 1n;
  const first = (family === 4 ? ipv4Bits(address) : ipv6Bits(address)) & ~hostBits;
  const hex = (bits: bigint) => `${family}${bits.toString(16).padStart(width / 4, '0')}`;
  return { lo: hex(first), hi: hex(first | hostBits) };
}

/**
 * Writes the ranges of the network-typed indicators that `where` (a condition on `i`) selects,
 * reading them a page at a time in iid order. The caller has removed their earlier rows.
 */
export async function writeNetworks(db: Kysely<Database>, dialect: Dialect, where: RawBuilder<unknown>): Promise<number> {
  let after = -1;
  let written = 0;
  for (;;) {
    const { rows } = await sql<{ iid: number; value: string }>`
      select i.iid, i.value from indicators i
      where i.type in (${sql.join(NETWORK_TYPES)}) and i.iid > ${after} and ${where}
      order by i.iid limit ${PAGE}`.execute(db);
    const ranges: NetworkRow[] = [];
    for (const row of rows) {
      const range = networkRangeOf(row.value);
      if (range !== undefined) ranges.push([Number(row.iid), range.lo, range.hi]);
    }
    await insertAll(db, dialect, NETWORK_ROWS, ranges);
    written += ranges.length;
    if (rows.length < PAGE) return written;
    after = Number(rows[rows.length - 1]!.iid);
  }
}

/** One value of one attribute of one indicator, as indicator_attribute_values keys it. */
export type AttributeKey = [name: string, value: string, iid: number];

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

/** Each page of the keys of the (iid, attributes) rows that `rows` gives, in iid order. */
export async function forEachAttributePage(db: Kysely<Database>, rows: RawBuilder<unknown>, handle: (keys: AttributeKey[]) => Promise<void>): Promise<void> {
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

/** Inserts the attribute keys of `rows` (a query giving iid and attributes), leaving those already there. */
export async function writeAttributeValues(db: Kysely<Database>, dialect: Dialect, rows: RawBuilder<unknown>): Promise<void> {
  await forEachAttributePage(db, rows, (keys) => insertAll(db, dialect, ATTRIBUTE_VALUE_ROWS, keys));
}

/** Deletes the attribute keys of `rows` (a query giving iid and attributes). */
export async function deleteAttributeValues(db: Kysely<Database>, rows: RawBuilder<unknown>): Promise<void> {
  await forEachAttributePage(db, rows, async (keys) => {
    for (let i = 0; i < keys.length; i += KEY_ROWS) {
      const listed = sql.join(keys.slice(i, i + KEY_ROWS).map(([name, value, iid]) => sql`(${name}, ${value}, cast(${iid} as bigint))`));
      await sql`delete from indicator_attribute_values where (name, value, iid) in (values ${listed})`.execute(db);
    }
  });
}
