// Serving while the puller pulls: `serve --workers N` on a demo store answers lookups and TAXII pages at a steady
// concurrency while "Pull now" hands it a large list (a text list, or a ThreatFox-shaped `json.items: "*"` document);
// every request's latency is kept, and the table compares the requests before the pull with those during it.
import { spawnSync } from 'node:child_process';
import { copyFileSync, createWriteStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest, type Server as HttpServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, startServer, stopServer, treeRssMB } from './http/processes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let CLI = join(ROOT, 'dist', 'main.js');

const USAGE = `Usage: npm run bench:pull-serving -- [options]
  --db URL          the store: a postgres:// URL (a schema of its own is made), or an SQLite file (default: a temporary one)
  --lines N         values of the pulled list (default 200000)
  --shape S         text (one value a line) or threatfox (json.items "*", one key per value; default text)
  --workers N       serve's workers (default 2)
  --concurrency C   requests in flight, split between lookups and TAXII pages (default 8)
  --cli FILE        the built main.js to run (default dist/main.js; another build, such as a worktree of an older commit,
                    for a before/after; a build whose Pull now pulls in the serving process answers 200 with the run)
  --out-dir DIR     where the JSON result goes (default bench/out)
`;

interface Sample {
  kind: 'lookup' | 'taxii';
  start: number;
  ms: number;
  status: number;
}

