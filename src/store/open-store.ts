// Opens the store named by a path or URL: an SQLite file by default (PostgreSQL: postgres:// URLs).
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { ConfigError } from '../errors.js';
import { migrateToLatest } from './migrations.js';
import type { Database } from './schema.js';
import { createStore, type ImportHook, type Store } from './store.js';

export const DEFAULT_DB_PATH = './data/threatgate.sqlite';

function openSqlite(path: string): Kysely<Database> {
  const file = path === ':memory:' ? path : resolve(path);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const connection = new BetterSqlite3(file);
  // WAL lets readers (other workers) run while an import writes; NORMAL is durable at checkpoints.
  connection.pragma('journal_mode = WAL');
  connection.pragma('synchronous = NORMAL');
  connection.pragma('busy_timeout = 10000');
  connection.pragma('foreign_keys = OFF');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
}

/**
 * `location` is a file path, `sqlite:PATH`, or `postgres://…`. Migrations run on open, so every
 * command works on a new, empty database.
 */
export async function openStore(location: string, options: { importHooks?: readonly ImportHook[]; setting?: string } = {}): Promise<Store> {
  const setting = options.setting ?? '--db';
  if (/^postgres(ql)?:\/\//.test(location)) {
    throw new ConfigError(`${setting}: PostgreSQL is not supported yet (use an SQLite file path)`);
  }
  const path = location.replace(/^sqlite:/, '');
  let db: Kysely<Database>;
  try {
    db = openSqlite(path);
  } catch (error) {
    throw new ConfigError(`${setting}: cannot open SQLite database ${path} (${(error as Error).message})`);
  }
  try {
    await migrateToLatest(db, 'sqlite');
  } catch (error) {
    await db.destroy();
    throw new ConfigError(`${setting}: cannot prepare database ${path} (${(error as Error).message})`);
  }
  return createStore(db, 'sqlite', options.importHooks ?? []);
}
