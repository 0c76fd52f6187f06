// JSON pull benchmark: a generated ThreatFox-shaped export (`json.items: "*"`, ~1M keys) served over local HTTP and pulled with the built CLI; wall time and the pull's peak RSS.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, statSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { parseSize, Prng } from './generate-data.js';

const HERE = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MB = 1024 * 1024;
/** The pull's peak RSS this bench holds it to (docs/sources.md: `json.items` streams). */
const RSS_TARGET_MB = 500;
/** Bumped whenever the generator's output changes, so files cached in the out dir are made again. */
const GENERATOR_VERSION = 1;

const USAGE = `Usage: npm run bench:json -- [options]
  --keys N        top-level keys of the generated export (default 1,000,000; 20k, 1m accepted)
  --seed S        generator seed (default 1)
  --root DIR      the checkout whose dist/main.js pulls (default this one), to measure another build
  --no-build      do not run npm run build in --root first
  --read-only     also read the export with the built json reader alone (no store), in a child of its own
  --out-dir DIR   where the export, the store and the results go (default bench/out)
`;

const log = (line: string) => process.stderr.write(`${line}\n`);

// ---------------------------------------------------------------------------------------------------------------
// The export: ThreatFox's `{"ID": [RECORD, ...], ...}`, ids descending (not the ascending order JSON.parse gives
// integer keys), a record a key and a second one for one key in twenty, written with backpressure in constant memory.

const MALWARE = ['AsyncRAT', 'Cobalt Strike', 'Agent Tesla', 'Mirai', 'QakBot', 'Emotet', 'Remcos', 'Unknown malware'];
/** Weighted as a pick from a list: half ip:port, a quarter domains, the rest URLs and hashes. */
const TYPES = ['ip:port', 'ip:port', 'ip:port', 'ip:port', 'domain', 'domain', 'url', 'sha256_hash'] as const;
const HEX = '0123456789abcdef';
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function text(prng: Prng, length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[prng.int(0, alphabet.length - 1)]!;
  return out;
}

function iocValue(prng: Prng, type: (typeof TYPES)[number], n: number): string {
  // The running number keeps values apart; the rest only gives them the feed's look and length.
  if (type === 'ip:port') return `${prng.int(11, 99)}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}:${prng.int(1024, 65535)}`;
  if (type === 'domain') return `${text(prng, 6, LETTERS)}${n}.example.com`;
  if (type === 'url') return `http://${text(prng, 5, LETTERS)}${n}.example.net/${text(prng, 4, LETTERS)}.php`;
  return text(prng, 56, HEX) + n.toString(16).padStart(8, '0');
}

function record(prng: Prng, n: number): string {
  const type = prng.pick(TYPES);
  const malware = prng.pick(MALWARE);
  const fields: Record<string, unknown> = { ioc_value: iocValue(prng, type, n), ioc_type: type, malware_printable: malware, confidence_level: prng.pick([25, 50, 75, 100]) };
  if (prng.chance(0.1)) fields.tags = `${malware.replace(/\s/g, '')},c2`;
  return JSON.stringify(fields);
}

interface Source {
  file: string;
  bytes: number;
  records: number;
}

async function generate(file: string, keys: number, seed: number): Promise<Source> {
  const facts = `${file}.json.facts`;
  if (existsSync(file) && existsSync(facts)) {
    const known = JSON.parse(await readFile(facts, 'utf8')) as Source & { version: number; keys: number; seed: number };
    if (known.version === GENERATOR_VERSION && known.keys === keys && known.seed === seed) return known;
  }
  log(`writing ${file}`);
  const prng = new Prng(seed);
  const out = createWriteStream(file);
  let records = 0;
  let part = '{';
  for (let k = 0; k < keys; k++) {
    const id = 1_000_000 + keys - k;
    const list = [record(prng, records++)];
    if (prng.chance(0.05)) list.push(record(prng, records++));
    part += `${k === 0 ? '' : ','}\n"${id}":[${list.join(',')}]`;
    if (part.length > 1 << 16) {
      if (!out.write(part)) await once(out, 'drain');
      part = '';
    }
  }
  out.end(`${part}\n}\n`);
  await once(out, 'finish');
  const source = { file, bytes: statSync(file).size, records };
  await writeFile(facts, JSON.stringify({ ...source, version: GENERATOR_VERSION, keys, seed }));
  return source;
}

// ---------------------------------------------------------------------------------------------------------------
// The run: `feeds add` and `feeds pull` of the built CLI, the pull under /usr/bin/time.

const THREATFOX = {
  items: '*',
  key: 'id',
  value: 'ioc_value',
  type: 'ioc_type',
  threat: 'malware_printable',
  riskFrom: { field: 'confidence_level', map: { '90': 'high', '50': 'medium', '0': 'low' } },
  attributes: { threatfox_id: 'id', tags: { field: 'tags', split: ',' } },
};