function cli(args: string[], db: string, config: string): string {
  const run = spawnSync(process.execPath, [CLI, '--db', db, '--config', config, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn' } });
  if (run.status !== 0) throw new Error(`threatgate ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

/** The i-th value of the list: public addresses from 11.0.0.0 up, one each. */
function address(i: number): string {
  const n = 0x0b000000 + i;
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

async function writeList(file: string, lines: number, shape: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  if (shape === 'threatfox') {
    await write('{');
    for (let i = 0; i < lines; i++) {
      const record = { ioc_value: `${address(i)}:443`, ioc_type: 'ip:port', threat_type: 'botnet_cc', malware_printable: `Family ${i % 50}`, confidence_level: 75, first_seen_utc: '2026-11-01 10:00:00', tags: ['bench'] };
      await write(`${i === 0 ? '' : ','}\n  "${1_000_000 + i}": [${JSON.stringify(record)}]`);
    }
    await write('\n}\n');
  } else {
    await write('# a generated list\n');
    for (let i = 0; i < lines; i++) await write(`${address(i)}\n`);
  }
  out.end();
  await once(out, 'finish');
}

function serveFile(file: string): Promise<HttpServer> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    import('node:fs').then(({ createReadStream }) => createReadStream(file).pipe(res));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

function call(port: number, agent: Agent, method: string, path: string, headers: Record<string, string>, timeoutMs = 60_000): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timed out')));
    req.on('error', fail);
    req.end();
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function summary(samples: Sample[]) {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  return {
    requests: ms.length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
    max: ms.at(-1) ?? Number.NaN,
    overOneSecond: ms.filter((m) => m > 1000).length,
    errors: samples.filter((s) => s.status !== 200).length,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      db: { type: 'string' }, lines: { type: 'string', default: '200000' }, shape: { type: 'string', default: 'text' },
      workers: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '8' }, 'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      cli: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.cli !== undefined) CLI = resolve(values.cli);
  const lines = Number(values.lines);
  const shape = values.shape!;
  if (shape !== 'text' && shape !== 'threatfox') throw new Error('--shape: text or threatfox');
  const dir = mkdtempSync(join(tmpdir(), 'threatgate-pull-serving-'));
  const db = values.db === undefined ? join(dir, 'store.sqlite') : values.db.startsWith('postgres') ? `${values.db}${values.db.includes('?') ? '&' : '?'}schema=bench_${process.pid}` : values.db;
  const config = join(dir, 'config.json');
  // An hourly check: the pull starts when "Pull now" wakes the puller, not before.
  writeFileSync(config, JSON.stringify({ pull: { checkSeconds: 3600 }, sources: { allowPrivateNetworks: true }, plans: { pro: { perSecond: 100000, perDay: 100000000, perMonth: 1000000000 } } }));
  let feed: HttpServer | undefined;
  let serve: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    process.stderr.write(`demo store, ${lines} ${shape} values to pull...\n`);
    cli(['demo'], db, config);
    const proKey = cli(['keys', 'create', '--plan', 'pro'], db, config);
    const adminKey = cli(['keys', 'create', '--admin'], db, config);
    const listFile = join(dir, shape === 'text' ? 'list.txt' : 'full.json');
    await writeList(listFile, lines, shape);
    feed = await serveFile(listFile);
    const feedPort = (feed.address() as { port: number }).port;
    const source = shape === 'text'
      ? { url: `http://127.0.0.1:${feedPort}/list.txt`, format: 'text', schedule: 'daily', maxMegabytes: 1024 }
      : { url: `http://127.0.0.1:${feedPort}/full.json`, format: 'json', schedule: 'daily', maxMegabytes: 1024, json: { items: '*', value: 'ioc_value', threat: 'malware_printable' } };
    const port = await freePort();
    const workers = values.workers!;
    serve = await startServer({
      name: 'threatgate', command: process.execPath, args: [CLI, '--db', db, '--config', config, 'serve', '--port', String(port), '--workers', workers], cores: null, port,
      logFile: join(dir, 'serve.log'), stdoutToLog: false, env: { LOG_LEVEL: 'warn' },
      ready: async (p) => (await call(p, new Agent(), 'GET', '/readyz', {})).status === 200,
    });
    // Added once serve runs (its first check is over): only "Pull now" makes the puller pull it.
    const fid = Number(cli(['feeds', 'add', '--feed', 'Bench list', '--organization', 'Bench', '--source', JSON.stringify(source)], db, config));
    const agent = new Agent({ keepAlive: true, maxSockets: Number(values.concurrency) });
    const basic = { authorization: `Basic ${Buffer.from(`taxii2:${proKey}`).toString('base64')}`, accept: 'application/taxii+json;version=2.1' };
    const collections = JSON.parse((await call(port, agent, 'GET', '/taxii2/api/collections/', basic)).body) as { collections: Array<{ id: string }> };
    const collection = collections.collections.at(-1)!.id;
    const paths: Array<[Sample['kind'], string, Record<string, string>]> = [];
    for (let i = 1; i <= 200; i++) paths.push(['lookup', `/api/indicator.php?iid=${i}&key=${proKey}`, {}], ['lookup', `/api/threat.php?tid=${(i % 20) + 1}&key=${proKey}`, {}]);
    for (let i = 0; i < 50; i++) paths.push(['taxii', `/taxii2/api/collections/${collection}/objects/?limit=20&match[type]=indicator`, basic]);

    const samples: Sample[] = [];
    let running = true;
    let next = 0;
    const loop = async () => {
      while (running) {
        const [kind, path, headers] = paths[next++ % paths.length]!;
        const start = performance.now();
        const res = await call(port, agent, 'GET', path, headers).catch(() => ({ status: 0, body: '' }));
        samples.push({ kind, start, ms: performance.now() - start, status: res.status });
      }
    };
    let rssMax = 0;
    const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, treeRssMB(serve!.child.pid!).mb)), 250);
    const loops = Array.from({ length: Number(values.concurrency) }, loop);
    // 3 s to warm up (caches, JIT) are left out; then 5 s before the pull, for comparison.
    await new Promise((done) => setTimeout(done, 3000));
    const warm = performance.now();
    await new Promise((done) => setTimeout(done, 5000));
    const asked = performance.now();
    // An older build answers when its pull has ended: minutes for the largest lists.
    const pulled = await call(port, agent, 'POST', `/admin/api/feeds/${fid}/pull`, { authorization: `Bearer ${adminKey}` }, 1_800_000);
    // 202: handed to the puller; 200: an older build that pulled in the serving process and answered the run.
    if (pulled.status !== 202 && pulled.status !== 200) throw new Error(`Pull now answered ${pulled.status}: ${pulled.body}`);
    let run: { outcome: string; values: number | null; seconds: number; error: string | null } | undefined;
    while (run === undefined) {
      await new Promise((done) => setTimeout(done, 500));
      const runs = JSON.parse((await call(port, agent, 'GET', `/admin/api/feeds/${fid}/runs?limit=1`, { authorization: `Bearer ${adminKey}` })).body) as { runs: Array<typeof run> };
      run = runs.runs[0];
    }
    const finished = performance.now();
    await new Promise((done) => setTimeout(done, 3000));
    running = false;
    await Promise.all(loops);
    clearInterval(rssTimer);

    const before = samples.filter((s) => s.start >= warm && s.start < asked);
    const during = samples.filter((s) => s.start >= asked && s.start <= finished);
    const result = {
      store: db.startsWith('postgres') ? 'postgres' : 'sqlite', shape, lines, workers: Number(workers), concurrency: Number(values.concurrency),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      pull: { outcome: run!.outcome, values: run!.values, seconds: run!.seconds, error: run!.error, wallSeconds: (finished - asked) / 1000 },
      serveRssMaxMB: Math.round(rssMax),
      before: { lookup: summary(before.filter((s) => s.kind === 'lookup')), taxii: summary(before.filter((s) => s.kind === 'taxii')) },
      during: { lookup: summary(during.filter((s) => s.kind === 'lookup')), taxii: summary(during.filter((s) => s.kind === 'taxii')) },
    };
    const row = (name: string, s: ReturnType<typeof summary>) =>
      `${name.padEnd(16)} ${String(s.requests).padStart(8)} ${s.p50.toFixed(1).padStart(8)} ${s.p99.toFixed(1).padStart(8)} ${s.max.toFixed(1).padStart(9)} ${String(s.overOneSecond).padStart(6)} ${String(s.errors).padStart(6)}`;
    process.stdout.write(
      [
        `${result.store}, ${lines} ${shape} values, --workers ${workers}, ${values.concurrency} in flight: pull ${run!.outcome} in ${run!.seconds} s (${result.pull.wallSeconds.toFixed(1)} s from the request), serve's processes at most ${result.serveRssMaxMB} MB`,
        `${'requests'.padEnd(16)} ${'count'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(9)} ${'>1 s'.padStart(6)} ${'non-200'.padStart(6)}`,
        row('lookup before', result.before.lookup), row('lookup during', result.during.lookup), row('taxii before', result.before.taxii), row('taxii during', result.during.taxii), '',
      ].join('\n'),
    );
    await mkdir(values['out-dir']!, { recursive: true });
    await writeFile(join(values['out-dir']!, `pull-serving-${result.store}-${shape}-${lines}${values.cli === undefined ? '' : '-other-build'}.json`), JSON.stringify(result, null, 2));
    agent.destroy();
  } catch (error) {
    // The log of a run that failed is kept for a look (the temporary folder goes).
    await mkdir(values['out-dir']!, { recursive: true });
    if (existsSync(join(dir, 'serve.log'))) copyFileSync(join(dir, 'serve.log'), join(values['out-dir']!, 'pull-serving-failed-serve.log'));
    throw error;
  } finally {
    if (serve) await stopServer(serve);
    feed?.closeAllConnections();
    feed?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
