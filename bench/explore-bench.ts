// Explore over a large store (docs/explore.md): builds a store of N generated indicators through the
// import path, then times each query kind through Store.explore (p50, p95), and the lookups a serving process
// answers while explore queries run: on SQLite beside the explore worker thread, on PostgreSQL beside
// the explore queries holding connections of the same pool.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { exploreFilter } from '../src/explore/explore-filters.js';
import { importFile } from '../src/import/import-file.js';
import { BACKGROUND_BUSY_MS, openStore } from '../src/store/open-store.js';
import type { ExploreIndicatorRow, ExploreQuery, ExploreThreatRow } from '../src/store/contract/explore.js';
import type { Store } from '../src/store/contract/store.js';
import { generateData } from './generate-data.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

const USAGE = `Usage: npm run bench:explore -- [--indicators 1000000] [--db URL] [--runs 20] [--max-millis 3000] [--out-dir bench/out]
  --indicators  generated indicators (default 1,000,000; 50k, 1m accepted)
  --db          a PostgreSQL URL (postgres://...?schema=NAME) or an SQLite file (default OUT_DIR/explore-N.sqlite);
                the store is imported from the generated data when it holds none
  --runs        timed runs of each query, after one untimed (default 20)
  --max-millis  each query's deadline (default 3000, the configuration's default)`;

interface Options {
  indicators: number;
  db: string | undefined;
  runs: number;
  maxMillis: number;
  outDir: string;
}

