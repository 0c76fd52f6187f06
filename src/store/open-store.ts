// Opens the store named by a path or URL: an SQLite file by default (PostgreSQL: postgres:// URLs).
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql, SqliteDialect, type SqliteDatabase } from 'kysely';
import { ConfigError } from '../errors.js';
import { migrateToLatest } from './db/migrations.js';
import { SchemaLockingPostgresDialect, type Dialect } from './db/dialect.js';
import type { Database } from './db/schema.js';
import { createStore, type StoreOptions } from './store.js';
import type { Store } from './contract/store.js';

export const DEFAULT_DB_PATH = './data/threatgate.sqlite';

function openSqlite(path: string, mustExist: boolean, busyTimeoutMs: number): Kysely<Database> {
  const file = path === ':memory:' ? path : resolve(path);
  if (file !== ':memory:' && !mustExist) mkdirSync(dirname(file), { recursive: true });
  const connection = new BetterSqlite3(file, { fileMustExist: mustExist });
  // A new database gets 16 KiB pages (SQLite's default is 4 KiB): fewer, fuller B-tree pages, fewer
  // page writes in a large import (bench/README.md). It must come before WAL mode; on an existing
  // database it changes nothing.
  connection.pragma('page_size = 16384');
  // WAL lets readers (other workers) run while an import writes; NORMAL is durable at checkpoints.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  connection.pragma('foreign_keys = OFF');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(connection) }) });
}

const STATEMENT_CACHE_SIZE = 200;

/**
 * Kysely prepares every query it runs; this keeps the compiled statements of the most recent SQL
 * texts, as an import runs the same batched INSERT thousands of times. A statement still being
 * iterated is never handed out twice.
 */
function withStatementCache(connection: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => connection.close(),
    prepare(text: string) {
      const cached = cache.get(text);
      if (cached !== undefined && !cached.busy) {
        // Most recently used last: the first key is the one to evict.
        cache.delete(text);
        cache.set(text, cached);
        return cached;
      }
      const statement = connection.prepare(text);
      cache.set(text, statement);
      if (cache.size > STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      return statement;
    },
  };
}

const INT8_OID = 20;

/** A short reason: the system error code (ECONNREFUSED), or the driver's message, never a stack. */
function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e?.code && /^E[A-Z]+$/.test(e.code)) return e.code;
  return (e?.message ?? String(error)).split('\n')[0]!.slice(0, 200);
}

/** Credentials never appear in messages: postgres://user:secret@host/db → postgres://host/db. */
export function describeLocation(location: string): string {
  try {
    const url = new URL(location);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return 'the given PostgreSQL URL';
  }
}

/** A serving process's PostgreSQL queries fail after this long: a hung database answers 503 instead of holding requests. */
const SERVING_QUERY_TIMEOUT_MS = 15_000;

/** pg is loaded only for a PostgreSQL store: an SQLite process (the default) does without its memory. */
async function openPostgres(url: string, schema: string | undefined, queryTimeoutMs: number): Promise<Kysely<Database>> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5000,
    // A hung database fails queries (503) instead of holding requests forever; the puller and the
    // commands wait longer, as a write waits for the one before it (the write lock, dialect.ts).
    query_timeout: queryTimeoutMs,
    keepAlive: true,
    // 64-bit integers (ids, date_added in microseconds) stay below 2^53: plain numbers are exact.
    types: { getTypeParser: (oid, format) => (oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) },
    // JIT compilation pays off for queries that run for seconds. Every query here is bounded (an
    // index range, a page), and the planner's guesses for what a write just wrote can be far off:
    // it compiled small statements of a write for longer than they then ran. So no JIT.
    options: ['-c jit=off', ...(schema ? [`-c search_path=${schema}`] : [])].join(' '),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new SchemaLockingPostgresDialect({ pool }) });
}

