// The HTTP benchmark's report: markdown tables per size and for scaling, and the facts of the run for the JSON results.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { ScenarioResult, SizeResult } from './bench-size.js';
import { CLI, ms, num, ROOT, type Options } from './common.js';
import { ratio, type Figures } from './measure.js';
import type { CoreLayout } from './processes.js';

/** threatgate ÷ bare below this is bold in the table. */
const BARE_RATIO_TARGET = 0.5;

interface Column {
  head: string;
  align: '---' | '---:';
  cell: (s: ScenarioResult) => string;
}

function figuresNote(f: Figures | undefined): string {
  return f && f.errors > 0 ? ` (${f.errors} errors)` : '';
}

function ratioCell(a: Figures | undefined, b: Figures | undefined, target: number | null): string {
  if (!a || !b) return '–';
  const r = ratio(a, b);
  if (r === null) return 'n/a (no request completed)';
  const text = `${r.toFixed(2)}x`;
  return target !== null && r < target ? `**${text}**` : text;
}

/** req/s (with the error count, if any), then p50 and p99 unless `rpsOnly`. */
function figureColumns(name: string, pick: (s: ScenarioResult) => Figures | undefined, rpsOnly = false): Column[] {
  const cell = (show: (f: Figures) => string) => (s: ScenarioResult) => {
    const f = pick(s);
    return f ? show(f) : '–';
  };
  const rps: Column = { head: `${name} req/s`, align: '---:', cell: cell((f) => num(f.rps) + figuresNote(f)) };
  if (rpsOnly) return [rps];
  return [rps, { head: 'p50 ms', align: '---:', cell: cell((f) => ms(f.p50Ms)) }, { head: 'p99 ms', align: '---:', cell: cell((f) => ms(f.p99Ms)) }];
}

function ratioColumn(head: string, a: (s: ScenarioResult) => Figures | undefined, b: (s: ScenarioResult) => Figures | undefined, target: number | null = null): Column {
  return { head, align: '---:', cell: (s) => ratioCell(a(s), b(s), target) };
}

export function formatSizeTable(result: SizeResult): string {
  const withExpress = result.scenarios.some((s) => s.express);
  const withLeast = result.scenarios.some((s) => s.least);
  const [tg, bare, express, least, medallion] = [
    (s: ScenarioResult) => s.threatgate,
    (s: ScenarioResult) => s.bare,
    (s: ScenarioResult) => s.express,
    (s: ScenarioResult) => s.least,
    (s: ScenarioResult) => s.medallion,
  ];
  const columns: Column[] = [
    { head: 'scenario', align: '---', cell: (s) => s.id },
    ...figureColumns('threatgate', tg),
    ...figureColumns('bare', bare),
    ...(withExpress ? figureColumns('express', express) : []),
    ...(withLeast ? figureColumns('least work', least) : []),
    ratioColumn('tg ÷ bare', tg, bare, BARE_RATIO_TARGET),
    ...(withExpress ? [ratioColumn('tg ÷ express', tg, express), ratioColumn('express ÷ bare', express, bare)] : []),
    ...(withLeast ? [ratioColumn('tg ÷ least', tg, least), ratioColumn('least ÷ bare', least, bare)] : []),
    ...figureColumns('medallion', medallion, true),
    ratioColumn('tg ÷ medallion', tg, medallion),
  ];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const head = [line(columns.map((c) => c.head)), `|${columns.map((c) => c.align).join('|')}|`];
  const rows = result.scenarios.map((s) => line(columns.map((c) => c.cell(s))));
  const rss = result.rssMB;
  const notes = [
    `threatgate RSS ${rss.threatgateBefore.toFixed(0)} MB before the runs, ${rss.threatgateAfter.toFixed(0)} MB after (${rss.threatgateProcesses} process${rss.threatgateProcesses === 1 ? '' : 'es'}, summed); ` +
      `bare server ${rss.bare?.toFixed(0)} MB${rss.express !== undefined ? `; express floor ${rss.express.toFixed(0)} MB` : ''}${rss.least !== undefined ? `; least-work server ${rss.least.toFixed(0)} MB` : ''}${rss.medallion !== undefined ? `; medallion ${rss.medallion.toFixed(0)} MB` : ''}.`,
    `tg ÷ bare is threatgate's req/s over the bare node:http replay's (target ≥ ${BARE_RATIO_TARGET}x, bold when missed).`,
  ];
  if (withExpress) notes.push("express: the same replies through a bare Express 5 app (one handler, no middleware), the floor of any design on Express; tg ÷ express is what threatgate's stack costs above it.");
  if (withLeast)
    notes.push(
      'least work: the same replies from node:http with the key found, its three windows counted and their values written anew, and a JSON log line per request (bench/bare-server.ts --least-work), the least any server giving these answers does; tg ÷ least is what the rest of threatgate costs.',
    );
  if (result.medallion?.skipped) notes.push(`medallion not measured: ${result.medallion.skipped}`);
  else if (result.medallion) notes.push(`medallion holds the first ${result.medallion.objects} objects of the collection.`);
  for (const s of result.scenarios) if (s.note) notes.push(`${s.id}: ${s.note}.`);
  return [`### ${result.size.toLocaleString('en-US')} indicators`, '', ...head, ...rows, '', ...notes.map((n) => `- ${n}`)].join('\n');
}

export function formatScaling(results: readonly SizeResult[]): string {
  const find = (r: SizeResult, id: string) => r.scenarios.find((s) => s.id === id)?.threatgate;
  const cell = (f: Figures | undefined) => (f ? ms(f.p99Ms) : '–');
  const head = '| size | objects (limit 100) p99 ms | links page 0 p99 ms | deep links page p99 ms | threatgate RSS after, MB |\n|---:|---:|---:|---:|---:|';
  const rows = results.map(
    (r) => `| ${r.size.toLocaleString('en-US')} | ${cell(find(r, 'taxii-objects'))} | ${cell(find(r, 'links-first'))} | ${cell(find(r, 'links-deep'))} | ${r.rssMB.threatgateAfter.toFixed(0)} (${r.rssMB.threatgateProcesses} proc.) |`,
  );
  return ['### Scaling', '', head, ...rows].join('\n');
}

function gitFacts(): { commit: string; dirty: boolean } {
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() || 'unknown';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return { commit, dirty };
}

/** The installed express's version, which the Express floor runs on. */
function expressVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'express', 'package.json'), 'utf8')) as { version: string }).version;
}

export function runFacts(options: Options, layout: CoreLayout) {
  return {
    date: new Date().toISOString(),
    ...gitFacts(),
    // dist/ may lag the commit (--no-build): what was measured is what dist/ held.
    distBuiltAt: statSync(CLI).mtime.toISOString(),
    node: process.version,
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    pinning: layout.note,
    wrk: { threads: 1, connections: options.connections, durationSeconds: options.duration, rounds: options.rounds, warmupSeconds: options.warmup },
    workers: options.workers,
    responseCache: options.responseCache,
    expressFloor: options.expressFloor ? { express: expressVersion() } : false,
    leastWork: options.leastWork,
  };
}
