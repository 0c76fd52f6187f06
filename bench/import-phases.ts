// Profiles one import in-process: wall time and peak RSS per phase, and time per SQL statement (better-sqlite3 instrumented).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { batchesOfFile } from '../src/import/file-batches.js';
import type { WriteBatch } from '../src/store/contract/write-batch.js';
import type { WritePhase } from '../src/store/contract/store.js';
import { dbOf, openTestStore } from '../test/helpers/store-db.js';
import { RECORDS } from '../src/store/contract/commands.js';

const MB = 1024 * 1024;

const hrUs = (): number => Number(process.hrtime.bigint() / 1000n);

interface SqlStat {
  sql: string;
  calls: number;
  ms: number;
  rows: number;
  /** Largest RSS growth seen across one call of this statement (result sets materialized by .all()). */
  maxRssGrowthMB: number;
}

interface Phase {
  name: string;
  started: number;
  /** process.hrtime in µs at the start and end: the clock of V8 .cpuprofile timestamps. */
  fromUs: number;
  toUs: number;
  ms: number;
  /** User + system CPU time of the process in the phase: less sensitive than wall time to a busy machine. */
  cpuMs: number;
  sqlMs: number;
  peakRssMB: number;
  peakHeapMB: number;
}

/** Collapses multi-row VALUES lists and IN lists so one statement shape is one row. */
function shape(sql: string): string {
  return sql
    .replace(/\s+/g, ' ')
    .replace(/\((?:\?, )*\?\)(?:, \((?:\?, )*\?\))+/g, '(?…),…')
    .replace(/in \((?:\?, )+\?\)/g, 'in (?…)')
    .replace(/\((?:\?, ){8,}\?\)/g, '(?…)')
    .slice(0, 220);
}

class Recorder {
  readonly sql = new Map<string, SqlStat>();
  readonly phases: Phase[] = [];
  private current: Phase | undefined;
  private calls = 0;
  private cpuAtStart = process.cpuUsage();

  /** With `mark`, each phase start is also written to stdout, where `node --trace-gc` writes its lines. */
  constructor(private readonly mark = false) {}

  begin(name: string): void {
    this.end();
    if (this.mark) process.stdout.write(`[phase] ${name}\n`);
    this.cpuAtStart = process.cpuUsage();
    this.current = { name, started: performance.now(), fromUs: hrUs(), toUs: 0, ms: 0, cpuMs: 0, sqlMs: 0, peakRssMB: 0, peakHeapMB: 0 };
    this.sample();
  }

  end(): void {
    if (!this.current) return;
    this.sample();
    this.current.ms = performance.now() - this.current.started;
    this.current.toUs = hrUs();
    const cpu = process.cpuUsage(this.cpuAtStart);
    this.current.cpuMs = (cpu.user + cpu.system) / 1000;
    this.phases.push(this.current);
    this.current = undefined;
  }

  /** Memory is sampled from inside the SQL calls: the import runs on microtasks, so timers would not fire. */
  sample(force = true): void {
    if (!this.current || (!force && ++this.calls % 16 !== 0)) return;
    const rss = process.memoryUsage.rss() / MB;
    if (rss > this.current.peakRssMB) this.current.peakRssMB = rss;
    if (force || this.calls % 256 === 0) {
      const heap = process.memoryUsage().heapUsed / MB;
      if (heap > this.current.peakHeapMB) this.current.peakHeapMB = heap;
    }
  }

  record(source: string, ms: number, rows: number, rssGrowthMB: number): void {
    const key = shape(source);
    let stat = this.sql.get(key);
    if (!stat) this.sql.set(key, (stat = { sql: key, calls: 0, ms: 0, rows: 0, maxRssGrowthMB: 0 }));
    stat.calls++;
    stat.ms += ms;
    stat.rows += rows;
    if (rssGrowthMB > stat.maxRssGrowthMB) stat.maxRssGrowthMB = rssGrowthMB;
    if (this.current) this.current.sqlMs += ms;
    this.sample(false);
  }
}

type AnyFn = (...args: unknown[]) => unknown;

/**
 * Wraps Statement#all/run/get and Database#prepare of better-sqlite3 (the module instance the store
 * uses). The store caches its statements itself, so prepare shows only cache misses.
 */
