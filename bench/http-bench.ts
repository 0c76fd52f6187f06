// HTTP benchmark: threatgate's lookup API and TAXII gateway under wrk, against a bare node:http replay of the same bytes and medallion.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { PER_CONNECTION_HEADERS, type RecordedResponse } from './bare-server.js';
import { formatProfileSummary, readProfile, summarizeProfile } from './cpu-profile-summary.js';
import { generateData, parseSize } from './generate-data.js';
import { runCli } from './import-bench.js';
import { ensureVenv, gunicornArgs, MEDALLION_GAPS, medallionPaths, writeMedallionFiles, type StixManifestEntry } from './medallion/medallion-server.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'main.js');
const BARE_SERVER = join(ROOT, 'bench', 'bare-server.ts');
const BENCH_CONFIG = join(ROOT, 'bench', 'bench-config.json');
const COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
const OBJECTS = `/taxii2/api/collections/${COLLECTION}/objects/`;
const MANIFEST = `/taxii2/api/collections/${COLLECTION}/manifest/`;
const TAXII_MEDIA_TYPE = 'application/taxii+json;version=2.1';
/** How deep the deep objects page starts: the walk follows `next` (limit=1000) past this many objects. */
const DEEP_OBJECTS = 5000;
/** The tail poll's `added_after` leaves this many objects after it, like a poller that is nearly up to date. */
const TAIL_OBJECTS = 30;
/** STIX objects loaded into medallion ("a few hundred"): its memory backend filters in O(n²). */
const MEDALLION_OBJECTS = 300;
const WRK_TIMEOUT = '30s';

// ---------------------------------------------------------------------------------------------
// Options.
// ---------------------------------------------------------------------------------------------

interface Options {
  sizes: number[];
  duration: number;
  rounds: number;
  warmup: number;
  connections: number;
  workers: number;
  scenarios: string[] | null;
  medallion: boolean;
  build: boolean;
  responseCache: boolean;
  cpuProf: boolean;
  reimport: boolean;
  outDir: string;
}

const USAGE = `Usage: npm run bench -- [options]
  --sizes 10k,100k,1m     indicator counts (data and databases are cached in bench/out/)
  --duration 5            seconds per wrk run            --rounds 3    interleaved rounds (medians are reported)
  --warmup 2              seconds of unmeasured load per server and scenario first
  --connections 16        wrk connections (one wrk thread)
  --workers 1             threatgate serve --workers N; the bare server and gunicorn get as many
  --scenarios a,b         only these (ids in the table); --no-medallion skips the reference server
  --no-response-cache     serve with cache.maxEntries 0: no response is served from threatgate's cache
  --cpu-prof              instead of comparing, profile threatgate under wrk, one server run per scenario
  --reimport              import again into bench/out/db-SIZE.sqlite even when it is there (after import changes)
  --no-build              do not run npm run build first
`;

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      sizes: { type: 'string', default: '10k,100k,1m' },
      duration: { type: 'string', default: '5' },
      rounds: { type: 'string', default: '3' },
      warmup: { type: 'string', default: '2' },
      connections: { type: 'string', default: '16' },
      workers: { type: 'string', default: '1' },
      scenarios: { type: 'string' },
      'no-medallion': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'no-response-cache': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      reimport: { type: 'boolean', default: false },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const int = (name: string, text: string, min: number) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer >= ${min}`);
    return n;
  };
  return {
    sizes: values.sizes.split(',').map((s) => parseSize(s.trim())),
    duration: int('duration', values.duration, 1),
    rounds: int('rounds', values.rounds, 1),
    warmup: int('warmup', values.warmup, 0),
    connections: int('connections', values.connections, 1),
    workers: int('workers', values.workers, 1),
    scenarios: values.scenarios ? values.scenarios.split(',').map((s) => s.trim()) : null,
    medallion: !values['no-medallion'],
    build: !values['no-build'],
    responseCache: !values['no-response-cache'],
    cpuProf: values['cpu-prof'],
    reimport: values.reimport,
    outDir: resolve(values['out-dir']),
  };
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const num = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);


// ---------------------------------------------------------------------------------------------
// Child processes: started pinned, waited for, stopped with SIGTERM, never left behind.
// ---------------------------------------------------------------------------------------------

interface Server {
  name: string;
  port: number;
  child: ChildProcess;
  logFile: string;
}

const running = new Set<ChildProcess>();

function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
}

process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    for (const child of running) child.kill('SIGTERM');
    setTimeout(() => process.exit(130), 3000).unref();
  });
}

function hasCommand(command: string, args: string[] = ['--version']): boolean {
  return !spawnSync(command, args, { stdio: 'ignore' }).error;
}

/** Which cores the servers and wrk get: wrk the last core, the servers the others when there are enough. */
interface CoreLayout {
  server: string | null;
  load: string | null;
  note: string;
}

function coreLayout(workers: number): CoreLayout {
  const cores = cpus().length;
  if (!hasCommand('taskset', ['-V']) || cores < 2) return { server: null, load: null, note: 'not pinned (taskset missing or one core)' };
  const load = String(cores - 1);
  if (workers < cores) {
    const server = workers === 1 ? '0' : `0-${workers - 1}`;
    return { server, load, note: `servers on core ${server}, wrk on core ${load}` };
  }
  const server = `0-${cores - 1}`;
  return { server, load, note: `servers on cores ${server}, wrk on core ${load}: wrk shares a core with a server worker` };
}

function pinned(cores: string | null, command: string, args: string[]): [string, string[]] {
  return cores === null ? [command, args] : ['taskset', ['-c', cores, command, ...args]];
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => done(port));
    });
  });
}

async function waitFor(what: string, timeoutMs: number, check: () => Promise<boolean>, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited before it was ready`);
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`${what} was not ready after ${timeoutMs / 1000} s`);
}