export interface OpenDatabaseOptions {
  /** The setting that named `location` (`--db`, `DATABASE_URL`), for error messages. */
  setting?: string;
  /**
   * Refuse an SQLite file that does not exist rather than create it: a command run from
   * another folder must not work on a new, empty store. PostgreSQL and `:memory:` are unaffected.
   */
  mustExist?: boolean;
  /**
   * How long a write waits for another's to end: SQLite's busy timeout before "database is locked"
   * (default SERVING_BUSY_MS), and PostgreSQL's query timeout, which a write waiting for the write
   * lock counts against (default 15 s). One write at a time holds the store, and a pull's can take
   * a minute or more: the puller and the commands wait it out (BACKGROUND_BUSY_MS, for both), while a
   * serving process's small writes (a key, a session) and its reads give up sooner.
   */
  busyTimeoutMs?: number;
}

/** A serving process's writes wait this long for the write lock. */
export const SERVING_BUSY_MS = 10_000;
/** The puller's and the commands' writes wait this long: longer than the biggest write a pull makes (bench/README.md). */
export const BACKGROUND_BUSY_MS = 600_000;

/** The one line a command gets when its SQLite store is not there: where it looked, and how to look elsewhere. */
function missingStore(setting: string, file: string): ConfigError {
  return new ConfigError(
    `${setting}: no store at ${file} (the file does not exist); point --db or DATABASE_URL at the store to use, ` +
      'or create one with serve, import, demo or feeds add',
  );
}

export interface OpenStoreOptions extends OpenDatabaseOptions, Omit<StoreOptions, 'schema' | 'busyTimeoutMs'> {}

/** An open, migrated database: what a store is created over. */
export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: Dialect;
  /** The PostgreSQL schema the store lives in, when the URL named one. */
  schema: string | undefined;
}

/**
 * `location` is a file path, `sqlite:PATH`, or `postgres://…`. Migrations run on open, so a new,
 * empty database works at once; with `mustExist`, an SQLite file must already be there.
 */
export async function openStore(location: string, options: OpenStoreOptions): Promise<Store> {
  const { db, dialect, schema } = await openDatabase(location, options);
  return createStore(db, dialect, { collections: options.collections, schema, sightings: options.sightings, busyTimeoutMs: options.busyTimeoutMs ?? SERVING_BUSY_MS });
}

/** The database of `location`, opened and migrated (openStore's first half). */
export async function openDatabase(location: string, options: OpenDatabaseOptions): Promise<OpenDatabase> {
  const setting = options.setting ?? '--db';
  let db: Kysely<Database>;
  let dialect: Dialect;
  let shown: string;
  let schema: string | undefined;
  if (/^postgres(ql)?:\/\//.test(location)) {
    dialect = 'postgres';
    shown = describeLocation(location);
    const url = new URL(location);
    // ?schema=NAME selects a schema (tests use one per run); it is not a libpq parameter.
    schema = url.searchParams.get('schema') ?? undefined;
    if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new ConfigError(`${setting}: schema "${schema}" is not a plain lower-case identifier`);
    url.searchParams.delete('schema');
    const busy = options.busyTimeoutMs;
    db = await openPostgres(url.toString(), schema, busy === undefined || busy === SERVING_BUSY_MS ? SERVING_QUERY_TIMEOUT_MS : busy);
    if (schema !== undefined) {
      try {
        await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
      } catch (error) {
        await db.destroy();
        throw new ConfigError(`${setting}: cannot reach PostgreSQL at ${shown} (${reasonOf(error)})`);
      }
    }
  } else {
    // Any other URL is a mistake (`postgre://…`, say), not a file name; it is not echoed, as it may carry a password.
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1];
    if (scheme !== undefined) throw new ConfigError(`${setting}: "${scheme}://" is not a database URL scheme (use a file path, sqlite:PATH or postgres://)`);
    dialect = 'sqlite';
    shown = location.replace(/^sqlite:/, '');
    const mustExist = options.mustExist === true && shown !== ':memory:';
    if (mustExist && !existsSync(shown)) throw missingStore(setting, resolve(shown));
    try {
      db = openSqlite(shown, mustExist, options.busyTimeoutMs ?? SERVING_BUSY_MS);
    } catch (error) {
      throw new ConfigError(`${setting}: cannot open SQLite database ${shown} (${(error as Error).message})`);
    }
  }
  try {
    await migrateToLatest(db, dialect, schema);
  } catch (error) {
    await db.destroy();
    throw new ConfigError(`${setting}: cannot prepare database ${shown} (${reasonOf((error as Error).cause ?? error)})`);
  }
  return { db, dialect, schema };
}
