// Source-feed pull benchmark (docs/feeds.md): a generated plain-text list, served over local HTTP, pulled with the built CLI
// into an empty store, pulled again unchanged (304, then the same body), then with a part of it replaced, while `serve`
// on the same store answers cached lookups at a fixed rate. The store is a new SQLite file, or a PostgreSQL schema (--db).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server as HttpServer } from 'node:http';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { formatProfileSummary, summarizeProfileFile } from './cpu-profile-summary.js';
import { parseSize, Prng } from './generate-data.js';
import { get } from './http/client.js';
import { TIMED_GET } from './http/timed-get.js';
import { dropStore, storeLocation, storeMegabytes, withPostgres, type StoreLocation } from './scale/store.js';
import { freePort, startServer, stopServer, type Server } from './http/processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'main.js');
const BENCH_CONFIG = join(ROOT, 'bench', 'bench-config.json');
const MB = 1024 * 1024;
/** Bumped whenever the generator's output changes, so files cached in bench/out/ are made again. */
const GENERATOR_VERSION = 1;

const USAGE = `Usage: npm run bench:pull -- [options]
  --lines N          lines of the generated source (default 1,000,000; 20k, 1m accepted)
  --change N         value lines replaced for the changed-source pull (default 10,000; at most a quarter of the lines)
  --seed S           generator seed (default 1)
  --rate R           lookups per second sent to serve during the pulls, open loop (default 200; 0: no serve, no lookups)
  --file-url         serve the source as file:// instead of local HTTP (no 304 step then)
  --sql-profile      time every SQL statement of each pull in the CLI child (a preload wraps better-sqlite3) and print
                     the phases and the costliest statements
  --cpu-prof         run each pull with --cpu-prof and print a summary (bench/out/profiles/pull-STEP.cpuprofile)
  --steps a,b        which steps follow the first pull: repull-304, repull-body, change (default all three)
  --pull-limit S     stop a pull after S seconds and report it as missed (default 300)
  --db URL           postgres://...?schema=NAME: the store is that schema (dropped first, and afterwards unless
                     --keep-db); default a new SQLite file, bench/out/pull-LINES.sqlite
  --keep-db          keep the store afterwards
  --no-build         do not run npm run build when dist/ is older than src/
  --out-dir DIR      default bench/out
`;

interface Options {
  lines: number;
  change: number;
  seed: number;
  rate: number;
  fileUrl: boolean;
  sqlProfile: boolean;
  cpuProf: boolean;
  keepDb: boolean;
  /** A PostgreSQL URL with a schema; undefined: an SQLite file in outDir. */
  db: string | undefined;
  build: boolean;
  /** The steps after the first pull that run (all by default). */
  steps: Set<string>;
  /** Seconds after which a pull is stopped and reported as over its target. */
  pullLimit: number;
  outDir: string;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const num = (n: number) => Math.round(n).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------------------------
// The source: one value a line, as Spamhaus DROP, blocklist.de and OpenPhish publish, with their kinds of comments.

const TLDS = ['com', 'net', 'org', 'info', 'biz', 'ru', 'cn', 'top', 'xyz', 'io', 'de', 'br', 'in', 'online', 'site', 'club', 'shop'];
const SUBDOMAINS = ['www', 'mail', 'cdn', 'api', 'login', 'secure', 'update', 'files'];
const EXTENSIONS = ['', '', '', '.php', '.exe', '.zip', '.bin', '.sh', '.html', '.apk'];
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function word(prng: Prng, min: number, max: number, alphabet = ALNUM): string {
  let text = LETTERS[prng.int(0, LETTERS.length - 1)]!;
  for (let n = prng.int(min, max) - 1; n > 0; n--) text += alphabet[prng.int(0, alphabet.length - 1)]!;
  return text;
}

/** A public unicast IPv4 address: nothing the default allowlist keeps out (private, loopback, link-local, multicast, 0/8). */
function ipv4Parts(prng: Prng): [number, number, number, number] {
  let a = prng.int(1, 223);
  const b = prng.int(0, 255);
  if (a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)) a += 1;
  return [a, b, prng.int(0, 255), prng.int(1, 254)];
}

function ipv4(prng: Prng): string {
  return ipv4Parts(prng).join('.');
}

/** A network address with its prefix, host bits zero (as DROP lists them), mostly /24. */
function cidr(prng: Prng): string {
  const prefix = prng.chance(0.6) ? 24 : prng.int(16, 30);
  const [a, b, c, d] = ipv4Parts(prng);
  const bits = (((a << 24) | (b << 16) | (c << 8) | d) & (0xffffffff << (32 - prefix))) >>> 0;
  return `${[bits >>> 24, (bits >>> 16) & 255, (bits >>> 8) & 255, bits & 255].join('.')}/${prefix}`;
}

function domain(prng: Prng): string {
  const name = prng.chance(0.2) ? `${word(prng, 3, 7)}-${word(prng, 3, 7)}` : word(prng, 6, 14);
  const sub = prng.chance(0.3) ? `${prng.chance(0.5) ? prng.pick(SUBDOMAINS) : word(prng, 2, 8)}.` : '';
  return `${sub}${name}.${prng.pick(TLDS)}`;
}

/** http(s) with a host name or an address, a path, sometimes a port or a query; never `;`, `#` or a blank, which end a value. */
function url(prng: Prng): string {
  const scheme = prng.chance(0.7) ? 'http' : 'https';
  const host = prng.chance(0.15) ? ipv4(prng) : domain(prng);
  const port = prng.chance(0.05) ? `:${prng.pick([8080, 8000, 443, 81, 8443])}` : '';
  let path = '';
  for (let n = prng.int(1, 3); n > 0; n--) path += `/${word(prng, 3, 10)}`;
  path += prng.pick(EXTENSIONS);
  const query = prng.chance(0.15) ? `?id=${prng.int(1, 999_999)}` : '';
  return `${scheme}://${host}${port}${path}${query}`;
}