function count(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.replace(/[,_]/g, ''));
  if (match === null) throw new Error(`not a count: ${text}`);
  return Math.round(Number(match[1]) * { '': 1, k: 1000, m: 1_000_000 }[match[2]!.toLowerCase() as '' | 'k' | 'm']);
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      indicators: { type: 'string', default: '1m' },
      db: { type: 'string' },
      runs: { type: 'string', default: '20' },
      'max-millis': { type: 'string', default: '3000' },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  return { indicators: count(values.indicators!), db: values.db, runs: count(values.runs!), maxMillis: count(values['max-millis']!), outDir: resolve(values['out-dir']!) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const round = (ms: number) => Math.round(ms * 10) / 10;

interface QueryResult {
  name: string;
  mode: 'indicators' | 'threats';
  q: string;
  rows: number;
  more: boolean;
  timedOut: number;
  p50: number;
  p95: number;
  max: number;
}

/** The store of `options`, imported from generated data when it is empty. */
async function openBenchStore(options: Options, collections: ReturnType<typeof loadConfig>['collections']): Promise<{ store: Store; location: string; importSeconds: number | null }> {
  mkdirSync(options.outDir, { recursive: true });
  const location = options.db ?? join(options.outDir, `explore-${options.indicators}.sqlite`);
  const store = await openStore(location, { collections, busyTimeoutMs: BACKGROUND_BUSY_MS });
  if (!(await store.isEmpty())) return { store, location, importSeconds: null };
  const data = join(options.outDir, `explore-data-${options.indicators}.ndjson`);
  if (!existsSync(data)) {
    log(`generating ${options.indicators} indicators into ${data}`);
    await generateData(data, { indicators: options.indicators, seed: 1 });
  }
  log(`importing ${data}`);
  const started = Date.now();
  await importFile(store, data, { now: () => Date.now() });
  return { store, location, importSeconds: round((Date.now() - started) / 1000) };
}

/** Queries of each kind, their values taken from the store so that each selects something. */
async function queriesOf(store: Store, now: number): Promise<{ name: string; mode: 'indicators' | 'threats'; q: string }[]> {
  const first = async (q: string) => {
    const result = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', q, now), offset: 0, limit: 1, maxMillis: 60_000 });
    if (result.timedOut === true || result.mode !== 'indicators' || result.rows[0] === undefined) throw new Error(`no indicator for ${q}`);
    return result.rows[0] as ExploreIndicatorRow;
  };
  const domain = await first('type=domain');
  const address = await first('type=ip');
  const withFeed = await first('type=url');
  const threat = await store.explore({ mode: 'threats', filter: { kind: 'and', filters: [] }, offset: 0, limit: 1, maxMillis: 60_000 });
  const threatName = threat.timedOut !== true && threat.mode === 'threats' ? (threat.rows[0] as ExploreThreatRow | undefined)?.threat : undefined;
  const tld = domain.indicator.split('.').slice(-1)[0]!;
  // A month before the newest indicator was added: the store's own clock, whenever it was generated.
  const monthBefore = new Date(Date.parse(`${(domain.stamp_added ?? '2026-01-01 00:00:00').replace(' ', 'T')}Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
  const middle = domain.indicator.slice(1, 5);
  const [a, b] = address.indicator.split('.');
  return [
    { name: 'exact', mode: 'indicators', q: `ioc=${domain.indicator}` },
    { name: 'address (and the blocks holding it)', mode: 'indicators', q: `ioc=${address.indicator}` },
    { name: 'subdomain wildcard (none below)', mode: 'indicators', q: `ioc=*.${domain.indicator}` },
    { name: 'suffix wildcard (a whole TLD)', mode: 'indicators', q: `ioc=*.${tld}` },
    { name: 'infix wildcard', mode: 'indicators', q: `ioc=*${middle}*` },
    { name: 'risk + age', mode: 'indicators', q: `risk>=high and added>${monthBefore}` },
    { name: 'feed + type', mode: 'indicators', q: `feed="${withFeed.feeds[0] ?? 'none'}" and type=url` },
    { name: 'attribute', mode: 'indicators', q: 'attribute.port=8443' },
    { name: 'block', mode: 'indicators', q: `ioc=${a}.${b}.0.0/16` },
    { name: 'threat name', mode: 'indicators', q: `threat="${threatName ?? 'none'}"` },
    { name: 'threats by technique', mode: 'threats', q: 'ttp=T1059' },
  ];
}

async function timeQuery(store: Store, query: { name: string; mode: 'indicators' | 'threats'; q: string }, options: Options, now: number): Promise<QueryResult> {
  const ask = (): ExploreQuery =>
    query.mode === 'indicators'
      ? { mode: 'indicators', filter: exploreFilter('indicators', query.q, now), offset: 0, limit: 100, maxMillis: options.maxMillis }
      : { mode: 'threats', filter: exploreFilter('threats', query.q, now), offset: 0, limit: 100, maxMillis: options.maxMillis };
  const times: number[] = [];
  let timedOut = 0;
  let rows = 0;
  let more = false;
  for (let run = 0; run <= options.runs; run += 1) {
    const started = performance.now();
    const result = await store.explore(ask());
    const took = performance.now() - started;
    if (run === 0) continue;
    times.push(took);
    if (result.timedOut === true) timedOut += 1;
    else {
      rows = result.rows.length;
      more = result.more;
    }
  }
  times.sort((x, y) => x - y);
  return { ...query, rows, more, timedOut, p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(times[times.length - 1]!) };
}

/** Lookups by value on the calling thread, back to back for `ms`, with explore queries running meanwhile or not. */
async function lookupLatency(store: Store, values: string[], ms: number, explore: (() => Promise<unknown>) | null): Promise<{ lookups: number; p50: number; p95: number; max: number; explores: number }> {
  const times: number[] = [];
  let explores = 0;
  let stop = false;
  const background = (async () => {
    while (explore !== null && !stop) {
      await explore();
      explores += 1;
    }
  })();
  const until = performance.now() + ms;
  for (let i = 0; performance.now() < until; i += 1) {
    const started = performance.now();
    await store.findIndicatorByValue(values[i % values.length]!, ['domain', 'ip', 'url']);
    times.push(performance.now() - started);
    // A request every 2 ms, as a serving thread answers them one after another with others' work between.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  stop = true;
  await background;
  times.sort((x, y) => x - y);
  return { lookups: times.length, p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), max: round(times[times.length - 1]!), explores };
}

async function main(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (options === null) {
    log(USAGE);
    return;
  }
  const config = loadConfig({});
  const { store, location, importSeconds } = await openBenchStore(options, config.collections);
  try {
    const now = Date.now();
    const queries = await queriesOf(store, now);
    const results: QueryResult[] = [];
    for (const query of queries) {
      const result = await timeQuery(store, query, options, now);
      results.push(result);
      log(`${result.name.padEnd(38)} p50 ${String(result.p50).padStart(8)} ms  p95 ${String(result.p95).padStart(8)} ms  rows ${result.rows}${result.more ? '+' : ''}${result.timedOut ? `  timed out ${result.timedOut}/${options.runs}` : ''}   ${result.q}`);
    }
    let lookups: { exploring_with: string; idle: Awaited<ReturnType<typeof lookupLatency>>; exploring: Awaited<ReturnType<typeof lookupLatency>> } | undefined;
    {
      const values = [];
      for (const q of ['type=domain', 'type=ip', 'type=url']) {
        const page = await store.explore({ mode: 'indicators', filter: exploreFilter('indicators', q, now), offset: 0, limit: 100, maxMillis: 60_000 });
        if (page.timedOut !== true && page.mode === 'indicators') values.push(...page.rows.map((r) => r.indicator));
      }
      // Meanwhile, back to back, the indicator query that was slowest on this store (p95).
      const slowest = results.filter((r) => r.mode === 'indicators').sort((x, y) => y.p95 - x.p95)[0]!;
      log(`lookups while \`${slowest.q}\` (${slowest.name}) runs back to back:`);
      const slow = () => store.explore({ mode: 'indicators', filter: exploreFilter('indicators', slowest.q, now), offset: 0, limit: 100, maxMillis: options.maxMillis });
      lookups = { exploring_with: slowest.name, idle: await lookupLatency(store, values, 5000, null), exploring: await lookupLatency(store, values, 5000, slow) };
      log(`lookups idle:             p50 ${lookups.idle.p50} ms, p95 ${lookups.idle.p95} ms, max ${lookups.idle.max} ms (${lookups.idle.lookups})`);
      log(`lookups while exploring:  p50 ${lookups.exploring.p50} ms, p95 ${lookups.exploring.p95} ms, max ${lookups.exploring.max} ms (${lookups.exploring.lookups}; ${lookups.exploring.explores} explores)`);
    }
    const out = join(options.outDir, `explore-bench-results-${options.indicators}${location.startsWith('postgres') ? '-postgres' : ''}.json`);
    writeFileSync(out, `${JSON.stringify({ indicators: options.indicators, store: location.startsWith('postgres') ? 'postgres' : 'sqlite', importSeconds, load: loadavg(), queries: results, lookups }, null, 2)}\n`);
    log(`results: ${out}`);
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
