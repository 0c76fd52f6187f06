// What the pull tests share: a store on a backend with the app over it and a key, a clock the test moves, pulls
// through the real pullFeed, the lookup API and TAXII read over HTTP (supertest), and a snapshot of every table.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Express } from 'express';
import { sql } from 'kysely';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { feedsCommand } from '../../src/cli/feeds-command.js';
import { formatStamp, type Clock } from '../../src/clock.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { pullFeed, type PullDeps, type PullOutcome } from '../../src/sources/pull-feed.js';
import type { Store } from '../../src/store/contract/store.js';
import { collectionPath, INDICATORS_COLLECTION, walk } from '../taxii/taxii-request.js';
import type { Backend } from './store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from './test-app.js';
import { dbOf, dialectOf } from './store-db.js';

export type StixObject = Record<string, unknown> & { id: string; type: string; modified: string };

export interface LinkedIndicator {
  iid: number;
  indicator: string;
  type: string;
  risk: string;
  stamp_linked: string;
}

/** A clock that stands still until the test moves it: every stamp a pull sets is known. */
export interface ManualClock extends Clock {
  advance(ms: number): void;
  /** The clock's time as the store writes stamps, `YYYY-MM-DD HH:MM:SS`. */
  stamp(): string;
}

export function manualClock(start = Date.parse('2026-03-02T08:00:00Z')): ManualClock {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms), stamp: () => formatStamp(now) };
}

export interface PullWorld {
  store: Store;
  location: string;
  app: Express;
  config: Config;
  key: string;
  clock: ManualClock;
  /** The environment pulls see unless a test gives another. */
  env: Record<string, string | undefined>;
  logLines: string[];
  addSource(feed: string, source: unknown): Promise<number>;
  /** Moves the clock on (one minute by default), then pulls the feed as `feeds pull` does; `deps` adds to what the pull is given. */
  pull(fid: number, options?: { env?: Record<string, string | undefined>; advance?: number; deps?: Partial<PullDeps> }): Promise<PullOutcome>;
  /** `feeds CMD...` in this process (the world's env unless another is given); its output lines and whether it succeeded. */
  feeds(args: string[], flags?: { all?: boolean; yes?: boolean }, env?: Record<string, string | undefined>): Promise<{ ok: boolean; lines: string[] }>;
  /** Every indicator linked to the feed, through GET /api/feed.php?fid=F&get=links (all pages). */
  feedLinks(fid: number): Promise<LinkedIndicator[]>;
  /** GET /api/PATH with the key; the body after checking the status. */
  api(path: string, query: Record<string, string | number>, status?: number): Promise<any>;
  /** The objects of the indicators collection (walking every page), with the last page's X-TAXII-Date-Added-Last. */
  taxii(query?: string): Promise<{ objects: StixObject[]; last: string | undefined }>;
  close(): Promise<void>;
}

export const PULL_CONFIG = loadConfig({ overrides: { ...GENEROUS_PLANS, linksPageSize: 1000, cache: { versionCheckMs: 0 } } });

/** `config` defaults to PULL_CONFIG; a test that needs more collections (saved views) gives its own. */
export async function openPullWorld(backend: Backend, env: Record<string, string | undefined> = {}, config: Config = PULL_CONFIG): Promise<PullWorld> {
  const { store, location } = await backend.create({ collections: config.collections });
  const clock = manualClock();
  const logLines: string[] = [];
  const logger = createLogger('info', (line) => logLines.push(line));
  const allowlist = createAllowlist(undefined);
  const app = createApp(config, { store, clock, logger, nextTokenSecret: TEST_NEXT_SECRET });
  const { key } = await createKey(store, config, clock, 'pro', 'pull tests');
  const world: PullWorld = {
    store,
    location,
    app,
    config,
    key,
    clock,
    env,
    logLines,
    addSource: (feed, source) => addFeedSource(store, { feed, organization: 'Pull Tests', source }, clock, world.env),
    async pull(fid, options = {}) {
      clock.advance(options.advance ?? 60_000);
      return pullFeed(fid, { store, clock, env: options.env ?? world.env, allowlist, logger, ...options.deps });
    },
    async feeds(args, flags = {}, env = world.env) {
      const lines: string[] = [];
      const ok = (await feedsCommand(args, flags, { store, clock, env, allowlist, logger, out: (line) => lines.push(line) })) === 0;
      return { ok, lines };
    },
    async api(path, query, status = 200) {
      const res = await request(app).get(`/api/${path}`).query({ ...query, key });
      assert.equal(res.status, status, res.text);
      return res.body;
    },
    async feedLinks(fid) {
      const all: LinkedIndicator[] = [];
      for (let page: number | undefined = 0; page !== undefined; ) {
        const body = (await world.api('feed.php', { fid, get: 'links', page })) as { results: LinkedIndicator[]; page_next?: number };
        all.push(...body.results);
        page = body.page_next;
      }
      return all;
    },
    async taxii(query = '') {
      const pages = await walk(app, key, `${collectionPath(INDICATORS_COLLECTION)}objects/?limit=50${query}`);
      return { objects: pages.flatMap((p) => (p.body.objects ?? []) as StixObject[]), last: pages.findLast((p) => p.last)?.last };
    },
    async close() {
      await store.close();
    },
  };
  return world;
}