interface StartSpec {
  name: string;
  command: string;
  args: string[];
  cores: string | null;
  port: number;
  logFile: string;
  /** Where stdout goes: the log file, or /dev/null for threatgate's one JSON line per request. */
  stdoutToLog: boolean;
  ready: (port: number) => Promise<boolean>;
  env?: NodeJS.ProcessEnv;
}

async function startServer(spec: StartSpec): Promise<Server> {
  const [command, args] = pinned(spec.cores, spec.command, spec.args);
  const logFd = openSync(spec.logFile, 'w');
  const outFd = spec.stdoutToLog ? logFd : openSync('/dev/null', 'w');
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...spec.env }, stdio: ['ignore', outFd, logFd] });
  closeSync(logFd);
  if (outFd !== logFd) closeSync(outFd);
  running.add(child);
  child.once('exit', () => running.delete(child));
  try {
    await waitFor(spec.name, 120_000, () => spec.ready(spec.port), child);
  } catch (error) {
    await stopServer({ name: spec.name, port: spec.port, child, logFile: spec.logFile });
    const tail = readFileSync(spec.logFile, 'utf8').trim().split('\n').slice(-15).join('\n');
    throw new Error(`${(error as Error).message}; log ${relative(ROOT, spec.logFile)}:\n${tail}`);
  }
  return { name: spec.name, port: spec.port, child, logFile: spec.logFile };
}

async function stopServer(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // the process has gone meanwhile
  }
}

/** A process and all its descendants (a cluster primary and its workers, gunicorn's arbiter and workers). */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(`/proc/${name}/stat`);
    // Field 4, after the parenthesised command (which may hold spaces), is the parent pid.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const visit = (at: number) => {
    tree.push(at);
    for (const child of children.get(at) ?? []) visit(child);
  };
  visit(pid);
  return tree;
}

/** Summed VmRSS of a process tree, in MiB, and how many processes it has. */
function treeRssMB(pid: number): { mb: number; processes: number } {
  let kb = 0;
  let processes = 0;
  for (const at of processTree(pid)) {
    const match = /VmRSS:\s+(\d+) kB/.exec(readProc(`/proc/${at}/status`));
    if (match) [kb, processes] = [kb + Number(match[1]), processes + 1];
  }
  return { mb: kb / 1024, processes };
}

/** User + system CPU of a process tree, in clock ticks (fields 14 and 15 of /proc/PID/stat). */
function treeCpuTicks(pid: number): number {
  let ticks = 0;
  for (const at of processTree(pid)) {
    const fields = readProc(`/proc/${at}/stat`).slice(readProc(`/proc/${at}/stat`).lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks;
}

/**
 * Waits until no server uses CPU: a server may still be working off requests that wrk sent
 * before it stopped (medallion takes half a second per objects page), and that work must not
 * land in the next server's measurement, on the same core.
 */
async function quiesce(servers: readonly Server[]): Promise<void> {
  const total = () => servers.reduce((n, s) => n + (s.child.pid ? treeCpuTicks(s.child.pid) : 0), 0);
  const deadline = Date.now() + 120_000;
  let before = total();
  while (Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 250));
    const now = total();
    if (now - before <= 1) return;
    before = now;
  }
  log('  warning: a server was still busy after 120 s');
}

// ---------------------------------------------------------------------------------------------
// HTTP client: raw status, headers and body, as the bare server must replay them.
// ---------------------------------------------------------------------------------------------

interface RawResponse {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

function get(port: number, path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', fail);
    });
    req.setTimeout(120_000, () => req.destroy(new Error(`GET ${path}: timed out`)));
    req.on('error', fail);
    req.end();
  });
}

async function getJson<T>(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; json: T; header: (name: string) => string | undefined }> {
  const res = await get(port, path, headers);
  const header = (name: string) => {
    for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() === name.toLowerCase()) return res.rawHeaders[i + 1];
    return undefined;
  };
  return { status: res.status, json: JSON.parse(res.body.toString('utf8')) as T, header };
}

async function getOk<T>(port: number, path: string, headers: Record<string, string> = {}): Promise<T> {
  const res = await getJson<T>(port, path, headers);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  return res.json;
}

/** Recorded header lines without the ones node:http adds per response. */
function replayableHeaders(rawHeaders: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) if (!PER_CONNECTION_HEADERS.has(rawHeaders[i]!.toLowerCase())) kept.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Data: generated files and imported databases, cached in bench/out/.
// ---------------------------------------------------------------------------------------------

function sizeLabel(size: number): string {
  if (size % 1_000_000 === 0) return `${size / 1_000_000}m`;
  if (size % 1000 === 0) return `${size / 1000}k`;
  return String(size);
}