/** 40% addresses, 10% CIDR blocks, 30% domains, 20% URLs: roughly the mix of the abuse.ch, DROP and phishing lists. */
function value(prng: Prng): string {
  const r = prng.next();
  if (r < 0.4) return ipv4(prng);
  if (r < 0.5) return cidr(prng);
  if (r < 0.8) return domain(prng);
  return url(prng);
}

const HEADER = [
  '; threatgate pull-bench source: generated values, not real infrastructure',
  '; one value a line; text after ";" or "#" is a comment (Spamhaus DROP style)',
  '#',
];

interface SourceFacts {
  version: number;
  lines: number;
  seed: number;
  /** Value lines replaced by new values (0 for the base source). */
  replaced: number;
  valueLines: number;
  commentLines: number;
  blankLines: number;
  bytes: number;
  sha1: string;
}

/**
 * The source's lines, `lines` in all. With `change`, every stride-th value line (spread over the whole list) is
 * replaced by a value from a second stream until `change` are: the rest of the file is the base source byte for byte,
 * because the main stream is drawn from in the same order either way.
 */
function* sourceLines(lines: number, seed: number, change: number, facts: SourceFacts): Generator<string> {
  const main = new Prng(seed);
  const alternate = new Prng((seed ^ 0x5bd1e995) >>> 0);
  // A little below the expected share of value lines (97.5%), so the last replacement falls inside the file.
  const stride = change > 0 ? Math.max(1, Math.floor((lines * 0.97) / change)) : 0;
  for (let i = 0; i < lines; i++) {
    if (i < HEADER.length) {
      facts.commentLines++;
      yield HEADER[i]!;
      continue;
    }
    const r = main.next();
    if (r < 0.01) {
      facts.blankLines++;
      yield '';
      continue;
    }
    if (r < 0.025) {
      facts.commentLines++;
      yield main.chance(0.5) ? `# block ${i}: ${word(main, 4, 12)}` : `; updated list, part ${main.int(1, 99)}`;
      continue;
    }
    let text = value(main);
    const note = main.chance(0.05) ? ` ; SBL${main.int(100_000, 999_999)}` : '';
    if (stride > 0 && facts.valueLines % stride === stride >> 1 && facts.replaced < change) {
      text = value(alternate);
      facts.replaced++;
    }
    facts.valueLines++;
    yield `${text}${note}`;
  }
}

