// Import benchmark: generates data sets of several sizes, imports each with the built CLI, and reports time, throughput and peak RSS.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatProfileSummary, IMPORT_PHASES, summarizeProfileFile } from './cpu-profile-summary.js';
import { generateData, parseSize } from './generate-data.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'main.js');
const TIME = '/usr/bin/time';

/**
 * Preloaded into the child (`--import data:…`): samples memory every 250 ms and, on exit, writes the
 * peaks and the child's own getrusage maxRSS to $BENCH_PROBE_OUT. Works where /usr/bin/time is missing.
 * After the file is read, the import runs on microtasks only (synchronous SQLite behind promises),
 * so timers stop firing and the timeline has a gap there: take peaks from maxRSS, not the samples.
 */
const PROBE_SOURCE = `
import { writeFileSync } from 'node:fs';
const out = process.env.BENCH_PROBE_OUT;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const peak = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
const timeline = [];
const sample = () => {
  const m = process.memoryUsage();
  for (const k of Object.keys(peak)) if (m[k] > peak[k]) peak[k] = m[k];
  timeline.push([Math.round(performance.now() - t0), Math.round(m.rss / 1048576), Math.round(m.heapUsed / 1048576), Math.round(m.external / 1048576)]);
};
setInterval(sample, 250).unref();
process.on('exit', () => {
  sample();
  const cpu = process.cpuUsage(cpu0);
  if (out) writeFileSync(out, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, cpuSeconds: (cpu.user + cpu.system) / 1e6, peak, timeline }));
});
`;
const PROBE = `data:text/javascript,${encodeURIComponent(PROBE_SOURCE)}`;

export interface RunResult {
  seconds: number;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set of the child, in KiB: /usr/bin/time %M when present, else the probe's getrusage. */
  peakRssKb: number;
  /** User + system CPU seconds of the child (robust to a busy machine, unlike wall time). */
  cpuSeconds: number;
  rssSource: 'time' | 'probe';
  probe?: { maxRssKb: number; cpuSeconds: number; peak: Record<string, number>; timeline: [number, number, number, number][] };
}

/** Runs `node [nodeFlags] dist/main.js args…` and measures wall time and peak RSS. */
export async function runCli(args: readonly string[], nodeFlags: readonly string[], scratch: string): Promise<RunResult> {
  const timeFile = `${scratch}.time`;
  const probeFile = `${scratch}.probe.json`;
  await rm(timeFile, { force: true });
  await rm(probeFile, { force: true });
  const nodeArgs = [...nodeFlags, '--import', PROBE, CLI, ...args];
  const useTime = existsSync(TIME);
  const [command, argv] = useTime ? [TIME, ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const started = performance.now();
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, BENCH_PROBE_OUT: probeFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exitCode = await new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done(code));
  });
  const seconds = (performance.now() - started) / 1000;
  const probe = existsSync(probeFile) ? (JSON.parse(await readFile(probeFile, 'utf8')) as RunResult['probe']) : undefined;
  let peakRssKb = probe?.maxRssKb ?? 0;
  let cpuSeconds = probe?.cpuSeconds ?? 0;
  let rssSource: RunResult['rssSource'] = 'probe';
  if (useTime && existsSync(timeFile)) {
    // The file may carry "Command exited with non-zero status N" before the figures.
    const lines = (await readFile(timeFile, 'utf8')).trim().split('\n');
    const [kb, user, system] = lines[lines.length - 1]!.split(' ').map(Number) as [number, number, number];
    if (Number.isFinite(kb) && kb > 0) {
      peakRssKb = kb;
      cpuSeconds = user + system;
      rssSource = 'time';
    }
  }
  const result: RunResult = { seconds, exitCode, stdout, stderr, peakRssKb, cpuSeconds, rssSource };
  if (probe) result.probe = probe;
  return result;
}

interface ImportLine {
  read: { threats: number; feeds: number; indicators: number; links: number };
  changed: { threats: number; feeds: number; indicators: number; links: number };
}

/** Parses the CLI's `imported FILE: read … ; changed …` line. */
function parseImportLine(stdout: string): ImportLine | undefined {
  const match = /read (\d+) threats, (\d+) feeds, (\d+) indicators, (\d+) links; changed (\d+) threats, (\d+) feeds, (\d+) indicators, (\d+) links/.exec(stdout);
  if (!match) return undefined;
  const n = match.slice(1).map(Number) as [number, number, number, number, number, number, number, number];
  return {
    read: { threats: n[0], feeds: n[1], indicators: n[2], links: n[3] },
    changed: { threats: n[4], feeds: n[5], indicators: n[6], links: n[7] },
  };
}

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