/** Another process may be writing the file (the generator writes FILE.partial, then renames): wait while it grows. */
async function waitForOtherGenerator(file: string): Promise<void> {
  const partial = `${file}.partial`;
  let lastSize = -1;
  let stalledSince = Date.now();
  while (existsSync(partial) && !existsSync(file)) {
    const size = statSync(partial, { throwIfNoEntry: false })?.size ?? 0;
    if (size !== lastSize) [lastSize, stalledSince] = [size, Date.now()];
    if (Date.now() - stalledSince > 60_000) return; // a dead generator's leftover
    if (lastSize === size) log(`waiting for ${relative(ROOT, partial)} (${(size / 1e6).toFixed(0)} MB so far) …`);
    await new Promise((done) => setTimeout(done, 10_000));
  }
}

async function ensureDataFile(outDir: string, size: number): Promise<string> {
  const file = join(outDir, `data-${sizeLabel(size)}.ndjson`);
  await waitForOtherGenerator(file);
  if (existsSync(file)) return file;
  log(`generating ${relative(ROOT, file)} …`);
  try {
    await generateData(file, { indicators: size, seed: 1 });
  } catch (error) {
    // Two generators of the same file race on the rename; the file is what matters.
    if (!existsSync(file)) throw error;
  }
  return file;
}

/** Imports with the built CLI into a scratch file renamed at the end, so a cached db is always complete. */
async function ensureDb(outDir: string, size: number, dataFile: string, reimport: boolean): Promise<string> {
  const db = join(outDir, `db-${sizeLabel(size)}.sqlite`);
  if (!reimport && existsSync(db) && statSync(db).mtimeMs >= statSync(dataFile).mtimeMs) return db;
  const scratch = join(outDir, `db-${sizeLabel(size)}.importing-${process.pid}.sqlite`);
  log(`importing ${relative(ROOT, dataFile)} into ${relative(ROOT, db)} …`);
  const probe = join(outDir, `import-${sizeLabel(size)}-${process.pid}`);
  const run = await runCli(['import', dataFile, '--db', scratch], [], probe);
  for (const suffix of ['.time', '.probe.json']) await rm(`${probe}${suffix}`, { force: true });
  if (run.exitCode !== 0) throw new Error(`import failed (exit ${run.exitCode}):\n${run.stderr.trim() || run.stdout.trim()}`);
  log(`  ${run.seconds.toFixed(1)} s, peak RSS ${(run.peakRssKb / 1024).toFixed(0)} MB`);
  for (const suffix of ['-wal', '-shm', '']) if (existsSync(`${scratch}${suffix}`)) await rename(`${scratch}${suffix}`, `${db}${suffix}`);
  return db;
}

function createKey(db: string, plan: string): string {
  const result = spawnSync(process.execPath, [CLI, 'keys', 'create', '--plan', plan, '--label', 'http-bench', '--db', db], { cwd: ROOT, encoding: 'utf8' });
  const key = result.stdout.trim();
  if (result.status !== 0 || !/^\S+$/.test(key)) throw new Error(`keys create --plan ${plan} failed: ${result.stderr.trim()}`);
  return key;
}

// ---------------------------------------------------------------------------------------------
// Scenarios, found in the served data.
// ---------------------------------------------------------------------------------------------

interface Scenario {
  id: string;
  path: string;
  headers: Record<string, string>;
  note?: string;
}

interface Feed {
  fid: number;
  feed: string;
  organization: string;
  indicators: { total: number };
}

interface Envelope {
  more?: boolean;
  next?: string;
  objects?: unknown[];
}

async function listFeeds(port: number, key: string): Promise<Feed[]> {
  const feeds: Feed[] = [];
  for (let fid = 1; ; fid++) {
    const res = await getJson<Feed>(port, `/api/feed.php?fid=${fid}&key=${key}`);
    if (res.status === 404) break;
    if (res.status !== 200) throw new Error(`GET feed ${fid}: ${res.status}`);
    feeds.push(res.json);
  }
  if (feeds.length === 0) throw new Error('the store has no feeds');
  return feeds;
}

async function lookupScenarios(port: number, key: string): Promise<Scenario[]> {
  const feeds = await listFeeds(port, key);
  const first = feeds[0]!;
  const biggest = feeds.reduce((a, b) => (b.indicators.total > a.indicators.total ? b : a));
  const links = `/api/feed.php?fid=${biggest.fid}&get=links`;
  const page0 = await getOk<{ results: unknown[]; page_next?: number }>(port, `${links}&page=0&key=${key}`);
  const pages = page0.page_next === undefined ? 1 : Math.ceil(biggest.indicators.total / page0.results.length);
  const deep = Math.max(0, pages - 2);
  const linksNote = `fid ${biggest.fid}, the biggest feed: ${biggest.indicators.total.toLocaleString('en-US')} links, ${pages} page${pages === 1 ? '' : 's'} of ${page0.results.length}`;
  return [
    { id: 'threat', path: `/api/threat.php?tid=1&key=${key}`, headers: {} },
    { id: 'feed', path: `/api/feed.php?feed=${encodeURIComponent(first.feed)}&organization=${encodeURIComponent(first.organization)}&key=${key}`, headers: {} },
    { id: 'links-first', path: `${links}&page=0&key=${key}`, headers: {}, note: linksNote },
    { id: 'links-deep', path: `${links}&page=${deep}&key=${key}`, headers: {}, note: `page ${deep} of ${linksNote}` },
  ];
}

