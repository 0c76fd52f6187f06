// The stores a contract suite runs against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig, type CollectionConfig, type Config } from '../../src/config.js';
import type { WritePaths } from '../../src/store/store.js';
import type { Store } from '../../src/store/contract/store.js';
import { openTestStore } from './store-db.js';

/** What a test store is opened with: the default config's collections unless others are given. */
export interface StoreSetup {
  collections?: readonly CollectionConfig[];
  writePaths?: WritePaths;
  /**
   * How long the store's writes wait for another process's write (open-store.ts): a test that writes
   * while a served puller holds the write lock waits as a command does (BACKGROUND_BUSY_MS), not as a
   * serving process's requests give up.
   */
  busyTimeoutMs?: number;
}

export const DEFAULT_COLLECTIONS = loadConfig({}).collections;

/** The options `openStore` takes for a setup. */
export const storeOptions = (setup: StoreSetup = {}) => ({ collections: setup.collections ?? DEFAULT_COLLECTIONS, writePaths: setup.writePaths, busyTimeoutMs: setup.busyTimeoutMs });

export interface Backend {
  name: string;
  /** A new, empty store (a fresh file or a fresh schema); `location` reopens the same one. */
  create(setup?: StoreSetup): Promise<{ store: Store; location: string }>;
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-contract-'));
  let n = 0;
  return {
    name: 'SQLite',
    async create(setup) {
      const location = join(dir, `store-${++n}.sqlite`);
      return { store: await openTestStore(location, storeOptions(setup)), location };
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs one statement on the database `baseUrl` names: creating or dropping a backend's database. */
async function onServer(baseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * Each backend has a database of its own, dropped at the end, and each store a schema in it, so runs
 * never see each other's rows. Test files run side by side (package.json), and Kysely's migrator
 * reads every table of the database by name on each open: a schema or table another file drops
 * meanwhile fails that read, so no two backends share a database.
 */
function postgresBackend(baseUrl: string): Backend {
  const run = randomBytes(4).toString('hex');
  const database = `tg_test_${run}`;
  let created: Promise<void> | undefined;
  let stores = 0;
  return {
    name: 'PostgreSQL',
    async create(setup) {
      created ??= onServer(baseUrl, `create database ${database} template template0`);
      await created;
      const url = new URL(baseUrl);
      url.pathname = `/${database}`;
      url.searchParams.set('schema', `tg_test_${run}_${++stores}`);
      return { store: await openTestStore(url.toString(), storeOptions(setup)), location: url.toString() };
    },
    async cleanup() {
      if (created === undefined) return;
      created = undefined;
      // FORCE: a connection left open (a killed child process's, say) must not keep the database.
      await onServer(baseUrl, `drop database if exists ${database} with (force)`);
    },
  };
}

export function storeBackends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL;
  return url ? [sqliteBackend(), postgresBackend(url)] : [sqliteBackend()];
}

/** A new, empty store from `backend` opened as `serve` opens it for `config` (its collections). */
export function createConfiguredStore(backend: Backend, config: Config): Promise<{ store: Store; location: string }> {
  return backend.create({ collections: config.collections });
}