function instrumentSqlite(recorder: Recorder): void {
  const scratch = new BetterSqlite3(':memory:');
  const statementProto = Object.getPrototypeOf(scratch.prepare('select 1')) as Record<string, AnyFn>;
  const databaseProto = Object.getPrototypeOf(scratch) as Record<string, AnyFn>;
  scratch.close();
  for (const method of ['all', 'run', 'get'] as const) {
    const original = statementProto[method]!;
    statementProto[method] = function (this: { source: string }, ...args: unknown[]) {
      const rss = process.memoryUsage.rss();
      const started = performance.now();
      const result = original.apply(this, args);
      const ms = performance.now() - started;
      const rows = Array.isArray(result) ? result.length : method === 'run' ? Number((result as { changes: number }).changes) : result ? 1 : 0;
      recorder.record(this.source, ms, rows, (process.memoryUsage.rss() - rss) / MB);
      return result;
    };
  }
  const prepare = databaseProto.prepare!;
  databaseProto.prepare = function (this: object, ...args: unknown[]) {
    const started = performance.now();
    const statement = prepare.apply(this, args);
    recorder.record('(prepare: compiling SQL text into a statement)', performance.now() - started, 0, 0);
    return statement;
  };
}

export interface PhaseReport {
  totalMs: number;
  peakRssMB: number;
  phases: Phase[];
  sql: SqlStat[];
  summary: string;
}

/** Runs one import of `file` into `db` with phase marks; the STIX hooks of the real CLI are included. */
export interface ProfileOptions {
  fresh: boolean;
  markPhases?: boolean;
  /** Experiments: PRAGMAs run on the store's connection before the import, e.g. `cache_size = -65536`. */
  pragmas?: string[];
}

export async function profileImport(file: string, db: string, options: ProfileOptions): Promise<PhaseReport> {
  const recorder = new Recorder(options.markPhases ?? false);
  instrumentSqlite(recorder);
  if (options.fresh) for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
  const config = loadConfig({});
  const phaseNames: Record<WritePhase, string> = {
    derive: 'link checks + moveLinks + renumberLinks + aggregates (refreshLookupData)',
    project: 'STIX objects and collections (STIX sync)',
    commit: 'commit',
  };
  const started = performance.now();
  recorder.begin('open store + migrations');
  const store = await openTestStore(db, { collections: config.collections });
  for (const pragma of options.pragmas ?? []) await sql.raw(`pragma ${pragma}`).execute(dbOf(store));

  recorder.begin('stream: batched upserts + link staging (records read, validated and batched on a worker thread)');
  async function* marked(batches: AsyncIterable<WriteBatch>): AsyncGenerator<WriteBatch> {
    yield* batches;
    recorder.begin('link checks, key and related checks, moveLinks');
  }
  const summary = await store.applyWrite(RECORDS, marked(batchesOfFile(file)), systemClock, { onPhase: (phase) => recorder.begin(phaseNames[phase]) });
  recorder.begin('close');
  await store.close();
  recorder.end();
  const totalMs = performance.now() - started;
  const { read, changed } = summary;
  return {
    totalMs,
    peakRssMB: process.resourceUsage().maxRSS / 1024,
    phases: recorder.phases,
    sql: [...recorder.sql.values()].sort((a, b) => b.ms - a.ms),
    summary: `read ${read.threats}/${read.feeds}/${read.indicators}/${read.links}, changed ${changed.threats}/${changed.feeds}/${changed.indicators}/${changed.links} (threats/feeds/indicators/links)`,
  };
}

export function formatPhaseReport(report: PhaseReport, top = 20): string {
  const phases = [
    '| phase | wall s | CPU s | of which in SQL calls (wall) s | peak RSS MB | peak heap MB |',
    '|---|---:|---:|---:|---:|---:|',
    ...report.phases.map(
      (p) => `| ${p.name} | ${(p.ms / 1000).toFixed(2)} | ${(p.cpuMs / 1000).toFixed(2)} | ${(p.sqlMs / 1000).toFixed(2)} | ${p.peakRssMB.toFixed(0)} | ${p.peakHeapMB.toFixed(0)} |`,
    ),
  ];
  const sql = [
    '| SQL statement (shape) | calls | total s | rows | max RSS step MB |',
    '|---|---:|---:|---:|---:|',
    ...report.sql.slice(0, top).map((s) => `| \`${s.sql.replace(/\|/g, '\\|')}\` | ${s.calls} | ${(s.ms / 1000).toFixed(2)} | ${s.rows} | ${s.maxRssGrowthMB.toFixed(0)} |`),
  ];
  const cpuMs = report.phases.reduce((sum, p) => sum + p.cpuMs, 0);
  return [
    `${report.summary}; total ${(report.totalMs / 1000).toFixed(1)} s wall, ${(cpuMs / 1000).toFixed(1)} s CPU, process peak RSS ${report.peakRssMB.toFixed(0)} MB` +
      ` (load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')})`,
    '',
    ...phases,
    '',
    ...sql,
  ].join('\n');
}