/** Follows `next` with limit=1000 from the start until `depth` objects are passed; the token there. */
async function deepNextToken(port: number, headers: Record<string, string>, depth: number): Promise<{ token: string; passed: number } | null> {
  let passed = 0;
  let token: string | null = null;
  for (let path = `${OBJECTS}?limit=1000`; passed < depth; ) {
    const page = await getOk<Envelope>(port, path, headers);
    if (!page.more || !page.next) break;
    passed += page.objects?.length ?? 0;
    token = page.next;
    path = `${OBJECTS}?limit=1000&next=${encodeURIComponent(token)}`;
  }
  return token === null ? null : { token, passed };
}

/** TAXII timestamps with 6 fractional digits ↔ microseconds since the epoch (below 2^53 until year 2255). */
function toMicros(timestamp: string): number {
  const match = /^(.{19})(?:\.(\d{1,6}))?Z$/.exec(timestamp);
  if (!match) throw new Error(`not a TAXII timestamp: ${timestamp}`);
  return Date.parse(`${match[1]}Z`) * 1000 + Number((match[2] ?? '').padEnd(6, '0'));
}

function fromMicros(us: number): string {
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}Z`;
}

/**
 * An `added_after` that leaves about `tail` objects after it: a bisection over time with the
 * manifest (limit=1000), then the date_added of the object `tail` from the end of that page.
 */
async function tailAddedAfter(port: number, headers: Record<string, string>, tail: number): Promise<{ addedAfter: string; objects: number }> {
  const probe = (us: number) => getOk<{ more?: boolean; objects?: StixManifestEntry[] }>(port, `${MANIFEST}?limit=1000&added_after=${fromMicros(us)}`, headers);
  const first = await getOk<{ objects?: StixManifestEntry[] }>(port, `${MANIFEST}?limit=1`, headers);
  let lo = toMicros(first.objects![0]!.date_added) - 1;
  let hi = Date.now() * 1000 + 1_000_000;
  for (let i = 0; i < 100; i++) {
    const at = i === 0 ? lo : Math.floor((lo + hi) / 2);
    const page = await probe(at);
    const entries = page.objects ?? [];
    if (page.more) lo = at;
    else if (entries.length > tail) return { addedAfter: entries[entries.length - tail - 1]!.date_added, objects: tail };
    else if (i === 0) return { addedAfter: fromMicros(at), objects: entries.length };
    else hi = at;
  }
  throw new Error('could not find the tail of the collection');
}

async function taxiiScenarios(port: number, key: string): Promise<Scenario[]> {
  const headers = { Authorization: `Basic ${Buffer.from(`taxii2:${key}`).toString('base64')}`, Accept: TAXII_MEDIA_TYPE };
  const deep = await deepNextToken(port, headers, DEEP_OBJECTS);
  const tail = await tailAddedAfter(port, headers, TAIL_OBJECTS);
  const scenarios: Scenario[] = [
    { id: 'taxii-discovery', path: '/taxii2/', headers },
    { id: 'taxii-collections', path: '/taxii2/api/collections/', headers },
    { id: 'taxii-objects', path: `${OBJECTS}?limit=100`, headers },
    { id: 'taxii-objects-query', path: `${OBJECTS}?limit=100&key=${key}&accept=application/taxii%2Bjson;version=2.1`, headers: {}, note: 'query-string key and accept' },
  ];
  if (deep) scenarios.push({ id: 'taxii-objects-deep', path: `${OBJECTS}?limit=100&next=${encodeURIComponent(deep.token)}`, headers, note: `after ${deep.passed.toLocaleString('en-US')} objects` });
  scenarios.push({ id: 'taxii-poll-tail', path: `${OBJECTS}?added_after=${tail.addedAfter}`, headers, note: `${tail.objects} objects after added_after` });
  return scenarios;
}

const SCENARIO_IDS = ['threat', 'feed', 'links-first', 'links-deep', 'taxii-discovery', 'taxii-collections', 'taxii-objects', 'taxii-objects-query', 'taxii-objects-deep', 'taxii-poll-tail'];

// ---------------------------------------------------------------------------------------------
// wrk.
// ---------------------------------------------------------------------------------------------

/** wrk's done() hook prints the figures as one JSON line, in microseconds, so no unit parsing is needed. */
const WRK_REPORT = `done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, summary.bytes, latency:percentile(50), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;

interface WrkRun {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Socket errors, timeouts and non-2xx/3xx answers. */
  errors: number;
}

interface WrkJson {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

interface LoadSettings {
  connections: number;
  cores: string | null;
  script: string;
}

async function runWrk(port: number, path: string, headers: Record<string, string>, seconds: number, load: LoadSettings): Promise<WrkRun> {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const wrkArgs = ['-t1', `-c${load.connections}`, `-d${seconds}s`, `--timeout`, WRK_TIMEOUT, '--latency', '-s', load.script, ...headerArgs, `http://127.0.0.1:${port}${path}`];
  const [command, args] = pinned(load.cores, 'wrk', wrkArgs);
  const output = await new Promise<string>((done, fail) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.on('error', fail);
    child.on('close', (code) => {
      running.delete(child);
      if (code === 0) done(text);
      else fail(new Error(`wrk exited with ${code}: ${text.trim()}`));
    });
  });
  const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`no figures from wrk:\n${output}`);
  const w = JSON.parse(line.slice('WRK_JSON '.length)) as WrkJson;
  return {
    rps: w.requests / (w.duration_us / 1e6),
    p50Ms: w.p50_us / 1000,
    p99Ms: w.p99_us / 1000,
    requests: w.requests,
    errors: w.connect + w.read + w.write + w.status + w.timeout,
  };
}