/** The columns of feed_sources a failed pull writes (its error, its time, the failure count, the retry time). */
export const PULL_FAILURE_COLUMNS = ['last_error', 'last_error_at', 'failures', 'next_due'] as const;

async function tableNames(store: Store): Promise<string[]> {
  const { rows } =
    dialectOf(store) === 'postgres'
      ? await sql<{ name: string }>`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(dbOf(store))
      : await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'`.execute(dbOf(store));
  return rows.map((r) => r.name).sort();
}

/** The run history (docs/interface.md section 12): every pull, failed ones too, adds its run there. */
export const RUN_HISTORY_TABLES = ['feed_runs'] as const;

/**
 * Every row of every table of the store but the run history, each row as JSON with its columns in name
 * order, rows sorted; feed_sources without the columns a failed pull is meant to write. Tables are found
 * in the catalog, so a table added later is compared too.
 */
export async function snapshotStore(store: Store): Promise<Record<string, string[]>> {
  const snapshot: Record<string, string[]> = {};
  for (const table of await tableNames(store)) {
    if ((RUN_HISTORY_TABLES as readonly string[]).includes(table)) continue;
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(dbOf(store));
    snapshot[table] = rows
      .map((row) => {
        const kept = Object.keys(row)
          .filter((column) => table !== 'feed_sources' || !(PULL_FAILURE_COLUMNS as readonly string[]).includes(column))
          .sort()
          .map((column) => [column, row[column] instanceof Buffer ? (row[column] as Buffer).toString('hex') : row[column]]);
        return JSON.stringify(kept, (_, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
      })
      .sort();
  }
  return snapshot;
}

/** The snapshots are equal; on a difference, names the tables and rows that differ rather than dumping both. */
export function assertSameStore(after: Record<string, string[]>, before: Record<string, string[]>, what: string): void {
  assert.deepEqual(Object.keys(after), Object.keys(before), `${what}: the tables differ`);
  for (const table of Object.keys(before)) {
    const was = new Set(before[table]);
    const now = new Set(after[table]);
    const gone = before[table]!.filter((row) => !now.has(row));
    const added = after[table]!.filter((row) => !was.has(row));
    assert.deepEqual({ table, gone, added }, { table, gone: [], added: [] }, `${what}: table ${table} changed`);
    assert.equal(after[table]!.length, before[table]!.length, `${what}: table ${table} row count`);
  }
}

/** The indicator objects of a listing, by pattern. */
export const indicatorsByPattern = (objects: StixObject[]) =>
  new Map(objects.filter((o) => o.type === 'indicator').map((o) => [o.pattern as string, o]));

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The command line from the sources, not dist/: dist may be older than the code under test. From
 * TypeScript it runs through tsx; when `npm test` runs the tests compiled (test/helpers/compile-tests.ts),
 * main.js beside them is compiled from the same sources, and starts without tsx's loader.
 */
const COMPILED = import.meta.url.endsWith('.js');
export const SOURCE_MAIN = fileURLToPath(new URL(COMPILED ? '../../src/main.js' : '../../src/main.ts', import.meta.url));
/** Node's arguments before SOURCE_MAIN. */
export const SOURCE_LOADER: readonly string[] = COMPILED ? [] : ['--import', 'tsx'];

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `threatgate ARGS` as a child process and waits for it to exit. Asynchronous on purpose: the
 * feed server of the test lives in this process and must answer the child's requests meanwhile.
 * The child gets this environment without anything that would point it elsewhere, plus `env`.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const { FEED_TOKEN: _token, DATABASE_URL: _db, THREATGATE_CONFIG: _config, LOG_LEVEL: _level, ...base } = process.env;
  const child = spawn(process.execPath, [...SOURCE_LOADER, SOURCE_MAIN, ...args], { cwd: REPOSITORY, env: { ...base, LOG_LEVEL: 'warn', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
