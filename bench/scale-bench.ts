// Scale benchmark: a store of N distinct values from many feeds, built through the real pull path (local HTTP feeds, the
// built CLI's `feeds add` and `feeds pull`), then measured: re-pulls, a mixed load during a pull, a TAXII walk, the export,
// the lifecycle and the serving processes' memory, each against its target.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseSize, Prng } from './generate-data.js';
import { getOk } from './http/client.js';
import type { Server } from './http/processes.js';
import { writeFeedFiles } from './scale/feed-files.js';
import { planFeeds, THREATS } from './scale/feed-plan.js';
import { startFeedServer, type FeedServer } from './scale/feed-server.js';
import { fullExport, INDICATORS_COLLECTION, loadDuringPull, repull, runLifecycle, serveRss, startServe, stopServer, taxiiWalk } from './scale/measure.js';
import type { LoadKind } from './scale/mixed-load.js';
import { formatTable, type BuiltFeed, type ScaleResult } from './scale/report.js';
import { addFeeds, CLI, createKey, dropStore, pullAll, ROOT, shown, storeExists, storeLocation, storeMegabytes, type StoreLocation } from './scale/store.js';
import { parentDomain, streamSeed, valueAt } from './scale/values.js';

const USAGE = `Usage: npm run bench:scale -- [options]
  --indicators N   distinct values in the store (default 10m; 20k, 200k, 1m accepted)
  --feeds N        feeds the values are spread over, lists of 100 to 2M values at 10M, scaled with N (default 100)
  --db URL         postgres://...?schema=NAME, or an SQLite file (default bench/out/scale-SIZE.sqlite)
  --workers N      serve --workers (default 2)
  --drop           drop the store (the schema, or the SQLite file) before building and at the end; without it
                   a store already there is refused, but for the default SQLite file, which is the bench's own
  --out FILE       the results as JSON (default bench/out/scale-bench-results-SIZE-STORE.json)
  --seconds S      length of the mixed load (default 30)
  --rate R         requests a second of the mixed load, open loop (default 500)
  --walk-seconds S the TAXII walk stops after S seconds, its rate taken over what it read (default 300)
  --seed S         the generator's seed (default 1)
`;