// ---------------------------------------------------------------------------------------------
// Measurement: per scenario, the servers take turns for equal durations; medians over the rounds.
// ---------------------------------------------------------------------------------------------

type TargetName = 'threatgate' | 'bare' | 'medallion';

interface Target {
  name: TargetName;
  server: Server;
  path: string;
  headers: Record<string, string>;
}

interface Figures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  runs: WrkRun[];
}

interface ScenarioResult {
  id: string;
  path: string;
  note?: string;
  threatgate: Figures;
  bare?: Figures;
  medallion?: Figures;
  medallionPath?: string;
  medallionNote?: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function figures(runs: WrkRun[]): Figures {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    runs,
  };
}

/** One wrk run against a target, once every server is idle. */
async function loadTarget(t: Target, seconds: number, servers: readonly Server[], load: LoadSettings): Promise<WrkRun> {
  await quiesce(servers);
  return runWrk(t.server.port, t.path, t.headers, seconds, load);
}

/** Warm-up, then `rounds` rounds; each round runs every target once, in alternating order (A B, B A, …). */
async function measure(targets: readonly Target[], options: Options, load: LoadSettings): Promise<Map<TargetName, Figures>> {
  const servers = targets.map((t) => t.server);
  if (options.warmup > 0) for (const t of targets) await loadTarget(t, options.warmup, servers, load);
  const runs = new Map<TargetName, WrkRun[]>(targets.map((t) => [t.name, []]));
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) runs.get(t.name)!.push(await loadTarget(t, options.duration, servers, load));
  }
  return new Map([...runs].map(([name, list]) => [name, figures(list)]));
}

// ---------------------------------------------------------------------------------------------
// One size: data, servers, scenarios, measurement.
// ---------------------------------------------------------------------------------------------

interface SizeResult {
  size: number;
  label: string;
  db: string;
  scenarios: ScenarioResult[];
  rssMB: { threatgateBefore: number; threatgateAfter: number; threatgateProcesses: number; bare?: number; medallion?: number };
  medallion: { objects: number; skipped?: string } | null;
}

interface Servers {
  threatgate: Server;
  bare?: Server;
  medallion?: Server;
}

async function serverConfig(options: Options): Promise<string> {
  if (options.responseCache) return BENCH_CONFIG;
  const file = join(options.outDir, 'bench-config-no-response-cache.json');
  const config = JSON.parse(await readFile(BENCH_CONFIG, 'utf8')) as Record<string, unknown>;
  await writeFile(file, `${JSON.stringify({ ...config, cache: { maxEntries: 0 } }, null, 2)}\n`);
  return file;
}

async function startThreatgate(db: string, options: Options, layout: CoreLayout, label: string, nodeFlags: string[] = []): Promise<Server> {
  const port = await freePort();
  const config = await serverConfig(options);
  return startServer({
    name: 'threatgate',
    command: process.execPath,
    args: [...nodeFlags, CLI, 'serve', '--db', db, '--config', config, '--host', '127.0.0.1', '--port', String(port), '--workers', String(options.workers)],
    cores: layout.server,
    port,
    logFile: join(options.outDir, 'logs', `threatgate-${label}.log`),
    stdoutToLog: false,
    ready: async (p) => (await get(p, '/healthz')).status === 200,
  });
}

async function startBare(responses: string, options: Options, layout: CoreLayout, label: string): Promise<Server> {
  const port = await freePort();
  return startServer({
    name: 'bare server',
    command: process.execPath,
    args: ['--import', 'tsx', BARE_SERVER, '--responses', responses, '--port', String(port), '--workers', String(options.workers)],
    cores: layout.server,
    port,
    logFile: join(options.outDir, 'logs', `bare-${label}.log`),
    stdoutToLog: true,
    ready: async (p) => (await get(p, '/nothing-recorded-here')).status === 404,
  });
}

/** Records threatgate's answer to every scenario (each must be 200), for the bare server to replay. */
async function recordResponses(port: number, scenarios: readonly Scenario[], file: string): Promise<RecordedResponse[]> {
  const recorded: RecordedResponse[] = [];
  for (const s of scenarios) {
    // With little data two scenarios can be one request (links page 0 is also the last but one).
    if (recorded.some((r) => r.path === s.path)) continue;
    const res = await get(port, s.path, s.headers);
    if (res.status !== 200) throw new Error(`${s.id}: threatgate answered ${res.status} to GET ${s.path}: ${res.body.toString('utf8').slice(0, 300)}`);
    recorded.push({ path: s.path, status: res.status, headers: replayableHeaders(res.rawHeaders), bodyBase64: res.body.toString('base64') });
  }
  await writeFile(file, JSON.stringify(recorded));
  return recorded;
}

