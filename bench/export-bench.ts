// The firewall exports (docs/exports.md): the built server sends the 1M-line list of a 1M-indicator store,
// as text and CSV, plain and gzipped; wall time to the last byte, the server's CPU and added RSS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGunzip } from 'node:zlib';
import { generateData } from './generate-data.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'dist', 'main.js');
/** The default config's unfiltered collection: every indicator. */
const COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
const log = (line: string) => process.stderr.write(`${line}\n`);

const USAGE = `Usage: node --import tsx bench/export-bench.ts [--indicators 1m] [--db FILE] [--runs 3] [--out-dir bench/out] [--no-build]
  --db: an SQLite store to serve (default: OUT_DIR/export-N.sqlite, generated and imported when missing)`;

interface Options {
  indicators: number;
  db: string | undefined;
  runs: number;
  outDir: string;
  build: boolean;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      indicators: { type: 'string', default: '1m' },
      db: { type: 'string' },
      runs: { type: 'string', default: '3' },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      'no-build': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const size = /^(\d+)(k|m)?$/i.exec(values.indicators);
  if (!size) throw new Error(`--indicators: "${values.indicators}" is not a count such as 100000, 100k or 1m`);
  const indicators = Number(size[1]) * (size[2]?.toLowerCase() === 'm' ? 1_000_000 : size[2] ? 1000 : 1);
  return { indicators, db: values.db, runs: Number(values.runs), outDir: resolve(values['out-dir']), build: !values['no-build'] };
}

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.status !== 0) throw new Error(`threatgate ${args[0]} failed: ${result.stderr}`);
  return result.stdout;
}

/** The store to serve: --db, or one made from generated data with the built CLI. */
async function prepareStore(options: Options): Promise<string> {
  if (options.db) return options.db;
  mkdirSync(options.outDir, { recursive: true });
  const db = join(options.outDir, `export-${options.indicators}.sqlite`);
  if (existsSync(db)) return db;
  const data = join(options.outDir, `data-${options.indicators}.ndjson`);
  if (!existsSync(data)) {
    log(`generating ${options.indicators} indicators into ${data} …`);
    await generateData(data, { indicators: options.indicators, seed: 1 });
  }
  log(`importing into ${db} …`);
  cli(['import', data, '--db', db]);
  return db;
}

/** VmRSS or VmHWM of a process, in KB. */
function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : NaN;
}

/** User + system CPU seconds of a process (/proc/PID/stat, clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

interface Pull {
  status: number;
  seconds: number;
  bytes: number;
  lines: number;
  etag: string | undefined;
}

/** One GET, its body counted as it comes (gunzipped when gzip), never held. */
function pull(base: string, path: string, key: string, headers: Record<string, string> = {}): Promise<Pull> {
  const started = process.hrtime.bigint();
  return new Promise((done, fail) => {
    const auth = `Basic ${Buffer.from(`taxii2:${key}`).toString('base64')}`;
    const req = request(`${base}${path}`, { headers: { Authorization: auth, ...headers } }, (res) => {
      let bytes = 0;
      let lines = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
      body.on('data', (chunk: Buffer) => {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      body.on('end', () => done({ status: res.statusCode ?? 0, seconds: Number(process.hrtime.bigint() - started) / 1e9, bytes, lines, etag: res.headers.etag }));
      body.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

function startServer(db: string, configFile: string): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--workers', '1', '--no-pull', '--db', db, '--config', configFile], { env: { ...process.env, LOG_LEVEL: 'warn' } });
  return new Promise((done, fail) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (match) done({ child, base: match[1]! });
    });
    child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    child.once('exit', (code) => fail(new Error(`the server exited (${code}) before it listened`)));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (!options) return void process.stdout.write(`${USAGE}\n`);
  if (options.build) spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  const db = await prepareStore(options);
  const key = cli(['keys', 'create', '--plan', 'pro', '--label', 'export-bench', '--db', db]).trim();
  // Limits out of the way: the bench measures the list, not the 429.
  const configFile = join(options.outDir, 'export-bench-config.json');
  writeFileSync(configFile, JSON.stringify({ plans: { pro: { perSecond: 100000, perDay: 10000000, perMonth: 100000000 } } }));
  const { child, base } = await startServer(db, configFile);
  const pid = child.pid!;
  try {
    // Warm: the route's code loaded and compiled, the store's pages in the OS cache.
    await pull(base, `/export/${COLLECTION}.txt?type=sha512`, key);
    await pull(base, `/export/${COLLECTION}.txt`, key);
    log(`server pid ${pid}, ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the start`);
    const rows: string[] = [];
    for (const [name, format, gzip] of [['text', 'txt', false], ['text, gzip', 'txt', true], ['CSV', 'csv', false], ['CSV, gzip', 'csv', true]] as const) {
      const runs: { seconds: number; cpu: number; addedMb: number; pull: Pull }[] = [];
      for (let run = 0; run < options.runs; run++) {
        const baseline = memoryKb(pid, 'VmRSS');
        // Resets the process's peak RSS (VmHWM) to its current RSS (proc(5), clear_refs).
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        const cpuBefore = cpuSeconds(pid);
        const result = await pull(base, `/export/${COLLECTION}.${format}`, key, gzip ? { 'Accept-Encoding': 'gzip' } : {});
        if (result.status !== 200) throw new Error(`${name}: status ${result.status}`);
        runs.push({ seconds: result.seconds, cpu: cpuSeconds(pid) - cpuBefore, addedMb: (memoryKb(pid, 'VmHWM') - baseline) / 1024, pull: result });
        log(`${name}: ${result.seconds.toFixed(2)} s, server CPU ${runs.at(-1)!.cpu.toFixed(2)} s, +${runs.at(-1)!.addedMb.toFixed(1)} MB RSS, ${result.lines} lines, ${(result.bytes / 1e6).toFixed(1)} MB sent`);
      }
      const last = runs.at(-1)!.pull;
      rows.push(`| ${name} | ${last.lines.toLocaleString('en-US')} | ${(last.bytes / 1e6).toFixed(1)} | ${median(runs.map((r) => r.seconds)).toFixed(2)} | ${runs.map((r) => r.seconds.toFixed(2)).join(', ')} | ${median(runs.map((r) => r.cpu)).toFixed(2)} | ${Math.max(...runs.map((r) => r.addedMb)).toFixed(1)} |`);
    }
    const first = await pull(base, `/export/${COLLECTION}.txt`, key);
    const notModified = await pull(base, `/export/${COLLECTION}.txt`, key, { 'If-None-Match': first.etag ?? '' });
    log(`304: status ${notModified.status} in ${(notModified.seconds * 1000).toFixed(1)} ms`);
    process.stdout.write(
      [
        `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end; RSS of the server (pid ${pid}, one worker) before the first list ${(memoryKb(pid, 'VmRSS') / 1024).toFixed(0)} MB now`,
        '',
        `| list | lines | MB sent | wall s (median of ${options.runs}) | runs s | server CPU s | added RSS MB (max) |`,
        '|---|---:|---:|---:|---|---:|---:|',
        ...rows,
        '',
        `304 with the list's ETag: ${(notModified.seconds * 1000).toFixed(1)} ms (status ${notModified.status})`,
        '',
      ].join('\n'),
    );
  } finally {
    child.kill('SIGTERM');
  }
}

await main(process.argv.slice(2));