/** Writes the source in constant memory (1 MB chunks, with backpressure) unless a file of the same parameters is there. */
async function generateSource(file: string, lines: number, seed: number, change: number): Promise<SourceFacts> {
  const factsFile = `${file}.json`;
  if (existsSync(file) && existsSync(factsFile)) {
    const facts = JSON.parse(await readFile(factsFile, 'utf8')) as SourceFacts;
    if (facts.version === GENERATOR_VERSION && facts.lines === lines && facts.seed === seed && statSync(file).size === facts.bytes) return facts;
  }
  log(`generating ${relative(ROOT, file)} …`);
  const started = performance.now();
  const facts: SourceFacts = { version: GENERATOR_VERSION, lines, seed, replaced: 0, valueLines: 0, commentLines: 0, blankLines: 0, bytes: 0, sha1: '' };
  const hash = createHash('sha1');
  const chunks = function* () {
    let chunk = '';
    for (const line of sourceLines(lines, seed, change, facts)) {
      chunk += `${line}\n`;
      if (chunk.length >= MB) {
        hash.update(chunk);
        facts.bytes += Buffer.byteLength(chunk);
        yield chunk;
        chunk = '';
      }
    }
    hash.update(chunk);
    facts.bytes += Buffer.byteLength(chunk);
    yield chunk;
  };
  const partial = `${file}.partial`;
  await pipeline(Readable.from(chunks()), createWriteStream(partial));
  await rename(partial, file);
  facts.sha1 = hash.digest('hex');
  await writeFile(factsFile, `${JSON.stringify(facts, null, 2)}\n`);
  log(`  ${(facts.bytes / 1e6).toFixed(1)} MB, ${num(facts.valueLines)} value lines, ${facts.replaced} replaced, in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return facts;
}

// ---------------------------------------------------------------------------------------------------------------
// The source server: node:http on 127.0.0.1, the file streamed; with an ETag (and If-None-Match honoured) or without.

interface SourceServer {
  url: string;
  /** What the next request gets: this file, with its strong ETag or with no validator at all. */
  serve(file: string, etag: string | null): void;
  /** Status codes answered since the last call. */
  takeStatuses(): number[];
  close(): Promise<void>;
}

async function startSourceServer(): Promise<SourceServer> {
  let current = { file: '', etag: null as string | null };
  let statuses: number[] = [];
  const server: HttpServer = createServer((req, res) => {
    if (req.url !== '/source.txt') {
      res.writeHead(404).end();
      statuses.push(404);
      return;
    }
    const { file, etag } = current;
    if (etag !== null && req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag }).end();
      statuses.push(304);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': statSync(file).size, ...(etag === null ? {} : { etag }) });
    statuses.push(200);
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/source.txt`,
    serve(file, etag) {
      current = { file, etag };
    },
    takeStatuses() {
      const taken = statuses;
      statuses = [];
      return taken;
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Lookups during the pulls: an open loop in a worker thread (its own event loop, so the source server and the bench's
// own work do not delay it), at a fixed rate; a request's latency counts from when it was due, not from when it went.

const LOOKUP_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { port, paths, rate } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const buckets = new Map();
let phase = null;
let sent = 0;
let inFlight = 0;
const bucket = (name) => {
  let b = buckets.get(name);
  if (!b) buckets.set(name, (b = { latencies: [], errors: 0, statuses: {} }));
  return b;
};
function send(dueAt, name) {
  const path = paths[sent++ % paths.length];
  inFlight++;
  timedGet(agent, port, path, {}, (status) => {
    inFlight--;
    if (name === null) return;
    const b = bucket(name);
    b.latencies.push(performance.now() - dueAt);
    b.statuses[status] = (b.statuses[status] || 0) + 1;
    if (status !== 200) b.errors++;
  });
}
${TIMED_GET}
const interval = 1000 / rate;
let next = performance.now();
const timer = setInterval(() => {
  const now = performance.now();
  while (next <= now) {
    send(next, phase);
    next += interval;
  }
}, 1);
parentPort.on('message', (message) => {
  if (message.phase !== undefined) phase = message.phase;
  if (message.stop) {
    clearInterval(timer);
    const finish = () => {
      if (inFlight > 0) return setTimeout(finish, 20);
      agent.destroy();
      const out = {};
      for (const [name, b] of buckets) out[name] = b;
      parentPort.postMessage(out);
    };
    finish();
  }
});
`;

interface LatencyBucket {
  latencies: number[];
  errors: number;
  statuses: Record<string, number>;
}

export interface LookupStats {
  phase: string;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  max: number;
  over50: number;
  /** Answers by HTTP status (0: no answer). */
  statuses: Record<string, number>;
  /** CPU the serve processes used, and time their threads were ready to run but waited for a core, per second of the phase. */
  serveCpuMsPerS?: number;
  serveWaitMsPerS?: number;
}

/** Every thread of a process and of its descendants: their /proc/PID/task/TID/schedstat paths. */
function treeThreads(pid: number): string[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(`/proc/${name}/stat`);
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const paths: string[] = [];
  const visit = (at: number) => {
    const tasks = (() => {
      try {
        return readdirSync(`/proc/${at}/task`);
      } catch {
        return [];
      }
    })();
    for (const tid of tasks) paths.push(`/proc/${at}/task/${tid}/schedstat`);
    for (const child of children.get(at) ?? []) visit(child);
  };
  visit(pid);
  return paths;
}

function readProc(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return ''; // gone meanwhile
  }
}

/**
 * On-CPU and run-queue time of the serve tree, in ms (schedstat: ns on a CPU, ns waiting on a run queue). When a
 * lookup is slow while the serve threads waited for a core, the delay was the machine's CPUs, not the store.
 */
function treeSchedstat(pid: number): { runMs: number; waitMs: number; at: number } {
  let runNs = 0;
  let waitNs = 0;
  for (const path of treeThreads(pid)) {
    const [run = 0, wait = 0] = readProc(path).split(' ').map(Number);
    runNs += run;
    waitNs += wait;
  }
  return { runMs: runNs / 1e6, waitMs: waitNs / 1e6, at: performance.now() };
}

class LookupLoad {
  private readonly worker: Worker;
  private current: { name: string; from: ReturnType<typeof treeSchedstat> } | null = null;
  private readonly scheduling = new Map<string, { runMs: number; waitMs: number; ms: number }>();

  constructor(
    port: number,
    paths: string[],
    rate: number,
    private readonly servePid: number | undefined,
  ) {
    this.worker = new Worker(LOOKUP_WORKER, { eval: true, workerData: { port, paths, rate } });
  }

  /** Requests due from now on count in `name` (null: sent but not counted). */
  phase(name: string | null): void {
    this.worker.postMessage({ phase: name });
    if (this.servePid === undefined || !existsSync('/proc/self/schedstat')) return;
    const now = treeSchedstat(this.servePid);
    if (this.current !== null) {
      const { from } = this.current;
      const sum = this.scheduling.get(this.current.name) ?? { runMs: 0, waitMs: 0, ms: 0 };
      this.scheduling.set(this.current.name, { runMs: sum.runMs + now.runMs - from.runMs, waitMs: sum.waitMs + now.waitMs - from.waitMs, ms: sum.ms + now.at - from.at });
    }
    this.current = name === null ? null : { name, from: now };
  }

  async stop(): Promise<LookupStats[]> {
    this.phase(null);
    const result = new Promise<Record<string, LatencyBucket>>((done) => this.worker.once('message', done));
    this.worker.postMessage({ stop: true });
    const buckets = await result;
    await this.worker.terminate();
    return Object.entries(buckets).map(([phase, b]) => {
      const sorted = Float64Array.from(b.latencies).sort();
      const at = (q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!);
      const stats: LookupStats = { phase, requests: sorted.length, errors: b.errors, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, over50: sorted.filter((ms) => ms > 50).length, statuses: b.statuses };
      const scheduling = this.scheduling.get(phase);
      if (scheduling !== undefined && scheduling.ms > 0) {
        stats.serveCpuMsPerS = (scheduling.runMs / scheduling.ms) * 1000;
        stats.serveWaitMsPerS = (scheduling.waitMs / scheduling.ms) * 1000;
      }
      return stats;
    });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// SQL profile of a pull (--sql-profile): a preload wraps Statement#all/run/get of the better-sqlite3 the CLI loads and
// writes one event per call (statement shape, start, duration, process CPU at the start) when the child exits.

const SQL_PROBE_SOURCE = `
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
const out = process.env.PULL_BENCH_SQL_OUT;
const require = createRequire(process.cwd() + '/package.json');
const Database = require('better-sqlite3');
const scratch = new Database(':memory:');
const proto = Object.getPrototypeOf(scratch.prepare('select 1'));
scratch.close();
const shapes = new Map();
const events = [];
const t0 = performance.now();
const shapeOf = (text) => {
  let id = shapes.get(text);
  if (id === undefined) {
    const shape = text.replace(/\\s+/g, ' ')
      .replace(/\\((?:\\?, )*\\?\\)(?:, \\((?:\\?, )*\\?\\))+/g, '(?…),…')
      .replace(/in \\((?:\\?, )+\\?\\)/g, 'in (?…)')
      .trim()
      .slice(0, 240);
    shapes.set(text, (id = shape));
  }
  return id;
};
for (const method of ['all', 'run', 'get']) {
  const original = proto[method];
  proto[method] = function (...args) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = original.apply(this, args);
    const ms = performance.now() - started;
    const rows = Array.isArray(result) ? result.length : method === 'run' ? Number(result.changes) : result ? 1 : 0;
    events.push([shapeOf(this.source), started - t0, ms, (cpu.user + cpu.system) / 1000, rows]);
    return result;
  };
}
process.on('exit', () => {
  const cpu = process.cpuUsage();
  if (out) writeFileSync(out, JSON.stringify({ totalMs: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, events }));
});
`;
const SQL_PROBE = `data:text/javascript,${encodeURIComponent(SQL_PROBE_SOURCE)}`;

/** [shape, start ms, duration ms, process CPU ms at the start, rows] */
export type SqlEvent = [string, number, number, number, number];

/**
 * Where a pull's phases start: the first statement of each, in the order the pipeline runs them
 * (ingest.ts ingest, pull-writer.ts applyPull, then derive and publish in apply.ts).
 */
const PULL_PHASES: [string, RegExp][] = [
  ['fetch, read, normalize and stage the values (pull_rows)', /^create temporary table pull_values/],
  ['applyPull: each value once with its indicator (pull_values)', /^analyze pull_rows|^with g as materialized \(select r\.type, r\.value, max\(r\.risk\)/],
  ['applyPull: count, threats, attributes', /^select count\(\*\) as n from \(select 1 from pull_values\)/],
  ['applyPull: resolveIndicators (insert indicators)', /^insert into indicators \(iid, value, type, risk/],
  ['applyPull: updateListingsAndRisks', /^update pull_(values|listed) set relisted = 1/],
  ['applyPull: stageNewLinks', /^insert into import_links \(kind, owner, iid, stamp_linked, ordinal, position\) select \?, \?, v\.iid/],
  ['applyPull: markSeen, finishFeed', /^update indicators set stamp_seen/],
  ['import checks, moveLinks', /^select .*from "?import_keys"?|^select count\(\*\) as "?n"? from "?changed_/],
  ['derive: renumberLinks', /^update "?feed_links"? set seq/],
  ['derive: aggregates', /^select owner as id from "?import_links"?|^select "fid", "indicators", "summary" from "feeds"/],
  ['publish: indicators and relationships', /^create temporary table "?render_iids"?/],
  ['publish: collections, meta', /^select s\.id, s\.type, s\.modified, s\.date_added|collection_objects/],
  ['commit', /^commit$/],
];

interface SqlProfile {
  totalMs: number;
  cpuMs: number;
  phases: { name: string; ms: number; cpuMs: number; sqlMs: number }[];
  statements: { shape: string; calls: number; ms: number; rows: number }[];
}

export function summarizeSql(probe: { totalMs: number; cpuMs: number; events: SqlEvent[] }): SqlProfile {
  const bounds: { name: string; at: number; cpu: number }[] = [{ name: 'start-up, open the store, read the feed', at: 0, cpu: 0 }];
  let next = 0;
  for (const [shape, at, , cpu] of probe.events) {
    // Phases start in order; one that never comes (no change: no STIX step) is skipped.
    for (let k = next; k < PULL_PHASES.length; k++) {
      if (PULL_PHASES[k]![1].test(shape.trim())) {
        bounds.push({ name: PULL_PHASES[k]![0], at, cpu });
        next = k + 1;
        break;
      }
    }
  }
  bounds.push({ name: 'end', at: probe.totalMs, cpu: probe.cpuMs });
  const phases = bounds.slice(0, -1).map((b, i) => {
    const end = bounds[i + 1]!;
    const sqlMs = probe.events.filter(([, at]) => at >= b.at && at < end.at).reduce((sum, e) => sum + e[2], 0);
    return { name: b.name, ms: end.at - b.at, cpuMs: end.cpu - b.cpu, sqlMs };
  });
  const byShape = new Map<string, { shape: string; calls: number; ms: number; rows: number }>();
  for (const [shape, , ms, , rows] of probe.events) {
    let s = byShape.get(shape);
    if (!s) byShape.set(shape, (s = { shape, calls: 0, ms: 0, rows: 0 }));
    s.calls++;
    s.ms += ms;
    s.rows += rows;
  }
  return { totalMs: probe.totalMs, cpuMs: probe.cpuMs, phases, statements: [...byShape.values()].sort((a, b) => b.ms - a.ms) };
}

export function formatSqlProfile(profile: SqlProfile, top = 15): string {
  return [
    `in-process ${(profile.totalMs / 1000).toFixed(2)} s, CPU ${(profile.cpuMs / 1000).toFixed(2)} s (from the preload's start)`,
    '',
    '| phase (from its first statement) | wall s | CPU s | in SQL calls s |',
    '|---|---:|---:|---:|',
    ...profile.phases.map((p) => `| ${p.name} | ${(p.ms / 1000).toFixed(2)} | ${(p.cpuMs / 1000).toFixed(2)} | ${(p.sqlMs / 1000).toFixed(2)} |`),
    '',
    '| SQL statement (shape) | calls | s | rows |',
    '|---|---:|---:|---:|',
    ...profile.statements.slice(0, top).map((s) => `| \`${s.shape.replace(/\|/g, '\\|')}\` | ${s.calls} | ${(s.ms / 1000).toFixed(2)} | ${num(s.rows)} |`),
  ].join('\n');
}

/** Functions of the pull path whose inclusive CPU time tells its parts apart (--cpu-prof). */
const PULL_FUNCTIONS = [
  'fetchSource',
  'readText',
  'splitLines',
  'pullBatches',
  'normalizeValue',
  'writeBatch',
  'bulkInsertRows',
  'applyPull',
  'resolveIndicators',
  'updateListingsAndRisks',
  'stageNewLinks',
  'markSeen',
  'moveLinks',
  'refreshLookupData',
  'renumberLinks',
  'refreshAllAggregates',
  'refreshOwners',
  'syncObjects',
  'syncIndicators',
  'syncRelationships',
  'readIndicators',
  'renderVersion',
  'refreshCollections',
];

// ---------------------------------------------------------------------------------------------------------------
// The store, read directly between the pulls.

interface StoreFacts {
  stixObjects: number;
  maxDateAdded: number;
  indicators: number;
  feedLinks: number;
  /** Objects with a date_added above `since`: the versions written after that point. */
  newerThan?: number;
}

async function readStore(location: StoreLocation, since?: number): Promise<StoreFacts> {
  if (location.kind === 'postgres') {
    return withPostgres(location, async (client, schema) => {
      const q = `"${schema.replace(/"/g, '""')}"`;
      const one = async (text: string, ...params: unknown[]) => Number((await client.query<{ n: string | null }>(text, params)).rows[0]?.n ?? 0);
      const facts: StoreFacts = {
        stixObjects: await one(`select count(*) as n from ${q}.stix_objects`),
        maxDateAdded: await one(`select max(date_added) as n from ${q}.stix_objects`),
        indicators: await one(`select count(*) as n from ${q}.indicators`),
        feedLinks: await one(`select count(*) as n from ${q}.feed_links`),
      };
      if (since !== undefined) facts.newerThan = await one(`select count(*) as n from ${q}.stix_objects where date_added > $1`, since);
      return facts;
    });
  }
  const store = new Database(location.db, { readonly: true, fileMustExist: true });
  try {
    const one = (text: string, ...params: unknown[]) => Number((store.prepare(text).get(...params) as { n: number | null }).n ?? 0);
    const facts: StoreFacts = {
      stixObjects: one('select count(*) as n from stix_objects'),
      maxDateAdded: one('select max(date_added) as n from stix_objects'),
      indicators: one('select count(*) as n from indicators'),
      feedLinks: one('select count(*) as n from feed_links'),
    };
    if (since !== undefined) facts.newerThan = one('select count(*) as n from stix_objects where date_added > ?', since);
    return facts;
  } finally {
    store.close();
  }
}

function newestMtime(dir: string, ext: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(ext)) newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
  }
  return newest;
}