/** The bare server must answer exactly what was recorded (Date and connection headers aside). */
async function checkReplay(port: number, recorded: readonly RecordedResponse[]): Promise<void> {
  for (const r of recorded) {
    const res = await get(port, r.path);
    const same =
      res.status === r.status &&
      res.body.equals(Buffer.from(r.bodyBase64, 'base64')) &&
      JSON.stringify(replayableHeaders(res.rawHeaders)) === JSON.stringify(r.headers);
    if (!same) throw new Error(`the bare server's answer to ${r.path} differs from threatgate's`);
  }
}

interface MedallionSetup {
  server: Server;
  paths: Record<string, string>;
  headers: Record<string, string>;
  objects: number;
}

/** Loads medallion with the first few hundred objects threatgate serves, and checks each scenario answers 200. */
async function startMedallion(threatgatePort: number, proKey: string, options: Options, layout: CoreLayout, label: string): Promise<MedallionSetup> {
  const gunicorn = ensureVenv(join(options.outDir, 'venv'), log);
  const taxii = { Authorization: `Basic ${Buffer.from(`taxii2:${proKey}`).toString('base64')}`, Accept: TAXII_MEDIA_TYPE };
  const objects = (await getOk<Envelope>(threatgatePort, `${OBJECTS}?limit=${MEDALLION_OBJECTS}`, taxii)).objects ?? [];
  const manifest = (await getOk<{ objects?: StixManifestEntry[] }>(threatgatePort, `${MANIFEST}?limit=${MEDALLION_OBJECTS}`, taxii)).objects ?? [];
  const password = randomBytes(16).toString('hex');
  const configFile = await writeMedallionFiles(join(options.outDir, 'medallion'), {
    collectionId: COLLECTION,
    collectionTitle: 'Indicators',
    objects,
    manifest,
    user: 'taxii2',
    password,
  });
  const headers = { Authorization: `Basic ${Buffer.from(`taxii2:${password}`).toString('base64')}`, Accept: TAXII_MEDIA_TYPE };
  const port = await freePort();
  const server = await startServer({
    name: 'medallion',
    command: gunicorn,
    args: gunicornArgs(configFile, port, options.workers),
    cores: layout.server,
    port,
    logFile: join(options.outDir, 'logs', `medallion-${label}.log`),
    stdoutToLog: true,
    ready: async (p) => (await get(p, '/taxii2/', headers)).status === 200,
  });
  const tail = manifest[Math.max(0, manifest.length - TAIL_OBJECTS - 1)]!.date_added;
  const paths = medallionPaths(COLLECTION, tail);
  for (const [id, path] of Object.entries(paths)) {
    const res = await get(port, path, headers);
    if (res.status !== 200) throw new Error(`medallion answered ${res.status} to ${id} (GET ${path}): ${res.body.toString('utf8').slice(0, 300)}`);
  }
  return { server, paths, headers, objects: objects.length };
}

function selectScenarios(all: Scenario[], options: Options): Scenario[] {
  return options.scenarios === null ? all : all.filter((s) => options.scenarios!.includes(s.id));
}

async function prepareSize(size: number, options: Options): Promise<{ db: string; keys: { pro: string; business: string } }> {
  const dataFile = await ensureDataFile(options.outDir, size);
  const db = await ensureDb(options.outDir, size, dataFile, options.reimport);
  return { db, keys: { pro: createKey(db, 'pro'), business: createKey(db, 'business') } };
}

async function discoverScenarios(port: number, keys: { pro: string; business: string }, options: Options): Promise<Scenario[]> {
  const scenarios = selectScenarios([...(await lookupScenarios(port, keys.business)), ...(await taxiiScenarios(port, keys.pro))], options);
  for (const s of scenarios) log(`  ${s.id.padEnd(20)} GET ${s.path.replace(/key=[^&]+/, 'key=…')}${s.note ? `  (${s.note})` : ''}`);
  return scenarios;
}

async function benchSize(size: number, options: Options, layout: CoreLayout, load: LoadSettings): Promise<SizeResult> {
  const label = sizeLabel(size);
  const { db, keys } = await prepareSize(size, options);
  const servers: Partial<Servers> = {};
  try {
    servers.threatgate = await startThreatgate(db, options, layout, label);
    const tgPort = servers.threatgate.port;
    log(`threatgate (${label}) on port ${tgPort}; scenarios:`);
    const scenarios = await discoverScenarios(tgPort, keys, options);
    const recorded = await recordResponses(tgPort, scenarios, join(options.outDir, `bare-responses-${label}.json`));
    servers.bare = await startBare(join(options.outDir, `bare-responses-${label}.json`), options, layout, label);
    await checkReplay(servers.bare.port, recorded);
    let medallion: MedallionSetup | null = null;
    let medallionSkipped: string | undefined;
    if (options.medallion && scenarios.some((s) => s.id.startsWith('taxii-'))) {
      try {
        medallion = await startMedallion(tgPort, keys.pro, options, layout, label);
        servers.medallion = medallion.server;
      } catch (error) {
        medallionSkipped = (error as Error).message;
        log(`medallion not measured: ${medallionSkipped}`);
      }
    }
    const rssBefore = treeRssMB(servers.threatgate.child.pid!);
    const results: ScenarioResult[] = [];
    for (const s of scenarios) results.push(await benchScenario(s, servers as Servers, medallion, options, load));
    const rssAfter = treeRssMB(servers.threatgate.child.pid!);
    return {
      size,
      label,
      db: relative(ROOT, db),
      scenarios: results,
      rssMB: {
        threatgateBefore: rssBefore.mb,
        threatgateAfter: rssAfter.mb,
        threatgateProcesses: rssAfter.processes,
        bare: treeRssMB(servers.bare.child.pid!).mb,
        ...(servers.medallion ? { medallion: treeRssMB(servers.medallion.child.pid!).mb } : {}),
      },
      medallion: medallion ? { objects: medallion.objects } : options.medallion ? { objects: 0, skipped: medallionSkipped ?? 'no TAXII scenario' } : null,
    };
  } finally {
    for (const server of Object.values(servers)) if (server) await stopServer(server);
  }
}