interface Options {
  indicators: number;
  feeds: number;
  location: StoreLocation;
  defaultDb: boolean;
  workers: number;
  drop: boolean;
  out: string;
  seconds: number;
  rate: number;
  /** The TAXII walk stops after this long: the whole collection of a store of millions takes far longer than the rest of the bench. */
  walkSeconds: number;
  seed: number;
  sizeLabel: string;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const OUT = join(ROOT, 'bench', 'out');
const BENCH_CONFIG = join(ROOT, 'bench', 'bench-config.json');

/** 20000 as 20k, 10000000 as 10m: the size as the options take it. */
function sizeLabel(n: number): string {
  if (n % 1_000_000 === 0) return `${n / 1_000_000}m`;
  if (n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      indicators: { type: 'string', default: '10m' },
      feeds: { type: 'string', default: '100' },
      db: { type: 'string' },
      workers: { type: 'string', default: '2' },
      drop: { type: 'boolean', default: false },
      out: { type: 'string' },
      seconds: { type: 'string', default: '30' },
      rate: { type: 'string', default: '500' },
      'walk-seconds': { type: 'string', default: '300' },
      seed: { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return null;
  }
  const whole = (name: string, n: number, min: number) => {
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}`);
    return n;
  };
  const indicators = whole('indicators', parseSize(values.indicators), 1000);
  const feeds = whole('feeds', Number(values.feeds), 2);
  if (indicators < feeds * 20) throw new Error(`--indicators must be at least 20 per feed (${feeds * 20})`);
  const label = sizeLabel(indicators);
  const location = storeLocation(values.db ?? join(OUT, `scale-${label}.sqlite`));
  return {
    indicators,
    feeds,
    location,
    defaultDb: values.db === undefined,
    workers: whole('workers', Number(values.workers), 1),
    drop: values.drop,
    out: resolve(values.out ?? join(OUT, `scale-bench-results-${label}-${location.kind}.json`)),
    seconds: whole('seconds', Number(values.seconds), 1),
    rate: whole('rate', Number(values.rate), 1),
    walkSeconds: whole('walk-seconds', Number(values['walk-seconds']), 1),
    seed: whole('seed', Number(values.seed), 0),
    sizeLabel: label,
  };
}

function gitCommit(): string {
  const result = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', 'src'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return result.status === 0 ? `${result.stdout.trim()}${dirty ? ' (src/ modified)' : ''}` : 'unknown';
}

/** `count` distinct numbers below `below` (all of them, shuffled, when there are fewer), drawn from the seed. */
function distinctSample(count: number, below: number, seed: number): number[] {
  const prng = new Prng(streamSeed(seed, 9, count));
  if (count >= below) {
    const all = Array.from({ length: below }, (_, i) => i);
    for (let i = all.length - 1; i > 0; i--) {
      const j = prng.int(0, i);
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all;
  }
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(prng.int(0, below - 1));
  return [...chosen];
}

/** The mixed load's kinds and their weights, with the explore queries of docs/explore.md's kinds. */
function loadKinds(options: Options, key: string, facts: { maxIid: number; threatTid: number; biggestFid: number; biggestName: string; linksPage: number }): { kinds: LoadKind[]; explore: Record<string, string> } {
  const k = `key=${key}`;
  const expected = (weight: number) => Math.ceil((options.rate * options.seconds * weight) / 100) + 10;
  // Each value is asked once, so the response cache answers none of them.
  const values = distinctSample(expected(30), options.indicators, options.seed).map((n) => `/api/indicator.php?indicator=${encodeURIComponent(valueAt(options.seed, n).value)}&${k}`);
  const iids = distinctSample(expected(15), facts.maxIid, options.seed + 1).map((n) => `/api/indicator.php?iid=${n + 1}&${k}`);
  const explore: Record<string, string> = {
    'explore-subdomain': `ioc=*.${parentDomain(1)}`,
    'explore-risk-age': 'risk>=high and seen>7d',
    'explore-feed-type': `feed="${facts.biggestName}" and type=domain`,
    'explore-attribute': 'attribute.status=online',
  };
  const taxii = { authorization: `Basic ${Buffer.from(`taxii2:${key}`).toString('base64')}`, accept: 'application/taxii+json;version=2.1' };
  return {
    kinds: [
      { name: 'value', weight: 30, paths: values },
      { name: 'iid', weight: 15, paths: iids },
      { name: 'threat', weight: 10, paths: [`/api/threat.php?tid=${facts.threatTid}&${k}`] },
      { name: 'links', weight: 10, paths: [`/api/feed.php?fid=${facts.biggestFid}&get=links&page=${facts.linksPage}&${k}`] },
      { name: 'taxii-tail', weight: 15, paths: [`/taxii2/api/collections/${INDICATORS_COLLECTION}/objects/?added_after={AFTER}`], headers: taxii },
      // A limit that changes from one request to the next keeps each query out of the response cache.
      ...Object.entries(explore).map(([name, q]) => ({ name, weight: 5, paths: [`/api/explore.php?q=${encodeURIComponent(q)}&limit={N}&${k}`] })),
    ],
    explore,
  };
}

/** A store to build into: refused when one is there, unless --drop (or the default SQLite file, the bench's own). */
async function prepareStore(options: Options): Promise<void> {
  if (!(await storeExists(options.location))) return;
  if (!options.drop && !options.defaultDb) throw new Error(`${shown(options.location)} already holds a store: give an empty one, or --drop to drop it first`);
  log(`dropping the store at ${shown(options.location)}`);
  await dropStore(options.location);
}

async function benchScale(options: Options): Promise<ScaleResult> {
  if (!existsSync(CLI)) throw new Error('dist/main.js is missing: npm run build');
  await mkdir(join(OUT, 'logs'), { recursive: true });
  const loadBefore = loadavg();
  // Taken now: a build of hours may end with other commits checked out than the dist/ it ran.
  const commit = gitCommit();
  const plan = planFeeds(options.feeds);
  const generateStarted = performance.now();
  const files = await writeFeedFiles(join(OUT, `scale-${options.sizeLabel}`), plan, options.indicators, options.seed, log);
  const generateSeconds = files.reused ? 0 : (performance.now() - generateStarted) / 1000;
  const filesReused = files.reused;
  await prepareStore(options);

  const server: FeedServer = await startFeedServer();
  let serve: Server | null = null;
  try {
    for (const file of files.files) server.publish(plan[file.index]!.path, file.file);
    log(`adding ${plan.length} feeds to ${shown(options.location)} …`);
    const addStarted = performance.now();
    const fids = await addFeeds(options.location, plan, server.base);
    const addSeconds = (performance.now() - addStarted) / 1000;
    log(`  ${addSeconds.toFixed(1)} s; pulling them, smallest first …`);
    const pulls = await pullAll(options.location, fids, log);
    const byFid = new Map(pulls.lines.map((line) => [line.fid, line]));
    const feeds: BuiltFeed[] = plan.map((feed, i) => ({ fid: fids[i]!, name: feed.name, format: feed.format, threat: feed.threat ?? null, pull: byFid.get(fids[i]!)! }));
    const builtIndicators = pulls.lines.reduce((sum, l) => sum + l.newIndicators, 0);
    const listings = pulls.lines.reduce((sum, l) => sum + l.values, 0);
    const buildSeconds = (performance.now() - generateStarted) / 1000;
    const storeMB = await storeMegabytes(options.location);
    log(`built: ${builtIndicators.toLocaleString('en-US')} indicators, ${listings.toLocaleString('en-US')} listings, ${storeMB.toFixed(0)} MB, pulls ${pulls.seconds.toFixed(1)} s`);

    const key = await createKey(options.location);
    serve = await startServe(options.location, options.workers, BENCH_CONFIG, join(OUT, 'logs', `scale-bench-serve-${options.sizeLabel}-${options.location.kind}.log`));
    const port = serve.port;
    log(`serve --workers ${options.workers} on port ${port}`);

    const biggest = feeds.at(-1)!;
    const second = feeds.at(-2)!;
    const threat = await getOk<{ tid: number; summary?: { risk?: { total?: number } } }>(port, `/api/threat.php?threat=${encodeURIComponent(THREATS[0]!)}&key=${key}`);

    log(`re-pulling the biggest list (${biggest.pull.values.toLocaleString('en-US')} values), unchanged …`);
    const unchanged = await repull(options.location, biggest.fid);
    log(`  ${unchanged.seconds.toFixed(1)} s`);
    const changedBiggest = files.changed.find((c) => c.index === plan.length - 1)!;
    server.publish(plan.at(-1)!.path, changedBiggest.file);
    log(`pulling it with ${changedBiggest.replaced.toLocaleString('en-US')} values replaced …`);
    const changed = { ...(await repull(options.location, biggest.fid)), replaced: changedBiggest.replaced };
    log(`  ${changed.seconds.toFixed(1)} s`);

    // The feed's links: never deleted, so those of the first pull and one per replacement (newLinks counts threat links too).
    const links = biggest.pull.values + changedBiggest.replaced;
    const linksPage = Math.min(9, Math.max(0, Math.ceil(links / 1000) - 1));
    const { kinds, explore } = loadKinds(options, key, {
      maxIid: builtIndicators + changed.line.newIndicators,
      threatTid: threat.tid,
      biggestFid: biggest.fid,
      biggestName: biggest.name,
      linksPage,
    });
    const changedSecond = files.changed.find((c) => c.index === plan.length - 2)!;
    log(`mixed load, ${options.rate}/s for ${options.seconds} s, while the second biggest list (${second.pull.values.toLocaleString('en-US')} values) is pulled with ${changedSecond.replaced.toLocaleString('en-US')} replaced …`);
    const load = await loadDuringPull(options.location, server, plan.at(-2)!.path, changedSecond.file, second.fid, port, kinds, options.rate, options.seconds);
    log(`  the pull took ${load.pull.seconds.toFixed(1)} s`);

    log('walking the indicators collection over TAXII …');
    const walk = await taxiiWalk(port, key, options.walkSeconds);
    log(`  ${walk.objects.toLocaleString('en-US')} objects in ${walk.seconds.toFixed(1)} s`);
    log('the full export …');
    const exported = await fullExport(port, key, serve);
    log(`  ${exported.seconds.toFixed(1)} s`);
    log('one lifecycle pass …');
    const lifecycle = await runLifecycle(options.location);
    log(`  ${lifecycle.seconds.toFixed(1)} s`);
    const rssEndMB = [...serveRss(serve)].map(([pid, mb]) => ({ pid, mb }));

    return {
      at: new Date().toISOString(),
      commit,
      node: process.version,
      cpus: cpus().length,
      loadBefore,
      loadAfter: loadavg(),
      store: options.location.kind,
      indicators: options.indicators,
      feeds: options.feeds,
      workers: options.workers,
      build: { generateSeconds, filesReused, addSeconds, pullSeconds: pulls.seconds, totalSeconds: buildSeconds, indicators: builtIndicators, listings, storeMB, feeds },
      biggest: { fid: biggest.fid, name: biggest.name, values: biggest.pull.values, threat: THREATS[0]!, threatTid: threat.tid, threatLinks: threat.summary?.risk?.total ?? -1 },
      unchanged,
      changed,
      load: { ...load, linksPage, explore },
      walk,
      export: exported,
      lifecycle,
      rssEndMB,
      storeMBEnd: await storeMegabytes(options.location),
    };
  } finally {
    if (serve !== null) await stopServer(serve);
    await server.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  if (options === null) return;
  let result: ScaleResult;
  try {
    result = await benchScale(options);
  } finally {
    if (options.drop) await dropStore(options.location);
  }
  await mkdir(resolve(options.out, '..'), { recursive: true });
  await writeFile(options.out, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`\n${formatTable(result)}\n\nresults: ${options.out}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`scale-bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
