// The stores a contract suite runs against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig, type CollectionConfig, type Config } from '../../src/config.js';
import type { Store, WritePaths } from '../../src/store/store.js';
import { dbOf, openTestStore } from './store-db.js';

/** What a test store is opened with: the default config's collections unless others are given. */
export interface StoreSetup {
  collections?: readonly CollectionConfig[];
  writePaths?: WritePaths;
}

export const DEFAULT_COLLECTIONS = loadConfig({}).collections;

/** The options `openStore` takes for a setup. */
export const storeOptions = (setup: StoreSetup = {}) => ({ collections: setup.collections ?? DEFAULT_COLLECTIONS, writePaths: setup.writePaths });

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

/** Each store lives in its own schema, dropped at the end, so runs never see each other's rows. */
function postgresBackend(baseUrl: string): Backend {
  const schemas: string[] = [];
  const run = randomBytes(4).toString('hex');
  return {
    name: 'PostgreSQL',
    async create(setup) {
      const schema = `tg_test_${run}_${schemas.length + 1}`;
      schemas.push(schema);
      const url = new URL(baseUrl);
      url.searchParams.set('schema', schema);
      return { store: await openTestStore(url.toString(), storeOptions(setup)), location: url.toString() };
    },
    async cleanup() {
      if (schemas.length === 0) return;
      const { store } = await this.create();
      for (const schema of schemas) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(dbOf(store));
      await store.close();
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
