// HTTP benchmark: threatgate's lookup API and TAXII gateway under wrk, against bare node:http and bare Express replays of the same bytes and medallion.
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseSize } from './generate-data.js';
import { benchSize, type SizeResult } from './http/bench-size.js';
import { log, ROOT, sizeLabel, type Options } from './http/common.js';
import { coreLayout, hasCommand, killAll } from './http/processes.js';
import { sideBySide } from './http/side-by-side.js';
import { profileSize } from './http/profile.js';
import { formatScaling, formatSizeTable, runFacts } from './http/report.js';
import { SCENARIO_IDS } from './http/scenarios.js';
import { writeWrkScript, type LoadSettings } from './http/wrk.js';

const USAGE = `Usage: npm run bench -- [options]
  --sizes 10k,100k,1m     indicator counts (data and databases are cached in bench/out/)
  --duration 5            seconds per wrk run            --rounds 3    interleaved rounds (medians are reported)
  --warmup 2              seconds of unmeasured load per server and scenario first
  --connections 16        wrk connections (one wrk thread)
  --workers 1             threatgate serve --workers N; the bare server, the Express floor and gunicorn get as many
  --scenarios a,b         only these (ids in the table); --no-medallion skips the reference server
  --no-express-floor      skip the Express floor (the same replies through a bare Express 5 app)
  --least-work            also the least-work server: the same replies with the key found, its windows counted and
                          written, and a log line per request, without a framework (bench/bare-server.ts --least-work)
  --no-response-cache     serve with cache.maxEntries 0: no response is served from threatgate's cache
  --cpu-prof              instead of comparing, profile threatgate under wrk, one server run per scenario
  --side-by-side          instead of comparing with the other servers, measure the scenarios against one another
                          on threatgate, every scenario once per round (e.g. --scenarios threat,indicator-value)
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
      'no-express-floor': { type: 'boolean', default: false },
      'least-work': { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'no-response-cache': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      'side-by-side': { type: 'boolean', default: false },
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
    expressFloor: !values['no-express-floor'],
    leastWork: values['least-work'],
    build: !values['no-build'],
    responseCache: !values['no-response-cache'],
    cpuProf: values['cpu-prof'],
    sideBySide: values['side-by-side'],
    reimport: values.reimport,
    outDir: resolve(values['out-dir']),
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
  const script = await writeWrkScript(options.outDir);
  const layout = coreLayout(options.workers);
  const load: LoadSettings = { connections: options.connections, cores: layout.load, script };
  log(`pinning: ${layout.note}; wrk -t1 -c${options.connections}; ${options.workers} worker(s)`);
  if (options.cpuProf) {
    for (const size of options.sizes) await profileSize(size, options, layout, load);
    return;
  }
  if (options.sideBySide) {
    for (const size of options.sizes) process.stdout.write(`\n${await sideBySide(size, options, layout, load)}\n`);
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
