// The plans the databases choose for the store's queries (docs/deployment.md, "Query plans"): a compiled
// query explained directly, or every statement a store method runs explained just before it runs, on
// the same connection and inside the same transaction (a pull's temporary tables are there only then).
// SQLite: EXPLAIN QUERY PLAN; PostgreSQL: EXPLAIN, and its JSON form to read the plan's tree.
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, Kysely, sql, SqliteDialect, type DatabaseConnection, type Dialect as KyselyDialect, type Driver } from 'kysely';
import pg from 'pg';
import type { CollectionConfig } from '../../src/config.js';
import { SchemaLockingPostgresDialect, type Dialect } from '../../src/store/db/dialect.js';
import type { Database } from '../../src/store/db/schema.js';
import { SERVING_BUSY_MS } from '../../src/store/open-store.js';
import { createStore } from '../../src/store/store.js';
import type { Store } from '../../src/store/contract/store.js';
import { dbOf, dialectOf } from './store-db.js';

/** A query builder or raw query: compiled against the store's database, then explained. */
export interface Explainable {
  compile(db: Kysely<Database>): CompiledQuery;
}

type PlanRow = Record<string, unknown>;

/** The plan's lines as the database prints them: SQLite's `detail` column, PostgreSQL's `QUERY PLAN` text. */
const linesOf = (rows: readonly PlanRow[]) => rows.map((r) => String(r.detail ?? r['QUERY PLAN']));

/** The plan lines of `query` on the store's database (the explore and observation plan tests). */
export function planReader(store: Store): (query: Explainable) => Promise<string[]> {
  const db = dbOf(store);
  const explain = dialectOf(store) === 'sqlite' ? 'explain query plan ' : 'explain ';
  return async (query) => {
    const compiled = query.compile(db);
    const { rows } = await db.executeQuery<PlanRow>({ ...compiled, sql: explain + compiled.sql });
    return linesOf(rows);
  };
}

/** One statement a store method ran, with the plan the database chose for it just before. */
export interface StatementPlan {
  sql: string;
  parameters: readonly unknown[];
  /** The plan as printed. */
  lines: string[];
  /**
   * The plan's reads of a whole table or index, each as `table: how`; on PostgreSQL, followed by a
   * note when a plan that reads none whole exists.
   */
  wholeReads: string[];
}

/** A store whose every statement is explained first; `take` hands over the statements run so far and forgets them. */
export interface ExplainingStore {
  store: Store;
  take(): StatementPlan[];
  close(): Promise<void>;
}

/** The statements a plan exists for; DDL, pragmas, transaction control and the like run unexplained. */
const EXPLAINABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * A second connection (SQLite) or pool (PostgreSQL) to the store at `location`, as open-store.ts opens
 * it, under a store of its own: every explainable statement is explained on its connection just
 * before it runs. `tables` are the tables no statement may read whole.
 */
export async function openExplainingStore(
  location: string,
  dialect: Dialect,
  collections: readonly CollectionConfig[],
  tables: readonly string[],
  /** PostgreSQL planner settings for the explaining connections (`enable_nestloop: 'off'`, say), to see the plans a bigger store would get. */
  settings: Readonly<Record<string, string>> = {},
): Promise<ExplainingStore> {
  let statements: StatementPlan[] = [];
  const { dialect: kyselyDialect, schema } = innerDialect(location, dialect, settings);
  const partial = new Set<string>();
  const explain = dialect === 'sqlite' ? explainSqlite : explainPostgres;
  const db = new Kysely<Database>({
    dialect: explainingDialect(kyselyDialect, async (connection, query) => {
      const plan = await explain(connection, query, tables, partial);
      statements.push({ sql: query.sql, parameters: query.parameters, ...plan });
    }),
  });
  for (const name of await partialIndexes(db, dialect)) partial.add(name);
  statements = [];
  const store = createStore(db, dialect, { collections, schema, busyTimeoutMs: SERVING_BUSY_MS });
  return {
    store,
    take() {
      const taken = statements;
      statements = [];
      return taken;
    },
    close: () => store.close(),
  };
}

function innerDialect(location: string, dialect: Dialect, settings: Readonly<Record<string, string>>): { dialect: KyselyDialect; schema: string | undefined } {
  if (dialect === 'sqlite') {
    const connection = new BetterSqlite3(location.replace(/^sqlite:/, ''), { fileMustExist: true });
    connection.pragma('busy_timeout = 10000');
    connection.pragma('foreign_keys = OFF');
    return { dialect: new SqliteDialect({ database: connection }), schema: undefined };
  }
  const url = new URL(location);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: 2,
    // As open-store.ts: 64-bit integers as plain numbers, the store's schema first on the search path.
    types: { getTypeParser: (oid, format) => (oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) },
    options: [...(schema ? [`-c search_path=${schema}`] : []), ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' '),
  });
  return { dialect: new SchemaLockingPostgresDialect({ pool }), schema };
}

