// Mirror benchmark (docs/sources.md, TAXII sources): a downstream threatgate pulls an upstream threatgate's whole TAXII
// collection with limit=1000, then pulls again with nothing new. Built CLI, SQLite on both sides.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { generateData, parseSize } from './generate-data.js';
import { runCli, type RunResult } from './import-bench.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'main.js');
const INDICATORS_COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';

/** The upstream's limits stay out of the way: this measures the mirror, not the rate limiter. */
const UPSTREAM_CONFIG = {
  plans: { pro: { perSecond: 100000, perDay: 100000000, perMonth: 1000000000 } },
  pull: { enabled: false },
};

interface Upstream {
  child: ChildProcess;
  base: string;
  /** Peak resident set so far, KiB (the kernel's VmHWM of the serving process). */
  peakRssKb(): Promise<number>;
  stop(): Promise<void>;
}

async function startUpstream(db: string, config: string): Promise<Upstream> {
  const child = spawn(process.execPath, [CLI, '--db', db, '--config', config, 'serve', '--port', '0', '--workers', '1', '--no-pull'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const base = await new Promise<string>((resolveBase, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const match = /^listening on (http:\/\/\S+)$/m.exec(out);
      if (match) resolveBase(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the upstream exited (${code}) before it listened:\n${err}`)));
  });
  return {
    child,
    base,
    async peakRssKb() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
      return Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('exit', done));
    },
  };
}

function check(what: string, run: RunResult): RunResult {
  if (run.exitCode !== 0) throw new Error(`${what} failed (${run.exitCode}):\n${run.stdout}\n${run.stderr.slice(-2000)}`);
  return run;
}

function count(db: string, sql: string): number {
  const connection = new Database(db, { readonly: true });
  try {
    return Number((connection.prepare(sql).get() as { n: number }).n);
  } finally {
    connection.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      indicators: { type: 'string', default: '600k' },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write('Usage: node --import tsx bench/mirror-bench.ts [--indicators 600k] [--out-dir bench/out]   (needs npm run build)\n');
    return;
  }
  if (!existsSync(CLI)) throw new Error('dist/main.js is missing: npm run build');
  const size = parseSize(values.indicators);
  const outDir = resolve(values['out-dir']);
  await mkdir(outDir, { recursive: true });
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const scratch = join(outDir, 'mirror-bench');

  // The upstream: the generated data set imported once and kept (its import is the import bench's business).
  const data = join(outDir, `bench-${size}.ndjson`);
  if (!existsSync(data)) {
    log(`generating ${data}`);
    await generateData(data, { indicators: size });
  }
  const up = join(outDir, `mirror-upstream-${size}.sqlite`);
  if (!existsSync(up)) {
    log(`importing ${data} into the upstream`);
    check('upstream import', await runCli(['--db', up, 'import', data], [], `${scratch}-import`));
  }
  const config = join(outDir, 'mirror-upstream-config.json');
  await writeFile(config, JSON.stringify(UPSTREAM_CONFIG));
  const key = check('keys create', await runCli(['--db', up, '--config', config, 'keys', 'create', '--plan', 'pro'], [], `${scratch}-key`)).stdout.trim();
  const objects = count(up, 'select count(*) as n from stix_objects');

  const upstream = await startUpstream(up, config);
  const down = join(outDir, 'mirror-downstream.sqlite');
  try {
    for (const suffix of ['', '-wal', '-shm']) await rm(`${down}${suffix}`, { force: true });
    const source = JSON.stringify({
      url: `${upstream.base}/taxii2/api/collections/${INDICATORS_COLLECTION}/objects/`,
      format: 'taxii',
      username: 'taxii2',
      password: '${env:UPSTREAM_KEY}',
    });
    process.env.UPSTREAM_KEY = key;
    const fid = check('feeds add', await runCli(['--db', down, 'feeds', 'add', '--feed', 'Mirror', '--organization', 'Upstream', '--source', source], [], `${scratch}-add`)).stdout.trim();
    log(`mirroring ${objects.toLocaleString('en-US')} objects from ${upstream.base}`);
    const first = check('first pull', await runCli(['--db', down, 'feeds', 'pull', fid], [], `${scratch}-pull1`));
    const upstreamPeak = await upstream.peakRssKb();
    const second = check('second pull', await runCli(['--db', down, 'feeds', 'pull', fid], [], `${scratch}-pull2`));
    const mirrored = count(down, 'select count(*) as n from indicators');
    const upstreamIndicators = count(up, 'select count(*) as n from indicators');
    const lines = [
      `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
      `upstream: ${upstreamIndicators.toLocaleString('en-US')} indicators, ${objects.toLocaleString('en-US')} STIX objects`,
      `first pull:  ${first.seconds.toFixed(1)} s wall, ${first.cpuSeconds.toFixed(1)} s CPU, ${Math.round(first.peakRssKb / 1024)} MB peak (downstream) + ${Math.round(upstreamPeak / 1024)} MB (upstream serve) = ${Math.round((first.peakRssKb + upstreamPeak) / 1024)} MB`,
      `             ${first.stdout.trim()}`,
      `second pull: ${second.seconds.toFixed(1)} s wall, ${second.cpuSeconds.toFixed(1)} s CPU, ${Math.round(second.peakRssKb / 1024)} MB peak`,
      `             ${second.stdout.trim()}`,
      `indicators mirrored: ${mirrored.toLocaleString('en-US')} of ${upstreamIndicators.toLocaleString('en-US')}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await upstream.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`mirror-bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