function cli(root: string, args: string[]): string {
  const result = spawnSync(process.execPath, [join(root, 'dist', 'main.js'), ...args], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`threatgate ${args.slice(0, 2).join(' ')} failed (exit ${result.status}): ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout.trim();
}

interface PullRun {
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  line: string;
}

/** The json reader alone over the file: what the parse costs without the store (its entries counted, nothing kept). */
const READ_ONLY = `
const [dist, file] = process.argv.slice(1);
const { readJson } = await import(dist + '/sources/parsers/read-json.js');
const { parseSource } = await import(dist + '/sources/source-definition.js');
const { createReadStream } = await import('node:fs');
const { json } = parseSource({ url: 'http://127.0.0.1/export.json', format: 'json', json: JSON.parse(process.env.JSON_BENCH_OPTIONS) });
let entries = 0;
for await (const batch of readJson(createReadStream(file), json)) entries += batch.entries.length;
console.log(\`read \${entries} entries\`);
`;

/** `node ARGS` in --root under /usr/bin/time: wall, CPU, peak RSS, and what it printed. */
async function timed(root: string, args: string[], timeFile: string, env: Record<string, string> = {}): Promise<PullRun> {
  if (!existsSync('/usr/bin/time')) throw new Error('/usr/bin/time is needed for the peak RSS (apt-get install -y time)');
  const started = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  const [code] = (await once(child, 'close')) as [number | null];
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`node ${args.slice(0, 3).join(' ')} failed (exit ${code}): ${stdout.trim()}`);
  const [kb = 0, user = 0, system = 0] = (await readFile(timeFile, 'utf8')).trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds, cpuSeconds: user + system, peakRssMB: kb / 1024, line: stdout.trim() };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      keys: { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      root: { type: 'string', default: HERE },
      'no-build': { type: 'boolean', default: false },
      'read-only': { type: 'boolean', default: false },
      'out-dir': { type: 'string', default: join(HERE, 'bench', 'out') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return void process.stdout.write(USAGE);
  const keys = parseSize(values.keys);
  const root = resolve(values.root);
  const outDir = resolve(values['out-dir']);
  await mkdir(outDir, { recursive: true });
  if (!values['no-build'] && spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');
  const source = await generate(join(outDir, `json-stream-${keys}.json`), keys, Number(values.seed));
  log(`${source.bytes.toLocaleString('en-US')} bytes, ${keys.toLocaleString('en-US')} keys, ${source.records.toLocaleString('en-US')} records`);

  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': source.bytes });
    createReadStream(source.file).pipe(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/export.json`;
  const db = join(outDir, `json-stream-${keys}.sqlite`);
  const removeDb = () => Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${db}${suffix}`, { force: true })));
  try {
    const read = values['read-only']
      ? await timed(root, ['--input-type=module', '-e', READ_ONLY, pathToFileURL(join(root, 'dist')).href, source.file], join(outDir, 'json-stream-read.time'), { JSON_BENCH_OPTIONS: JSON.stringify(THREATFOX) })
      : undefined;
    if (read !== undefined) process.stdout.write(`the json reader alone: ${read.line}, ${read.seconds.toFixed(1)} s wall, ${read.cpuSeconds.toFixed(1)} s CPU, peak RSS ${read.peakRssMB.toFixed(0)} MB\n`);
    await removeDb();
    const definition = JSON.stringify({ url, format: 'json', network: 'private', json: THREATFOX });
    const fid = cli(root, ['feeds', 'add', '--feed', 'JSON stream bench', '--organization', 'threatgate bench', '--source', definition, '--db', db]);
    const loadBefore = loadavg();
    const run = await timed(root, [join(root, 'dist', 'main.js'), 'feeds', 'pull', fid, '--db', db], join(outDir, 'json-stream-pull.time'));
    const store = new Database(db, { readonly: true });
    const indicators = (store.prepare('select count(*) as n from indicators').get() as { n: number }).n;
    store.close();
    const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout.trim();
    const result = { at: new Date().toISOString(), commit, root, node: process.version, cpus: cpus().length, loadBefore, loadAfter: loadavg(), keys, ...source, indicators, ...run, read };
    await writeFile(join(outDir, `json-stream-bench-results-${keys}.json`), `${JSON.stringify(result, null, 2)}\n`);
    log(run.line);
    const verdict = run.peakRssMB < RSS_TARGET_MB ? 'met' : 'NOT met';
    process.stdout.write(
      `json items "*", ${keys.toLocaleString('en-US')} keys, ${(source.bytes / MB).toFixed(1)} MB, at ${commit}: ` +
        `${run.seconds.toFixed(1)} s wall, ${run.cpuSeconds.toFixed(1)} s CPU, peak RSS ${run.peakRssMB.toFixed(0)} MB (target < ${RSS_TARGET_MB} MB: ${verdict}), ${indicators.toLocaleString('en-US')} indicators\n`,
    );
  } finally {
    server.closeAllConnections();
    server.close();
    await removeDb();
  }
}

await main();