type Explain = (connection: DatabaseConnection, query: CompiledQuery, tables: readonly string[], partial: ReadonlySet<string>) => Promise<Omit<StatementPlan, 'sql' | 'parameters'>>;

/**
 * `dialect` with each connection's executeQuery preceded by `before` on the same connection. The
 * connection object itself is patched, not wrapped: the drivers release connections through methods
 * and private fields of their own class.
 */
function explainingDialect(dialect: KyselyDialect, before: (connection: DatabaseConnection, query: CompiledQuery) => Promise<void>): KyselyDialect {
  const patched = new WeakSet<DatabaseConnection>();
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver(): Driver {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async () => {
        const connection = await acquire();
        if (!patched.has(connection)) {
          patched.add(connection);
          const run = connection.executeQuery.bind(connection);
          connection.executeQuery = async <R>(query: CompiledQuery) => {
            if (EXPLAINABLE.test(query.sql)) await before(connection, query);
            return run<R>(query);
          };
        }
        return connection;
      };
      return driver;
    },
  };
}

async function partialIndexes(db: Kysely<Database>, dialect: Dialect): Promise<string[]> {
  const { rows } =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master where type = 'index' and sql like '% where %'`.execute(db)
      : await sql<{ name: string }>`select c.relname as name from pg_index x join pg_class c on c.oid = x.indexrelid
          where x.indpred is not null and c.relnamespace = current_schema()::regnamespace`.execute(db);
  return rows.map((r) => r.name);
}

/** SQL words that may follow a table name where an alias would stand. */
const NOT_ALIASES = new Set(['where', 'on', 'join', 'inner', 'left', 'cross', 'order', 'group', 'limit', 'union', 'set', 'using', 'as', 'select', 'values', 'returning', 'natural', 'having', 'window', 'except', 'intersect', 'default']);

/** The tables each name in the statement stands for: the tables' own names and their aliases. */
export function tableNames(statement: string): Map<string, Set<string>> {
  const names = new Map<string, Set<string>>();
  const add = (name: string, table: string) => names.set(name, (names.get(name) ?? new Set()).add(table));
  for (const m of statement.matchAll(/\b(?:from|join|update|into)\s+"?(\w+)"?(?:\s+(?:as\s+)?"?(\w+)"?)?/gi)) {
    const table = m[1]!.toLowerCase();
    add(table, table);
    const alias = m[2]?.toLowerCase();
    if (alias !== undefined && !NOT_ALIASES.has(alias)) add(alias, table);
  }
  return names;
}

/**
 * Subqueries whose SCAN stops at their LIMIT, which SQLite's plan does not show: a sampled view's
 * first iids in the primary key's order (collection-views.ts, `sample`). Each time one appears in a
 * statement, one SCAN of its table is its walk.
 */
const LIMITED_SUBQUERIES = [
  { text: /select iid from indicators order by iid limit/gi, scan: 'SCAN indicators' },
  // A write's count of the store's links, only as far as its choice of aggregates pass needs (derive.ts, wholePassPays).
  ...(['feed_links', 'threat_links'] as const).map((table) => ({ text: new RegExp(`select 1 from "${table}" limit`, 'gi'), scan: `SCAN ${table} USING COVERING INDEX ${table}_iid` })),
];

interface SqlitePlanRow {
  id: number;
  parent: number;
  detail: string;
}

/**
 * SQLite reads a whole table in a SCAN of it, or of an index on all its rows (a partial index holds
 * only its own rows), but for two walks that stop at a LIMIT: the outer loop of a statement that
 * ends in one and has its order from that loop (no temporary B-tree sorts it), and the limited
 * subqueries above. Lines are indented by their depth in the plan.
 */
const explainSqlite: Explain = async (connection, query, tables, partial) => {
  const { rows } = await connection.executeQuery<SqlitePlanRow>({ ...query, sql: `explain query plan ${query.sql}` });
  const depth = new Map<number, number>([[0, -1]]);
  for (const row of rows) depth.set(row.id, (depth.get(row.parent) ?? -1) + 1);
  const lines = rows.map((row) => `${'  '.repeat(depth.get(row.id) ?? 0)}${row.detail}`);
  const names = tableNames(query.sql);
  const top = rows.filter((row) => row.parent === 0);
  const outerWalk = /\blimit\s+(\?|\d+)\s*$/i.test(query.sql) && !top.some((row) => row.detail.startsWith('USE TEMP B-TREE FOR ORDER BY'))
    ? top.find((row) => /^(SCAN|SEARCH) /.test(row.detail))
    : undefined;
  const limited = new Map(LIMITED_SUBQUERIES.map(({ text, scan }) => [scan, query.sql.match(text)?.length ?? 0]));
  const wholeReads: string[] = [];
  for (const row of rows) {
    const m = /^SCAN (\w+)(?: USING (?:COVERING )?INDEX (\w+))?/.exec(row.detail);
    if (m === null || row === outerWalk) continue;
    const [, name, index] = m;
    if (index !== undefined && partial.has(index)) continue;
    const walks = limited.get(row.detail) ?? 0;
    if (walks > 0) {
      limited.set(row.detail, walks - 1);
      continue;
    }
    for (const table of names.get(name!.toLowerCase()) ?? []) if (tables.includes(table)) wholeReads.push(`${table}: ${row.detail}`);
  }
  return { lines, wholeReads };
};

interface PostgresNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PostgresNode[];
}

/** Nodes that read all their input before giving a row: an index walk under them reads to its end. */
const BLOCKING = new Set(['Sort', 'Incremental Sort', 'Hash', 'Aggregate', 'SetOp', 'Materialize', 'WindowAgg']);

/**
 * PostgreSQL reads a whole table in a Seq Scan, or in an index scan with no condition on the index
 * (a partial index aside), unless a Limit stops it with nothing between them that reads its input to
 * the end first: the index walked in the order asked for, to the page's end, or the table read in
 * its own order with no filter to pass over rows.
 */
const explainPostgres: Explain = async (connection, query, tables, partial) => {
  const plan = async () => {
    const { rows } = await connection.executeQuery<PlanRow>({ ...query, sql: `explain (format json) ${query.sql}` });
    return (rows[0]?.['QUERY PLAN'] as { Plan: PostgresNode }[] | undefined)?.[0]?.Plan;
  };
  const text = await connection.executeQuery<PlanRow>({ ...query, sql: `explain ${query.sql}` });
  const wholeReads = postgresWholeReads(await plan(), tables, partial);
  if (wholeReads.length > 0) {
    // Whether an index could serve the statement at all: with sequential scans priced out, the
    // planner takes any other plan there is. Said with the finding, for whoever fixes it.
    await connection.executeQuery(CompiledQuery.raw('set enable_seqscan = off'));
    const avoidable = postgresWholeReads(await plan(), tables, partial).length === 0;
    await connection.executeQuery(CompiledQuery.raw('reset enable_seqscan'));
    if (avoidable) wholeReads.push('(with sequential scans priced out the planner finds a plan that reads none whole)');
  }
  return { lines: linesOf(text.rows), wholeReads };
};

function postgresWholeReads(root: PostgresNode | undefined, tables: readonly string[], partial: ReadonlySet<string>): string[] {
  const wholeReads: string[] = [];
  const visit = (node: PostgresNode, limited: boolean) => {
    const table = node['Relation Name'];
    if (table !== undefined && tables.includes(table)) {
      const type = node['Node Type'];
      // A Seq Scan with no filter stops at the Limit above it; a filtered one may read on to the end.
      if (type === 'Seq Scan' && !(limited && node.Filter === undefined)) wholeReads.push(`${table}: Seq Scan`);
      else if (type === 'Bitmap Heap Scan' && node['Recheck Cond'] === undefined) wholeReads.push(`${table}: Bitmap Heap Scan with no condition`);
      else if ((type === 'Index Scan' || type === 'Index Only Scan') && node['Index Cond'] === undefined && !partial.has(node['Index Name'] ?? '') && !limited) {
        wholeReads.push(`${table}: ${type} using ${node['Index Name']} with no condition and no limit`);
      }
    }
    const below = node['Node Type'] === 'Limit' ? true : BLOCKING.has(node['Node Type']) ? false : limited;
    // A merge join walks its inner side from that side's first row, whatever limits its outer one.
    for (const [i, child] of (node.Plans ?? []).entries()) visit(child, node['Node Type'] === 'Merge Join' && i === 1 ? false : below);
  };
  if (root !== undefined) visit(root, false);
  return wholeReads;
}

/** The statements' whole reads, each shown with its statement and plan: an assertion's message. */
export function describeWholeReads(statements: readonly StatementPlan[]): string {
  return statements
    .filter((s) => s.wholeReads.length > 0)
    .map((s) => `${s.wholeReads.join('; ')}\n  ${s.sql.replace(/\s+/g, ' ').trim()}\n  ${JSON.stringify(s.parameters).slice(0, 200)}\n    ${s.lines.join('\n    ')}`)
    .join('\n\n');
}
