// Builds the scale bench's store as users do: the built CLI adds each feed with `feeds add` and pulls them with `feeds pull`.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sourceDefinition, type FeedSpec } from './feed-plan.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CLI = join(ROOT, 'dist', 'main.js');

export interface StoreLocation {
  /** What `--db` gets. */
  db: string;
  kind: 'sqlite' | 'postgres';
}

export function storeLocation(db: string): StoreLocation {
  if (!/^postgres(ql)?:\/\//.test(db)) return { db: resolve(db), kind: 'sqlite' };
  if (new URL(db).searchParams.get('schema') === null) throw new Error('--db: a PostgreSQL URL must name a schema (?schema=NAME), which the bench fills and may drop');
  return { db, kind: 'postgres' };
}

/** The URL without its password, for logs. */
export const shown = (location: StoreLocation) => location.db.replace(/\/\/[^@]*@/, '//…@');

export async function withPostgres<T>(location: StoreLocation, use: (client: pg.Client, schema: string) => Promise<T>): Promise<T> {
  const url = new URL(location.db);
  const schema = url.searchParams.get('schema')!;
  url.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await use(client, schema);
  } finally {
    await client.end();
  }
}

/** Whether the store already holds tables (a schema with tables, an SQLite file). */
export async function storeExists(location: StoreLocation): Promise<boolean> {
  if (location.kind === 'sqlite') return existsSync(location.db);
  return withPostgres(location, async (client, schema) => {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from information_schema.tables where table_schema = $1', [schema]);
    return Number(rows[0]?.n ?? 0) > 0;
  });
}

/** Drops the PostgreSQL schema with everything in it, or removes the SQLite file with its journal. */
export async function dropStore(location: StoreLocation): Promise<void> {
  if (location.kind === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${location.db}${suffix}`, { force: true });
    return;
  }
  await withPostgres(location, (client, schema) => client.query(`drop schema if exists "${schema.replace(/"/g, '""')}" cascade`));
}

/** The SQLite file's size with its WAL, or the PostgreSQL schema's tables and indexes, in MB. */
export async function storeMegabytes(location: StoreLocation): Promise<number> {
  if (location.kind === 'sqlite') {
    return ['', '-wal'].reduce((sum, suffix) => sum + (existsSync(`${location.db}${suffix}`) ? statSync(`${location.db}${suffix}`).size : 0), 0) / 1e6;
  }
  return withPostgres(location, async (client, schema) => {
    const { rows } = await client.query<{ bytes: string | null }>(
      `select sum(pg_total_relation_size(c.oid)) as bytes from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ('r', 'm')`,
      [schema],
    );
    return Number(rows[0]?.bytes ?? 0) / 1e6;
  });
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/**
 * Runs `node dist/main.js ARGS` without blocking this process: the feed server answering the pull lives in it.
 */
export function runCli(args: readonly string[]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr, seconds: (performance.now() - started) / 1000 }));
  });
}

async function cliOk(args: readonly string[]): Promise<string> {
  const run = await runCli(args);
  if (run.code !== 0) throw new Error(`threatgate ${args.slice(0, 2).join(' ')} failed (exit ${run.code}): ${run.stderr.trim() || run.stdout.trim()}`);
  return run.stdout.trim();
}

/** `feeds add` for each feed, its source the feed server's path; the fids in plan order. */
export async function addFeeds(location: StoreLocation, plan: readonly FeedSpec[], base: string): Promise<number[]> {
  const fids: number[] = [];
  for (const feed of plan) {
    const source = JSON.stringify(sourceDefinition(feed, `${base}${feed.path}`));
    const fid = Number(await cliOk(['feeds', 'add', '--feed', feed.name, '--organization', feed.organization, '--source', source, '--db', location.db]));
    if (!Number.isSafeInteger(fid)) throw new Error(`feeds add ${feed.name} printed no fid`);
    fids.push(fid);
  }
  return fids;
}

export interface PullLine {
  fid: number;
  values: number;
  newIndicators: number;
  newLinks: number;
  rejected: number;
  /** As the CLI reports it: the pull itself, without the process's start. */
  seconds: number;
}

const PULL_LINE = /^fid (\d+) .*: ok (\d+) values, (\d+) new indicators, (\d+) new links, (\d+) rejected, ([\d.]+) s$/gm;

export function parsePullLines(stdout: string): PullLine[] {
  return [...stdout.matchAll(PULL_LINE)].map((m) => {
    const [fid, values, newIndicators, newLinks, rejected, seconds] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    return { fid, values, newIndicators, newLinks, rejected, seconds };
  });
}

export interface PullRun {
  lines: PullLine[];
  /** The process's wall time: start-up, opening the store and every pull it made. */
  seconds: number;
}

/** `feeds pull FID...` in one process; fails when any pull failed. */
export async function pullFeeds(location: StoreLocation, fids: readonly number[]): Promise<PullRun> {
  const run = await runCli(['feeds', 'pull', ...fids.map(String), '--db', location.db]);
  const lines = parsePullLines(run.stdout);
  if (run.code !== 0 || lines.length !== fids.length) {
    throw new Error(`feeds pull ${fids.join(' ')} failed (exit ${run.code}):\n${run.stdout.trim()}\n${run.stderr.trim()}`);
  }
  return { lines, seconds: run.seconds };
}

/** Feeds pulled in each `feeds pull` process while building: a process's start-up shared, yet no process holds every pull. */
const PULLS_PER_PROCESS = 10;

export interface BuildPulls {
  lines: PullLine[];
  seconds: number;
}

/** Pulls every feed once, smallest first, logging each process's lines. */
export async function pullAll(location: StoreLocation, fids: readonly number[], log: (line: string) => void): Promise<BuildPulls> {
  const started = performance.now();
  const lines: PullLine[] = [];
  for (let at = 0; at < fids.length; at += PULLS_PER_PROCESS) {
    const batch = fids.slice(at, at + PULLS_PER_PROCESS);
    const run = await pullFeeds(location, batch);
    lines.push(...run.lines);
    const values = run.lines.reduce((sum, l) => sum + l.values, 0);
    log(`  pulled fids ${batch[0]}-${batch.at(-1)}: ${values.toLocaleString('en-US')} values in ${run.seconds.toFixed(1)} s (the biggest ${Math.max(...run.lines.map((l) => l.seconds)).toFixed(1)} s)`);
  }
  return { lines, seconds: (performance.now() - started) / 1000 };
}

export const createKey = (location: StoreLocation) => cliOk(['keys', 'create', '--plan', 'pro', '--label', 'scale-bench', '--db', location.db]);

/** One `threatgate lifecycle` run, timed from outside (the process's start included). */
export async function runLifecycle(location: StoreLocation): Promise<{ seconds: number; summary: string }> {
  const run = await runCli(['lifecycle', '--db', location.db]);
  if (run.code !== 0) throw new Error(`threatgate lifecycle failed (exit ${run.code}): ${run.stderr.trim()}`);
  return { seconds: run.seconds, summary: run.stdout.trim().split('\n').at(-1) ?? '' };
}