/** Runs `npm run build` when dist/main.js is missing or older than a file under src/. */
async function ensureBuilt(): Promise<void> {
  const built = existsSync(CLI) ? statSync(CLI).mtimeMs : 0;
  // tsc only rewrites changed outputs, so compare against the newest file under dist/ as well.
  const distNewest = existsSync(join(ROOT, 'dist')) ? await newestJs(join(ROOT, 'dist')) : 0;
  if (built > 0 && Math.max(built, distNewest) >= (await newestMtime(join(ROOT, 'src')))) return;
  process.stderr.write('dist/ is stale: npm run build\n');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

async function newestJs(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.js')) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

async function removeDb(db: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${db}${suffix}`, { force: true });
}

async function dbBytes(db: string): Promise<number> {
  let total = 0;
  for (const suffix of ['', '-wal']) total += await stat(`${db}${suffix}`).then((s) => s.size, () => 0);
  return total;
}

export interface SizeResult {
  size: number;
  fileMB: number;
  records: number;
  importSeconds: number;
  importCpuSeconds: number;
  recordsPerSecond: number;
  peakRssMB: number;
  reimportSeconds: number;
  reimportCpuSeconds: number;
  reimportRssMB: number;
  reimportChangedNothing: boolean;
  dbMB: number;
  rssSource: string;
  heapPeakMB?: number;
  externalPeakMB?: number;
  profile?: string;
  /** How many runs the figures are the median of. */
  runs?: number;
  /** The small imports into the store just imported (see smallImports). */
  small?: SmallImportResult[];
}

export interface SmallImportResult {
  fid: number;
  /** The feed's links before the import. */
  feedLinks: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
}

export interface BenchOptions {
  sizes: number[];
  outDir: string;
  seed: number;
  build: boolean;
  cpuProf: boolean;
  keepDb: boolean;
  timeline: boolean;
  /** Imports (and re-imports) per size; the table shows medians. */
  runs: number;
}

const MB = 1024 * 1024;

function fail(what: string, run: RunResult): never {
  throw new Error(`${what} failed (exit ${run.exitCode}):\n${run.stderr.trim() || run.stdout.trim()}`);
}

/** Each numeric field is the median of the runs (the middle one of three); flags hold if they held every time. */
export function medianResult(runs: readonly SizeResult[]): SizeResult {
  const first = runs[0]!;
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  };
  const out: Record<string, unknown> = { ...first, runs: runs.length };
  for (const [key, value] of Object.entries(first)) {
    if (typeof value === 'number' && key !== 'size' && key !== 'records') out[key] = median(runs.map((r) => r[key as keyof SizeResult] as number));
  }
  out.reimportChangedNothing = runs.every((r) => r.reimportChangedNothing);
  if (first.small) {
    out.small = first.small.map((s, i) => ({
      ...s,
      seconds: median(runs.map((r) => r.small![i]!.seconds)),
      cpuSeconds: median(runs.map((r) => r.small![i]!.cpuSeconds)),
      peakRssMB: median(runs.map((r) => r.small![i]!.peakRssMB)),
    }));
  }
  return out as unknown as SizeResult;
}

export async function benchImport(options: BenchOptions, log: (line: string) => void): Promise<SizeResult[]> {
  if (options.build) await ensureBuilt();
  await mkdir(options.outDir, { recursive: true });
  const results: SizeResult[] = [];
  for (const size of options.sizes) {
    const runs: SizeResult[] = [];
    for (let run = 1; run <= options.runs; run++) {
      if (options.runs > 1) log(`run ${run} of ${options.runs} at ${size} indicators`);
      runs.push(await benchSize(size, options, log));
    }
    results.push(medianResult(runs));
  }
  return results;
}

async function benchSize(size: number, options: BenchOptions, log: (line: string) => void): Promise<SizeResult> {
  {
    const file = join(options.outDir, `data-${size}.ndjson`);
    if (!existsSync(file)) {
      log(`generating ${relative(ROOT, file)} …`);
      const generated = await generateData(file, { indicators: size, seed: options.seed });
      log(`  ${(generated.bytes / 1e6).toFixed(1)} MB, ${generated.records} records in ${generated.seconds.toFixed(1)} s`);
    }
    const fileMB = statSync(file).size / 1e6;
    const db = join(options.outDir, `import-${size}.sqlite`);
    await removeDb(db);
    const args = ['import', file, '--db', db];
    const scratch = join(options.outDir, `run-${size}`);

    const profileDir = join(options.outDir, 'profiles');
    const profileName = `import-${size}.cpuprofile`;
    const flags = options.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', profileName] : [];
    log(`importing ${size} indicators${options.cpuProf ? ' (with --cpu-prof)' : ''} …`);
    const first = await runCli(args, flags, scratch);
    const firstLine = parseImportLine(first.stdout);
    if (first.exitCode !== 0 || !firstLine) fail(`import of ${file}`, first);
    const records = firstLine.read.threats + firstLine.read.feeds + firstLine.read.indicators + firstLine.read.links;
    const dbMB = (await dbBytes(db)) / 1e6;
    log(`  ${first.seconds.toFixed(1)} s (CPU ${first.cpuSeconds.toFixed(1)} s), peak RSS ${(first.peakRssKb / 1024).toFixed(0)} MB: ${first.stdout.trim()}`);
    if (options.timeline && first.probe) {
      log(`  memory timeline (ms, rss MB, heapUsed MB, external MB): ${first.probe.timeline.filter((_, i, all) => i % Math.max(1, Math.round(all.length / 40)) === 0).map((t) => t.join('/')).join(' ')}`);
    }

    log(`re-importing ${size} indicators …`);
    const second = await runCli(args, [], scratch);
    const secondLine = parseImportLine(second.stdout);
    if (second.exitCode !== 0 || !secondLine) fail(`re-import of ${file}`, second);
    const changedNothing = Object.values(secondLine.changed).every((n) => n === 0);
    log(`  ${second.seconds.toFixed(1)} s (CPU ${second.cpuSeconds.toFixed(1)} s), peak RSS ${(second.peakRssKb / 1024).toFixed(0)} MB: ${second.stdout.trim()}${changedNothing ? '' : '  <-- re-import CHANGED DATA'}`);

    const result: SizeResult = {
      size,
      fileMB,
      records,
      importSeconds: first.seconds,
      importCpuSeconds: first.cpuSeconds,
      recordsPerSecond: records / first.seconds,
      peakRssMB: first.peakRssKb / 1024,
      reimportSeconds: second.seconds,
      reimportCpuSeconds: second.cpuSeconds,
      reimportRssMB: second.peakRssKb / 1024,
      reimportChangedNothing: changedNothing,
      dbMB,
      rssSource: first.rssSource,
    };
    if (first.probe) {
      result.heapPeakMB = first.probe.peak.heapUsed! / MB;
      result.externalPeakMB = first.probe.peak.external! / MB;
    }
    result.small = await smallImports(db, size, options, scratch, log);
    if (options.cpuProf) {
      result.profile = join(profileDir, profileName);
      log(`\nCPU profile of the ${size} import (${relative(ROOT, result.profile)}):\n`);
      log(formatProfileSummary(await summarizeProfileFile(result.profile, 25, IMPORT_PHASES)));
      log('');
    }
    if (!options.keepDb) await removeDb(db);
    return result;
  }
}

/** New links per small import: an hourly pull that finds ten values other feeds already list. */
const SMALL_LINKS = 10;

/**
 * Imports of ten new links into one feed of the store just imported, timed end to end with the CLI:
 * once into its biggest feed and once into a feed of median size. The ten indicators are spread
 * over the iid range (the first one at or after k/10 of the largest iid that the feed does not
 * hold yet), so nearly all of the feed's page ranks move: the costly case. The indicators are
 * picked by reading the store directly (better-sqlite3, read-only), before the CLI runs.
 */
async function smallImports(db: string, size: number, options: BenchOptions, scratch: string, log: (line: string) => void): Promise<SmallImportResult[]> {
  const results: SmallImportResult[] = [];
  const store = new Database(db, { readonly: true });
  let cases: { fid: number; feedLinks: number; iids: number[] }[];
  try {
    const feeds = store.prepare('select fid, count(*) as n from feed_links group by fid order by n desc, fid').all() as { fid: number; n: number }[];
    const { last } = store.prepare('select max(iid) as last from indicators').get() as { last: number };
    const next = store.prepare('select iid from indicators i where iid >= ? and not exists (select 1 from feed_links l where l.fid = ? and l.iid = i.iid) order by iid limit 1');
    cases = [feeds[0]!, feeds[Math.floor(feeds.length / 2)]!].map(({ fid, n }) => {
      const iids = new Set<number>();
      for (let k = 0; iids.size < SMALL_LINKS && k < SMALL_LINKS * 4; k++) {
        const row = next.get(Math.floor((last * (k % SMALL_LINKS)) / SMALL_LINKS) + Math.floor(k / SMALL_LINKS), fid) as { iid: number } | undefined;
        if (row && !iids.has(row.iid)) iids.add(row.iid);
      }
      return { fid, feedLinks: n, iids: [...iids] };
    });
  } finally {
    store.close();
  }
  for (const { fid, feedLinks, iids } of cases) {
    const file = join(options.outDir, `links-${size}-fid${fid}.ndjson`);
    await writeFile(file, iids.map((iid) => `${JSON.stringify({ record: 'link', iid, fid, stamp_linked: '2030-01-01 00:00:00' })}\n`).join(''));
    log(`importing ${iids.length} new links into feed ${fid} (${feedLinks.toLocaleString('en-US')} links) …`);
    const run = await runCli(['import', file, '--db', db], [], scratch);
    const line = parseImportLine(run.stdout);
    if (run.exitCode !== 0 || !line) fail(`import of ${file}`, run);
    if (line.changed.links !== iids.length) throw new Error(`import of ${file} changed ${line.changed.links} links, not ${iids.length}`);
    log(`  ${run.seconds.toFixed(2)} s (CPU ${run.cpuSeconds.toFixed(2)} s), peak RSS ${(run.peakRssKb / 1024).toFixed(0)} MB: ${run.stdout.trim()}`);
    results.push({ fid, feedLinks, seconds: run.seconds, cpuSeconds: run.cpuSeconds, peakRssMB: run.peakRssKb / 1024 });
  }
  return results;
}

export function formatSmallImports(results: readonly SizeResult[]): string {
  const header =
    `| size | runs | feed | its links | ${SMALL_LINKS} new links s | CPU s | peak RSS MB |\n` + '|---:|---:|---:|---:|---:|---:|---:|';
  const lines = results.flatMap((r) =>
    (r.small ?? []).map((s) =>
      [r.size.toLocaleString('en-US'), String(r.runs ?? 1), String(s.fid), s.feedLinks.toLocaleString('en-US'), s.seconds.toFixed(2), s.cpuSeconds.toFixed(2), s.peakRssMB.toFixed(0)].join(' | '),
    ),
  );
  return [header, ...lines.map((l) => `| ${l} |`)].join('\n');
}

export function formatTable(results: readonly SizeResult[], profiled: boolean): string {
  const header =
    '| size | runs | file MB | records | import s | records/s | peak RSS MB | re-import s | import CPU s | re-import CPU s | re-import RSS MB | re-import unchanged | DB MB |\n' +
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|';
  const lines = results.map((r) =>
    [
      r.size.toLocaleString('en-US'),
      String(r.runs ?? 1),
      r.fileMB.toFixed(1),
      r.records.toLocaleString('en-US'),
      r.importSeconds.toFixed(1),
      Math.round(r.recordsPerSecond).toLocaleString('en-US'),
      r.peakRssMB.toFixed(0),
      r.reimportSeconds.toFixed(1),
      r.importCpuSeconds.toFixed(1),
      r.reimportCpuSeconds.toFixed(1),
      r.reimportRssMB.toFixed(0),
      r.reimportChangedNothing ? 'yes' : 'NO',
      r.dbMB.toFixed(0),
    ].join(' | '),
  );
  const notes = [
    `peak RSS: ${results[0]?.rssSource === 'time' ? '/usr/bin/time %M' : 'getrusage maxRSS in the child'}; CPU = user + system of the child; ` +
      `load average when the table was printed: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs.`,
  ];
  if (profiled) notes.push('first-import times include --cpu-prof overhead.');
  return [header, ...lines.map((l) => `| ${l} |`), '', ...notes].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      sizes: { type: 'string', default: '10000,100000,1000000' },
      runs: { type: 'string', default: '3' },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      seed: { type: 'string', default: '1' },
      'no-build': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'keep-db': { type: 'boolean', default: false },
      timeline: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(
      'Usage: node --import tsx bench/import-bench.ts [--sizes 10000,100000,1000000] [--runs 3] [--out-dir bench/out] [--seed 1]\n' +
        '       [--no-build] [--cpu-prof] [--keep-db] [--timeline]\n',
    );
    return;
  }
  const options: BenchOptions = {
    sizes: values.sizes.split(',').map((s) => parseSize(s.trim())),
    outDir: resolve(values['out-dir']),
    seed: Number(values.seed),
    build: !values['no-build'],
    cpuProf: values['cpu-prof'],
    keepDb: values['keep-db'],
    timeline: values.timeline,
    runs: Math.max(1, Number(values.runs)),
  };
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const results = await benchImport(options, log);
  const table = formatTable(results, options.cpuProf);
  await writeFile(join(options.outDir, 'import-bench-results.json'), `${JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2)}\n`);
  process.stdout.write(`\n${table}\n\nSmall imports into the imported store, end to end:\n\n${formatSmallImports(results)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`import-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
