// Multi-row INSERTs sent as ready SQL text. An import writes millions of rows in batches of the same
// shape; building each batch through Kysely's query builder cost more than the database's own work.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import { rememberBounded } from '../../bounded-map.js';

export interface BulkInsert {
  table: string;
  /** Column names, written as they are: constants of the code, never input. */
  columns: readonly string[];
  /** What follows the VALUES list: an ON CONFLICT clause, a RETURNING clause, or nothing. */
  tail: string;
}

const texts = new Map<string, string>();
const MAX_TEXTS = 256;

/** `insert into t (a, b) values (?, ?), (?, ?) tail`, with $n placeholders on PostgreSQL. */
export function bulkInsertText(dialect: Dialect, spec: BulkInsert, rowCount: number): string {
  const key = `${dialect}\u0000${spec.table}\u0000${spec.columns.join(',')}\u0000${spec.tail}\u0000${rowCount}`;
  let text = texts.get(key);
  if (text !== undefined) return text;
  const width = spec.columns.length;
  const tuples: string[] = new Array(rowCount);
  for (let r = 0; r < rowCount; r++) {
    const marks: string[] = new Array(width);
    for (let c = 0; c < width; c++) marks[c] = dialect === 'postgres' ? `$${r * width + c + 1}` : '?';
    tuples[r] = `(${marks.join(', ')})`;
  }
  text = `insert into ${spec.table} (${spec.columns.join(', ')}) values ${tuples.join(', ')} ${spec.tail}`;
  // Full batches repeat; a last, shorter batch is a one-off. Forgetting everything now and then is enough.
  rememberBounded(texts, MAX_TEXTS, key, text);
  return text;
}

/** Inserts `count` rows given as their values, row after row in the order of `spec.columns`. */
export async function bulkInsertRows<R = unknown>(db: Kysely<any>, dialect: Dialect, spec: BulkInsert, params: unknown[], count: number): Promise<R[]> {
  if (count === 0) return [];
  if (params.length !== count * spec.columns.length) throw new Error(`bulk insert into ${spec.table}: ${params.length} values for ${count} rows`);
  const result = await db.executeQuery<R>(CompiledQuery.raw(bulkInsertText(dialect, spec, count), params));
  return result.rows;
}

/**
 * A table a write fills with typed rows (contract/staging-rows.ts): the column each element of a row
 * goes to, in the row's order (the type holds the two to one length), and the columns every row
 * fills with the same value after its own (aggregates a later stage computes).
 */
export interface RowTable<Row extends readonly unknown[]> {
  table: string;
  columns: { readonly [K in keyof Row]: string };
  fixed?: Readonly<Record<string, string | null>>;
  tail: string;
  /**
   * Each column's PostgreSQL type, for a table PostgreSQL fills from one array per column (a table
   * without `fixed` columns): a statement of a handful of parameters, where a VALUES list of a row's
   * worth each costs PostgreSQL more to parse and bind than to insert (bench/README.md,
   * "PostgreSQL: staged rows sent as arrays").
   */
  arrays?: { readonly [K in keyof Row]: ArrayElement };
}

/** The element types insertRows sends arrays of. */
export type ArrayElement = 'text' | 'integer' | 'bigint';

const arrayTexts = new Map<string, string>();

/** `insert into t (a, b) select * from unnest($1::text[], $2::bigint[]) tail`. */
function unnestText(table: string, columns: readonly string[], types: readonly ArrayElement[], tail: string): string {
  const key = `${table}\u0000${columns.join(',')}\u0000${tail}`;
  let text = arrayTexts.get(key);
  if (text === undefined) {
    const arrays = types.map((type, c) => `$${c + 1}::${type}[]`).join(', ');
    text = `insert into ${table} (${columns.join(', ')}) select * from unnest(${arrays}) ${tail}`;
    rememberBounded(arrayTexts, MAX_TEXTS, key, text);
  }
  return text;
}

/** Inserts the rows as one array per column (RowTable `arrays`). */
async function insertArrays<Row extends readonly unknown[], R>(db: Kysely<any>, table: RowTable<Row>, types: readonly ArrayElement[], rows: readonly Row[]): Promise<R[]> {
  const columns: readonly string[] = table.columns;
  const arrays: unknown[][] = columns.map(() => new Array(rows.length));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.length !== columns.length) throw new Error(`insert into ${table.table}: a row of ${row.length} values for ${columns.length} columns`);
    for (let c = 0; c < row.length; c++) arrays[c]![r] = row[c];
  }
  const result = await db.executeQuery<R>(CompiledQuery.raw(unnestText(table.table, columns, types, table.tail), arrays));
  return result.rows;
}

/** Inserts the rows into their table in one statement; returns what its tail returns. */
export async function insertRows<Row extends readonly unknown[], R = unknown>(
  db: Kysely<any>, dialect: Dialect, table: RowTable<Row>, rows: readonly Row[],
): Promise<R[]> {
  if (rows.length === 0) return [];
  if (dialect === 'postgres' && table.arrays !== undefined && table.fixed === undefined) return insertArrays<Row, R>(db, table, table.arrays, rows);
  const columns: readonly string[] = table.columns;
  const fixedColumns = table.fixed === undefined ? [] : Object.keys(table.fixed);
  const fixedValues = table.fixed === undefined ? [] : Object.values(table.fixed);
  const width = columns.length + fixedValues.length;
  const params: unknown[] = new Array(rows.length * width);
  let at = 0;
  for (const row of rows) {
    if (row.length !== columns.length) throw new Error(`insert into ${table.table}: a row of ${row.length} values for ${columns.length} columns`);
    for (let c = 0; c < row.length; c++) params[at++] = row[c];
    for (let c = 0; c < fixedValues.length; c++) params[at++] = fixedValues[c];
  }
  const spec: BulkInsert = { table: table.table, columns: [...columns, ...fixedColumns], tail: table.tail };
  return bulkInsertRows<R>(db, dialect, spec, params, rows.length);
}