async function benchScenario(s: Scenario, servers: Servers, medallion: MedallionSetup | null, options: Options, load: LoadSettings): Promise<ScenarioResult> {
  const targets: Target[] = [
    { name: 'threatgate', server: servers.threatgate, path: s.path, headers: s.headers },
    { name: 'bare', server: servers.bare!, path: s.path, headers: s.headers },
  ];
  const medallionPath = medallion?.paths[s.id];
  if (medallion && medallionPath) targets.push({ name: 'medallion', server: medallion.server, path: medallionPath, headers: medallion.headers });
  log(`measuring ${s.id}: ${targets.map((t) => t.name).join(', ')} × ${options.rounds} rounds of ${options.duration} s …`);
  const measured = await measure(targets, options, load);
  const result: ScenarioResult = { id: s.id, path: s.path.replace(/key=[^&]+/, 'key=KEY'), threatgate: measured.get('threatgate')! };
  if (s.note) result.note = s.note;
  const bare = measured.get('bare');
  if (bare) result.bare = bare;
  const ref = measured.get('medallion');
  if (ref && medallionPath) Object.assign(result, { medallion: ref, medallionPath });
  else if (medallion && MEDALLION_GAPS[s.id]) result.medallionNote = MEDALLION_GAPS[s.id];
  const tg = result.threatgate;
  log(`  threatgate ${tg.rps.toFixed(0)} req/s p99 ${tg.p99Ms.toFixed(2)} ms; bare ${bare?.rps.toFixed(0)} req/s${ref ? `; medallion ${ref.rps.toFixed(0)} req/s` : ''}`);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Profiling mode: one threatgate run per scenario under --cpu-prof.
// ---------------------------------------------------------------------------------------------

/** Functions that do one part of a request and call no later middleware, so their inclusive time is that part's cost. */
const REQUEST_PARTS = ['authenticateKey', 'hashKey', 'executeQuery', 'prepare', 'increment', 'setDraft8Headers', 'listCollectionObjects', 'decodeNext', 'encodeNext', 'envelopeJson', 'sendJsonText', 'sendTaxii', 'redactUrl'];

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Profiles one scenario: a fresh server under --cpu-prof, warm-up, one measured run; summarizes that run's samples. */
async function profileScenario(s: Scenario, db: string, options: Options, layout: CoreLayout, load: LoadSettings, label: string): Promise<string> {
  const dir = join(options.outDir, 'profiles');
  const name = `serve-${label}-${s.id}.cpuprofile`;
  const server = await startThreatgate(db, options, layout, label, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', name]);
  let run: WrkRun;
  // The profile's clock is the monotonic clock, shared by every process on the machine.
  const window = { name: s.id, fromUs: 0, toUs: 0 };
  try {
    if (options.warmup > 0) await runWrk(server.port, s.path, s.headers, options.warmup, load);
    await quiesce([server]);
    window.fromUs = nowUs();
    run = await runWrk(server.port, s.path, s.headers, options.duration, load);
    window.toUs = nowUs();
  } finally {
    await stopServer(server);
  }
  const summary = summarizeProfile(await readProfile(join(dir, name)), 15, REQUEST_PARTS, window);
  const idleMs = summary.packages.find((p) => p.name === '(idle)')?.ms ?? 0;
  const perRequest = (ms: number) => `${((ms * 1000) / Math.max(1, run.requests)).toFixed(0)} µs`;
  const parts = summary.inclusive.filter((r) => r.ms > 0).map((r) => `${r.name} ${perRequest(r.ms)}`);
  return [
    `### ${label} ${s.id}: ${num(run.rps)} req/s, p50 ${ms(run.p50Ms)} ms, p99 ${ms(run.p99Ms)} ms; ${perRequest(summary.totalMs - idleMs)} of CPU per request`,
    '',
    `Per request, inclusive: ${parts.join(', ')}. Profile: ${relative(ROOT, join(dir, name))}`,
    '',
    formatProfileSummary({ ...summary, files: [], inclusive: [] }),
  ].join('\n');
}

async function profileSize(size: number, options: Options, layout: CoreLayout, load: LoadSettings): Promise<void> {
  const label = sizeLabel(size);
  const { db, keys } = await prepareSize(size, options);
  const discovery = await startThreatgate(db, options, layout, label);
  const scenarios = await discoverScenarios(discovery.port, keys, options).finally(() => stopServer(discovery));
  for (const s of scenarios) process.stdout.write(`\n${await profileScenario(s, db, options, layout, load, label)}\n`);
}

// ---------------------------------------------------------------------------------------------
// Report.
// ---------------------------------------------------------------------------------------------


function ratioCell(tg: Figures, other: Figures | undefined, target: number | null): string {
  if (!other) return '–';
  if (other.rps === 0) return 'n/a (no request completed)';
  const ratio = tg.rps / other.rps;
  const text = `${ratio.toFixed(2)}x`;
  return target !== null && ratio < target ? `**${text}**` : text;
}

function figuresNote(f: Figures | undefined): string {
  return f && f.errors > 0 ? ` (${f.errors} errors)` : '';
}

function formatSizeTable(result: SizeResult): string {
  const head =
    '| scenario | threatgate req/s | p50 ms | p99 ms | bare req/s | p50 ms | p99 ms | ratio | medallion req/s | ratio |\n' +
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const rows = result.scenarios.map((s) => {
    const t = s.threatgate;
    const b = s.bare;
    const m = s.medallion;
    return `| ${s.id} | ${num(t.rps)}${figuresNote(t)} | ${ms(t.p50Ms)} | ${ms(t.p99Ms)} | ${b ? num(b.rps) + figuresNote(b) : '–'} | ${b ? ms(b.p50Ms) : '–'} | ${b ? ms(b.p99Ms) : '–'} | ${ratioCell(t, b, 0.5)} | ${m ? num(m.rps) + figuresNote(m) : '–'} | ${ratioCell(t, m, null)} |`;
  });
  const rss = result.rssMB;
  const notes = [
    `threatgate RSS ${rss.threatgateBefore.toFixed(0)} MB before the runs, ${rss.threatgateAfter.toFixed(0)} MB after (${rss.threatgateProcesses} process${rss.threatgateProcesses === 1 ? '' : 'es'}, summed); ` +
      `bare server ${rss.bare?.toFixed(0)} MB${rss.medallion !== undefined ? `; medallion ${rss.medallion.toFixed(0)} MB` : ''}.`,
  ];
  if (result.medallion?.skipped) notes.push(`medallion not measured: ${result.medallion.skipped}`);
  else if (result.medallion) notes.push(`medallion holds the first ${result.medallion.objects} objects of the collection; the ratio column is threatgate/medallion.`);
  for (const s of result.scenarios) if (s.note) notes.push(`${s.id}: ${s.note}.`);
  return [`### ${result.size.toLocaleString('en-US')} indicators`, '', head, ...rows, '', ...notes.map((n) => `- ${n}`)].join('\n');
}

function formatScaling(results: readonly SizeResult[]): string {
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

// ---------------------------------------------------------------------------------------------
// Main.
// ---------------------------------------------------------------------------------------------

function runFacts(options: Options, layout: CoreLayout) {
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
  };
}

function checkTools(options: Options): void {
  if (!hasCommand('wrk', ['-v'])) {
    throw new Error('wrk is not installed: apt-get install -y wrk');
  }
  const unknown = (options.scenarios ?? []).filter((id) => !SCENARIO_IDS.includes(id));
  if (unknown.length > 0) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${SCENARIO_IDS.join(', ')}`);
}

function build(): void {
  log('npm run build …');
  const result = spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error('npm run build failed');
}

async function main(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (options === null) {
    process.stdout.write(USAGE);
    return;
  }
  checkTools(options);
  if (options.build) build();
  await mkdir(join(options.outDir, 'logs'), { recursive: true });
  const script = join(options.outDir, 'wrk-report.lua');
  await writeFile(script, WRK_REPORT);
  const layout = coreLayout(options.workers);
  const load: LoadSettings = { connections: options.connections, cores: layout.load, script };
  log(`pinning: ${layout.note}; wrk -t1 -c${options.connections}; ${options.workers} worker(s)`);
  if (options.cpuProf) {
    for (const size of options.sizes) await profileSize(size, options, layout, load);
    return;
  }
  const facts = runFacts(options, layout);
  // One file per kind of run, so a side experiment (--workers 2, --no-response-cache) keeps the main run's.
  const variant = `${options.sizes.map(sizeLabel).join('-')}-w${options.workers}${options.responseCache ? '' : '-no-cache'}`;
  const file = join(options.outDir, `http-bench-results-${variant}.json`);
  const results: SizeResult[] = [];
  for (const size of options.sizes) {
    results.push(await benchSize(size, options, layout, load));
    process.stdout.write(`\n${formatSizeTable(results[results.length - 1]!)}\n`);
    // Written after every size, so a failure at a larger size keeps the smaller ones.
    await writeFile(file, `${JSON.stringify({ ...facts, loadAverage: loadavg(), results }, null, 2)}\n`);
  }
  if (results.length > 1) process.stdout.write(`\n${formatScaling(results)}\n`);
  process.stdout.write(
    `\n${facts.date.slice(0, 10)}, commit ${facts.commit}${facts.dirty ? ' (with uncommitted changes)' : ''}, dist/ built ${facts.distBuiltAt}, ` +
      `Node ${facts.node}, ${facts.cores} cores (${facts.cpu}); ${layout.note}; results in ${relative(ROOT, file)}\n`,
  );
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`http-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    killAll();
    process.exitCode = 1;
  });
}