function ensureBuilt(): void {
  const built = existsSync(CLI) ? newestMtime(join(ROOT, 'dist'), '.js') : 0;
  if (built > 0 && built >= newestMtime(join(ROOT, 'src'), '.ts')) return;
  log('dist/ is stale: npm run build');
  if (spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
}

function cli(args: string[]): string {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`threatgate ${args[0]} ${args[1] ?? ''} failed (exit ${result.status}): ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout.trim();
}

// ---------------------------------------------------------------------------------------------------------------
// The CLI child: wall time, CPU and peak RSS from /usr/bin/time (as import-bench.ts measures them), with a time limit.

const TIME = '/usr/bin/time';
const USAGE_PROBE = `data:text/javascript,${encodeURIComponent(
  `import { writeFileSync } from 'node:fs';
process.on('exit', () => {
  const u = process.resourceUsage();
  writeFileSync(process.env.PULL_BENCH_USAGE_OUT, JSON.stringify({ maxRssKb: u.maxRSS, cpuSeconds: (u.userCPUTime + u.systemCPUTime) / 1e6 }));
});`,
)}`;

interface RunResult {
  seconds: number;
  /** Exit code, or null when the time limit stopped it. */
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  peakRssKb: number;
  cpuSeconds: number;
}

/**
 * Runs `node [nodeFlags] dist/main.js args…` under /usr/bin/time in its own process group, so that at the time limit
 * both are stopped (a stopped pull rolls back: its transaction never commits). Without /usr/bin/time, a preload in the
 * child writes its own getrusage figures when it exits (not when it is stopped).
 */
async function runCli(args: readonly string[], nodeFlags: readonly string[], scratch: string, limitSeconds: number): Promise<RunResult> {
  const timeFile = `${scratch}.time`;
  const usageFile = `${scratch}.usage.json`;
  await rm(timeFile, { force: true });
  await rm(usageFile, { force: true });
  const useTime = existsSync(TIME);
  const nodeArgs = [...nodeFlags, ...(useTime ? [] : ['--import', USAGE_PROBE]), CLI, ...args];
  const [command, argv] = useTime ? [TIME, ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const started = performance.now();
  const child = spawn(command, argv, { cwd: ROOT, env: { ...process.env, PULL_BENCH_USAGE_OUT: usageFile }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  // The group's id is the child's pid (detached); it may be gone by the time the signal is sent.
  const stopGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already exited
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stopGroup();
  }, limitSeconds * 1000);
  const stopOnExit = () => {
    if (child.exitCode === null) stopGroup();
  };
  process.once('exit', stopOnExit);
  const exitCode = await new Promise<number | null>((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done(code));
  });
  clearTimeout(timer);
  process.off('exit', stopOnExit);
  const seconds = (performance.now() - started) / 1000;
  let peakRssKb = 0;
  let cpuSeconds = 0;
  if (useTime && existsSync(timeFile)) {
    // "Command exited with non-zero status N" may come before the figures.
    const last = (await readFile(timeFile, 'utf8')).trim().split('\n').at(-1)!;
    const [kb = 0, user = 0, system = 0] = last.split(' ').map(Number);
    [peakRssKb, cpuSeconds] = [kb, user + system];
  } else if (existsSync(usageFile)) {
    ({ maxRssKb: peakRssKb, cpuSeconds } = JSON.parse(await readFile(usageFile, 'utf8')) as { maxRssKb: number; cpuSeconds: number });
  }
  return { seconds, exitCode: timedOut ? null : exitCode, timedOut, stdout, stderr, peakRssKb, cpuSeconds };
}

// ---------------------------------------------------------------------------------------------------------------
// The run.

interface PullLine {
  values: number;
  newIndicators: number;
  newLinks: number;
  rejected: number;
  seconds: number;
}

function parsePullLine(stdout: string): PullLine | undefined {
  const match = /^fid \d+ .*: ok (\d+) values, (\d+) new indicators, (\d+) new links, (\d+) rejected, ([\d.]+) s$/m.exec(stdout);
  if (!match) return undefined;
  const [values, newIndicators, newLinks, rejected, seconds] = match.slice(1).map(Number) as [number, number, number, number, number];
  return { values, newIndicators, newLinks, rejected, seconds };
}

export interface StepResult {
  step: string;
  /** Target wall time, in seconds. */
  targetSeconds: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  /** The CLI's line; undefined when the time limit stopped the pull (which then changed nothing). */
  line?: PullLine;
  timedOut: boolean;
  /** The HTTP statuses the source server answered during the step. */
  statuses: number[];
  /** STIX objects with a date_added after the step's start: the versions it wrote. */
  newVersions: number;
  stixObjectsAfter: number;
  sqlProfile?: SqlProfile;
  cpuProfile?: string;
}

export interface PullBenchResult {
  at: string;
  commit: string;
  node: string;
  cpus: number;
  /** serve's default worker count here (os.availableParallelism). */
  serveWorkers: number;
  loadBefore: number[];
  loadAfter: number[];
  lines: number;
  source: SourceFacts;
  changed: SourceFacts;
  steps: StepResult[];
  lookups: LookupStats[];
  lookupRate: number;
  lookupPaths: string[];
  store: StoreLocation['kind'];
  dbMB: number;
}

const STEP_TARGETS = { pull: 60, 'repull-304': 15, 'repull-body': 15, change: 20 } as const;
type StepName = keyof typeof STEP_TARGETS;
const RSS_TARGET_MB = 500;
const LOOKUP_P99_TARGET_MS = 50;

async function runPull(step: StepName, location: StoreLocation, fid: number, options: Options, scratch: string, source: SourceServer | null, lookups: LookupLoad | null): Promise<StepResult> {
  const db = location.db;
  const before = await readStore(location);
  const flags: string[] = [];
  const sqlOut = `${scratch}.sql-${step}.json`;
  if (options.sqlProfile) {
    flags.push('--import', SQL_PROBE);
    process.env.PULL_BENCH_SQL_OUT = sqlOut;
    await rm(sqlOut, { force: true });
  }
  const profileDir = join(options.outDir, 'profiles');
  const profileName = `pull-${step}.cpuprofile`;
  if (options.cpuProf) flags.push('--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', profileName);
  source?.takeStatuses();
  lookups?.phase(step);
  let run: RunResult;
  try {
    run = await runCli(['feeds', 'pull', String(fid), '--db', db], flags, scratch, options.pullLimit);
  } finally {
    lookups?.phase(null);
    delete process.env.PULL_BENCH_SQL_OUT;
  }
  const line = parsePullLine(run.stdout);
  if (!run.timedOut && (run.exitCode !== 0 || line === undefined)) throw new Error(`feeds pull (${step}) failed (exit ${run.exitCode}):\n${run.stdout.trim()}\n${run.stderr.trim()}`);
  const after = await readStore(location, before.maxDateAdded);
  const result: StepResult = {
    step,
    targetSeconds: STEP_TARGETS[step],
    seconds: run.seconds,
    cpuSeconds: run.cpuSeconds,
    peakRssMB: run.peakRssKb / 1024,
    ...(line === undefined ? {} : { line }),
    timedOut: run.timedOut,
    statuses: source?.takeStatuses() ?? [],
    newVersions: after.newerThan ?? 0,
    stixObjectsAfter: after.stixObjects,
  };
  if (run.timedOut) {
    log(`  stopped at the time limit, ${options.pullLimit} s (--pull-limit): the pull rolled back`);
  } else {
    log(
      `  ${run.seconds.toFixed(1)} s (CPU ${run.cpuSeconds.toFixed(1)} s), peak RSS ${result.peakRssMB.toFixed(0)} MB, HTTP ${result.statuses.join(',') || '-'}; ` +
        `${num(result.newVersions)} new STIX versions (${num(before.stixObjects)} → ${num(after.stixObjects)} objects): ${run.stdout.trim().split('\n').find((l) => l.startsWith('fid '))}`,
    );
  }
  if (options.sqlProfile && existsSync(sqlOut)) {
    result.sqlProfile = summarizeSql(JSON.parse(await readFile(sqlOut, 'utf8')) as { totalMs: number; cpuMs: number; events: SqlEvent[] });
    log(`\nSQL profile of ${step}:\n\n${formatSqlProfile(result.sqlProfile)}\n`);
  }
  if (options.cpuProf) {
    result.cpuProfile = join(profileDir, profileName);
    log(`\nCPU profile of ${step} (${relative(ROOT, result.cpuProfile)}):\n\n${formatProfileSummary(await summarizeProfileFile(result.cpuProfile, 20, PULL_FUNCTIONS))}\n`);
  }
  return result;
}

function gitCommit(): string {
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return result.status === 0 ? `${result.stdout.trim()}${dirty ? ' (src/ modified)' : ''}` : 'unknown';
}

export async function benchPull(options: Options): Promise<PullBenchResult> {
  if (options.build) ensureBuilt();
  await mkdir(join(options.outDir, 'logs'), { recursive: true });
  const loadBefore = loadavg();
  const change = Math.min(options.change, Math.floor(options.lines / 4));
  if (change !== options.change) log(`--change ${options.change} is more than a quarter of ${options.lines} lines: ${change} instead`);
  const base = join(options.outDir, `pull-source-${options.lines}.txt`);
  const changedFile = join(options.outDir, `pull-source-${options.lines}-changed-${change}.txt`);
  const source = await generateSource(base, options.lines, options.seed, 0);
  const changed = await generateSource(changedFile, options.lines, options.seed, change);
  if (changed.replaced !== change) throw new Error(`the changed source replaced ${changed.replaced} values, not ${change}`);

  const location = storeLocation(options.db ?? join(options.outDir, `pull-${options.lines}.sqlite`));
  const db = location.db;
  const scratch = join(options.outDir, `pull-run-${options.lines}`);
  await dropStore(location);
  const server = options.fileUrl ? null : await startSourceServer();
  let serve: Server | null = null;
  let lookups: LookupLoad | null = null;
  const steps: StepResult[] = [];
  let lookupStats: LookupStats[] = [];
  let lookupPaths: string[] = [];
  try {
    const sourceUrl = (file: string) => (server === null ? pathToFileURL(file).href : server.url);
    server?.serve(base, `"${source.sha1}"`);
    const definition = JSON.stringify({ url: sourceUrl(base), format: 'text' });
    const fid = Number(cli(['feeds', 'add', '--feed', 'Pull bench list', '--organization', 'threatgate bench', '--source', definition, '--db', db]));
    if (!Number.isSafeInteger(fid)) throw new Error(`feeds add printed no fid`);
    log(`feed ${fid} added, source ${sourceUrl(base)}`);

    if (options.rate > 0) {
      const key = cli(['keys', 'create', '--plan', 'pro', '--label', 'pull-bench', '--db', db]);
      const port = await freePort();
      serve = await startServer({
        name: 'threatgate serve',
        command: process.execPath,
        args: [CLI, 'serve', '--db', db, '--config', BENCH_CONFIG, '--host', '127.0.0.1', '--port', String(port), '--no-pull'],
        cores: null,
        port,
        logFile: join(options.outDir, 'logs', `pull-bench-serve-${options.lines}.log`),
        stdoutToLog: false,
        ready: async (p) => (await get(p, '/healthz')).status === 200,
      });
      // The feed record and its first links page: cached after the first request, until a pull commits.
      lookupPaths = [`/api/feed.php?fid=${fid}&key=${key}`, `/api/feed.php?fid=${fid}&get=links&page=0&key=${key}`];
      for (const path of lookupPaths) {
        const res = await get(port, path);
        if (res.status !== 200) throw new Error(`GET ${path.replace(key, 'KEY')}: ${res.status} ${res.body.toString('utf8').slice(0, 200)}`);
      }
      lookups = new LookupLoad(port, lookupPaths, options.rate, serve.child.pid);
      log(`serve on port ${port}: ${options.rate} lookups/s; 1 s of warm-up and 5 s measured before the first pull`);
      await new Promise((done) => setTimeout(done, 1000));
      lookups.phase('idle');
      await new Promise((done) => setTimeout(done, 5000));
      lookups.phase(null);
    }

    log(`pulling ${num(options.lines)} lines into the empty store …`);
    steps.push(await runPull('pull', location, fid, options, scratch, server, lookups));
    // The other steps re-pull what this one stored: without it they would be first pulls again.
    if (steps[0]!.timedOut) options = { ...options, steps: new Set() };
    if (server !== null && options.steps.has('repull-304')) {
      log('re-pulling, unchanged, with the ETag (304) …');
      steps.push(await runPull('repull-304', location, fid, options, scratch, server, lookups));
    }
    server?.serve(base, null);
    if (options.steps.has('repull-body')) {
      log('re-pulling the identical body (no ETag) …');
      steps.push(await runPull('repull-body', location, fid, options, scratch, server, lookups));
    }
    if (server === null) {
      // file:// has no conditional request: the source definition points at the changed file instead.
      cli(['feeds', 'add', '--feed', 'Pull bench list', '--organization', 'threatgate bench', '--source', JSON.stringify({ url: sourceUrl(changedFile), format: 'text' }), '--db', db]);
    }
    server?.serve(changedFile, `"${changed.sha1}"`);
    if (options.steps.has('change')) {
      log(`pulling the source with ${num(change)} values replaced …`);
      steps.push(await runPull('change', location, fid, options, scratch, server, lookups));
    }
    if (lookups !== null) {
      lookups.phase('after');
      await new Promise((done) => setTimeout(done, 2000));
      lookupStats = await lookups.stop();
      lookups = null;
    }
  } finally {
    if (lookups !== null) await lookups.stop().catch(() => []);
    if (serve !== null) await stopServer(serve);
    await server?.close();
  }
  const dbMB = await storeMegabytes(location);
  if (!options.keepDb) await dropStore(location);
  return {
    at: new Date().toISOString(),
    commit: gitCommit(),
    store: location.kind,
    node: process.version,
    cpus: cpus().length,
    serveWorkers: availableParallelism(),
    loadBefore,
    loadAfter: loadavg(),
    lines: options.lines,
    source,
    changed,
    steps,
    lookups: lookupStats,
    lookupRate: options.rate,
    lookupPaths: lookupPaths.map((p) => p.replace(/key=[^&]+/, 'key=KEY')),
    dbMB,
  };
}

const STEP_LABELS: Record<string, string> = {
  pull: 'pull into the empty store',
  'repull-304': 're-pull, unchanged: 304 (ETag)',
  'repull-body': 're-pull, unchanged: the same body, no ETag',
  change: 're-pull, values replaced',
  idle: 'before the pulls (idle)',
  after: 'after the pulls',
};

export function formatResult(r: PullBenchResult): string {
  const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');
  const stepRows = r.steps.map((s) => {
    const unchanged = s.step === 'repull-304' || s.step === 'repull-body';
    const ok = !s.timedOut && s.seconds < s.targetSeconds && (s.step !== 'pull' || s.peakRssMB < RSS_TARGET_MB) && (!unchanged || s.newVersions === 0);
    const label = s.step === 'change' ? `re-pull, ${num(r.changed.replaced)} values replaced` : STEP_LABELS[s.step];
    const target = `< ${s.targetSeconds} s${s.step === 'pull' ? `, < ${RSS_TARGET_MB} MB` : ''}${unchanged ? ', 0 versions' : ''}`;
    const counts = s.line ? [s.line.values, s.line.newIndicators, s.line.newLinks, s.line.rejected, s.newVersions].map(num) : ['stopped', '-', '-', '-', '-'];
    const seconds = s.timedOut ? `> ${s.seconds.toFixed(0)}` : s.seconds.toFixed(1);
    const cpu = s.timedOut ? '-' : s.cpuSeconds.toFixed(1);
    const rss = s.timedOut ? '-' : s.peakRssMB.toFixed(0);
    return `| ${label} | ${target} | ${seconds} | ${cpu} | ${rss} | ${s.statuses.join(',') || 'file'} | ${counts.join(' | ')} | ${verdict(ok)} |`;
  });
  const parts = [
    `${num(r.lines)} lines (${(r.source.bytes / 1e6).toFixed(1)} MB, ${num(r.source.valueLines)} value lines), commit ${r.commit}, Node ${r.node}, ${r.cpus} CPUs, ` +
      `load average ${r.loadBefore.map((l) => l.toFixed(1)).join(' ')} before and ${r.loadAfter.map((l) => l.toFixed(1)).join(' ')} after; database ${r.dbMB.toFixed(0)} MB at the end`,
    '',
    '| step | target | wall s | CPU s | peak RSS MB | HTTP | values | new indicators | new links | rejected | new STIX versions | |',
    '|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|',
    ...stepRows,
  ];
  if (r.lookups.length > 0) {
    const order = ['idle', 'pull', 'repull-304', 'repull-body', 'change', 'after'];
    parts.push(
      '',
      `Lookups from a separate \`serve --no-pull\` on the same file (its default: ${r.serveWorkers} workers), ${r.lookupRate}/s open loop, alternating ${r.lookupPaths.map((p) => `\`${p}\``).join(' and ')}; latency from when each was due:`,
      '',
      '| while | requests | errors | p50 ms | p99 ms | max ms | over 50 ms | serve CPU ms/s | serve run-queue wait ms/s | |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      ...[...r.lookups]
        .sort((a, b) => order.indexOf(a.phase) - order.indexOf(b.phase))
        .map((l) => `| ${STEP_LABELS[l.phase] ?? l.phase} | ${num(l.requests)} | ${l.errors} | ${l.p50.toFixed(2)} | ${l.p99.toFixed(2)} | ${l.max.toFixed(1)} | ${l.over50} | ${l.serveCpuMsPerS?.toFixed(0) ?? '-'} | ${l.serveWaitMsPerS?.toFixed(0) ?? '-'} | ${l.phase === 'pull' ? verdict(l.p99 < LOOKUP_P99_TARGET_MS && l.errors === 0) : ''} |`),
    );
  }
  return parts.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      lines: { type: 'string', default: '1000000' },
      change: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '1' },
      rate: { type: 'string', default: '200' },
      'file-url': { type: 'boolean', default: false },
      'sql-profile': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'keep-db': { type: 'boolean', default: false },
      db: { type: 'string' },
      'pull-limit': { type: 'string', default: '300' },
      steps: { type: 'string', default: 'repull-304,repull-body,change' },
      'no-build': { type: 'boolean', default: false },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const int = (name: string, n: number, min: number) => {
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}`);
    return n;
  };
  const options: Options = {
    lines: int('lines', parseSize(values.lines), 100),
    change: int('change', parseSize(values.change), 1),
    seed: int('seed', Number(values.seed), 0),
    rate: int('rate', Number(values.rate), 0),
    fileUrl: values['file-url'],
    sqlProfile: values['sql-profile'],
    cpuProf: values['cpu-prof'],
    keepDb: values['keep-db'],
    db: values.db,
    steps: new Set(
      values.steps
        .split(',')
        .map((step) => step.trim())
        .filter((step) => step !== '')
        .map((step) => {
          if (!['repull-304', 'repull-body', 'change'].includes(step)) throw new Error(`--steps: no step "${step}"`);
          return step;
        }),
    ),
    pullLimit: int('pull-limit', Number(values['pull-limit']), 1),
    build: !values['no-build'],
    outDir: resolve(values['out-dir']),
  };
  if (options.db !== undefined && storeLocation(options.db).kind === 'postgres' && options.sqlProfile) throw new Error('--sql-profile times better-sqlite3 statements: it needs the SQLite store');
  const result = await benchPull(options);
  await writeFile(join(options.outDir, `pull-bench-results-${options.lines}-${result.store}.json`), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\n${formatResult(result)}\n`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`pull-bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