/**
 * Reads a stdout log of `node --trace-gc … import-phases.ts --mark-phases`: per phase, the largest heap
 * before a mark-compact (live + garbage) and after it (live data), in MB.
 */
export function summarizeGcLog(text: string): string {
  const rows: { phase: string; maxBefore: number; maxLive: number; markCompacts: number; scavenges: number }[] = [];
  let row = { phase: '(start)', maxBefore: 0, maxLive: 0, markCompacts: 0, scavenges: 0 };
  rows.push(row);
  for (const line of text.split('\n')) {
    const phase = /^\[phase\] (.*)$/.exec(line);
    if (phase) {
      rows.push((row = { phase: phase[1]!, maxBefore: 0, maxLive: 0, markCompacts: 0, scavenges: 0 }));
      continue;
    }
    const gc = /(Mark-Compact|Scavenge|Mark-sweep)[^:]*?\s([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/.exec(line);
    if (!gc) continue;
    if (gc[1] === 'Scavenge') row.scavenges++;
    else {
      row.markCompacts++;
      row.maxLive = Math.max(row.maxLive, Number(gc[4]));
    }
    row.maxBefore = Math.max(row.maxBefore, Number(gc[2]));
  }
  return [
    '| phase | mark-compacts | scavenges | max heap before GC MB | max live heap after mark-compact MB |',
    '|---|---:|---:|---:|---:|',
    ...rows.filter((r) => r.markCompacts + r.scavenges > 0).map((r) => `| ${r.phase} | ${r.markCompacts} | ${r.scavenges} | ${r.maxBefore.toFixed(0)} | ${r.maxLive.toFixed(0)} |`),
  ].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      db: { type: 'string' },
      reuse: { type: 'boolean', default: false },
      top: { type: 'string', default: '20' },
      'phases-out': { type: 'string' },
      'mark-phases': { type: 'boolean', default: false },
      'gc-log': { type: 'string' },
      pragma: { type: 'string', multiple: true },
    },
  });
  if (values['gc-log']) {
    process.stdout.write(`${summarizeGcLog(readFileSync(values['gc-log'], 'utf8'))}\n`);
    return;
  }
  if (positionals.length !== 1 || !values.db) {
    process.stderr.write(
      'Usage: node [--cpu-prof] [--trace-gc] --import tsx bench/import-phases.ts FILE --db PATH [--reuse] [--top 20]\n' +
        '       [--phases-out FILE.json] [--mark-phases]\n' +
        '  --mark-phases prints "[phase] NAME" lines on stdout, between the --trace-gc lines; save that\n' +
        '  stdout and read it back with: import-phases.ts --gc-log STDOUT_FILE (heap per phase).\n' +
        '  Experiments (not what the CLI does): --pragma "mmap_size = 0" (repeatable) runs PRAGMAs on the\n' +
        '  store connection first (cache_size is set by the import itself and restored after it).\n' +
        '  --reuse keeps the database (profiles a re-import); --phases-out writes the phase windows for\n' +
        '  cpu-profile-summary.ts --phases-file, which then splits the CPU profile by phase.\n',
    );
    process.exitCode = 1;
    return;
  }
  const report = await profileImport(resolve(positionals[0]!), resolve(values.db), {
    fresh: !values.reuse,
    markPhases: values['mark-phases'],
    pragmas: values.pragma ?? [],
  });
  process.stdout.write(`${formatPhaseReport(report, Number(values.top))}\n`);
  if (values['phases-out']) {
    const windows = report.phases.map(({ name, fromUs, toUs }) => ({ name, fromUs, toUs }));
    writeFileSync(values['phases-out'], `${JSON.stringify(windows, null, 2)}\n`);
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`import-phases: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
