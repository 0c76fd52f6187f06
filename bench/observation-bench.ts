// Observations at scale (docs/observations.md): two stores of the same N generated indicators, one
// given M sightings spread Zipf-like over its indicators and some threats, the other none; their
// lookups and lifecycle runs are timed side by side, to show that sightings are rows each lookup
// reads a bounded part of, counted as they arrive, never counted over per lookup. The first
// sightings go through the store's write path; the rest are inserted in bulk with the counters set
// as that path sets them, checked on a sample against counts over the rows.
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql, type Kysely } from 'kysely';
import { formatStamp, type Clock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { importFile } from '../src/import/import-file.js';
import { runLifecycle } from '../src/lifecycle/run-lifecycle.js';
import type { SightingPlan, SightingTarget } from '../src/store/contract/observations.js';
import type { Store } from '../src/store/contract/store.js';
import { noBatches } from '../src/store/contract/write-batch.js';
import type { Dialect } from '../src/store/db/dialect.js';
import type { Database } from '../src/store/db/schema.js';
import { BACKGROUND_BUSY_MS, openDatabase } from '../src/store/open-store.js';
import { createStore } from '../src/store/store.js';
import { generateData, parseSize, Prng } from './generate-data.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

const USAGE = `Usage: npm run bench:observations -- [--indicators 200000] [--sightings 1000000] [--db URL] [--runs 10]
  --indicators  generated indicators, imported into two new stores (default 200,000; 20k, 1m accepted)
  --sightings   sightings added to one of them (default 1,000,000)
  --real        how many of them go through Store.applyWrite, one write each (default 10,000); the rest in bulk
  --real-seconds  the writes stop after this many seconds even if fewer (default 300)
  --lookups     lookups of each kind in the sample (default 4,000)
  --rounds      timed passes over the sample on each store, the two taking turns every 100 lookups (default 3)
  --runs        timed lifecycle runs on each store, alternating, the median reported (default 10)
  --db          a PostgreSQL URL with a schema, postgres://...?schema=NAME: the stores are the schemas NAME and
                NAME_none, both empty or absent; or an SQLite file (default OUT_DIR/observations-N.sqlite,
                made anew each run, its twin FILE-none.sqlite beside it)
  --drop        drop the PostgreSQL schemas (or remove the SQLite files) at the end`;

interface Options {
  indicators: number;
  sightings: number;
  real: number;
  realSeconds: number;
  lookups: number;
  rounds: number;
  runs: number;
  db: string | undefined;
  drop: boolean;
  outDir: string;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      indicators: { type: 'string', default: '200k' },
      sightings: { type: 'string', default: '1m' },
      real: { type: 'string', default: '10k' },
      'real-seconds': { type: 'string', default: '300' },
      lookups: { type: 'string', default: '4000' },
      rounds: { type: 'string', default: '3' },
      runs: { type: 'string', default: '10' },
      db: { type: 'string' },
      drop: { type: 'boolean', default: false },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return null;
  if (values.db !== undefined && /^postgres(ql)?:\/\//.test(values.db) && new URL(values.db).searchParams.get('schema') === null) {
    throw new Error('--db: a PostgreSQL URL must name a schema (?schema=NAME): the bench makes NAME and NAME_none');
  }
  const sightings = parseSize(values.sightings!);
  for (const name of ['indicators', 'lookups', 'rounds', 'runs'] as const) {
    if (parseSize(values[name]!) < 1) throw new Error(`--${name} must be 1 or more, not ${values[name]}`);
  }
  return {
    indicators: parseSize(values.indicators!),
    sightings,
    real: Math.min(sightings, parseSize(values.real!)),
    realSeconds: parseSize(values['real-seconds']!),
    lookups: parseSize(values.lookups!),
    rounds: parseSize(values.rounds!),
    runs: parseSize(values.runs!),
    db: values.db,
    drop: values.drop!,
    outDir: resolve(values['out-dir']!),
  };
}

const DAY_MS = 86_400_000;
/**
 * The store's "now": a month after the generated data's last stamps, so the first lifecycle run
 * retires the threats that data left unobserved for the configured days, as a live store's would.
 */
const NOW = Date.UTC(2025, 6, 31);
/** Sightings arrive over the half year before NOW. */
const SPAN_MS = 180 * DAY_MS;
/** One sighting in this many is of a threat itself, the rest of indicators. */
const THREAT_SHARE = 0.05;
const PAGE = 20;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const round = (ms: number, places = 3) => Math.round(ms * 10 ** places) / 10 ** places;
const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);

interface Timing {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

function timingOf(times: number[]): Timing {
  const sorted = [...times].sort((a, b) => a - b);
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), max: round(sorted.at(-1) ?? Number.NaN) };
}

/** Ranks drawn with probability 1/(rank+1): a few ranks drawn very often, most rarely or never. */
class Zipf {
  private readonly cumulative: Float64Array;

  constructor(size: number) {
    this.cumulative = new Float64Array(size);
    let sum = 0;
    for (let r = 0; r < size; r++) this.cumulative[r] = sum += 1 / (r + 1);
    for (let r = 0; r < size; r++) this.cumulative[r]! /= sum;
  }

  draw(rng: Prng): number {
    const u = rng.next();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Keys in a random order: the Zipf ranks map onto them, so the most-sighted are spread over the store. */
function shuffled(keys: number[], rng: Prng): number[] {
  const out = [...keys];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const REPORTERS = [
  { keyId: 'k_soc00001', label: 'soc desk' },
  { keyId: 'k_edr00002', label: 'edr bridge' },
  { keyId: 'k_ir000003', label: 'incident response' },
  { keyId: 'k_hunt0004', label: 'threat hunting' },
  { keyId: null, label: 'command line' },
];

/** The M sightings, deterministic: seen times rise with their order (give or take two days), as reports arrive. */
function* sightingsOf(count: number, iids: number[], tids: number[], seed: number): Generator<SightingPlan> {
  const rng = new Prng(seed);
  const byIndicator = new Zipf(iids.length);
  const byThreat = new Zipf(tids.length);
  const start = NOW - SPAN_MS;
  for (let s = 0; s < count; s++) {
    const target = tids.length > 0 && rng.chance(THREAT_SHARE) ? { tid: tids[byThreat.draw(rng)]! } : { iid: iids[byIndicator.draw(rng)]! };
    const seen = Math.max(start, start + Math.floor((s / count) * SPAN_MS) - rng.int(0, 2 * DAY_MS));
    const reported = Math.min(NOW, seen + rng.int(0, 6 * 3600_000));
    yield {
      target,
      by: rng.pick(REPORTERS),
      reportedAt: formatStamp(reported),
      seenAt: formatStamp(seen),
      count: rng.chance(0.85) ? 1 : rng.int(2, 50),
      note: rng.chance(0.3) ? `case ${rng.int(1000, 99_999)}` : null,
    };
  }
}

/** A clock at `start` that moves on a second each time it is read: every write gets a later time. */
function tickingClock(start: number): Clock {
  let now = start;
  return { now: () => (now += 1000) };
}
const lifecycleClock: Clock = { now: () => NOW };

interface Opened {
  db: Kysely<Database>;
  dialect: Dialect;
  store: Store;
  location: string;
}

/** The two stores compared: `sighted` gets the sightings, `none` keeps the same data without. */
interface Twins {
  sighted: Opened;
  none: Opened;
}

const shown = (location: string) => location.replace(/\/\/[^@]*@/, '//…@');

/**
 * Two new stores of N generated indicators: SQLite files copied from one imported before, or two
 * empty PostgreSQL schemas each imported into.
 */
async function openTwins(options: Options): Promise<{ twins: Twins; importSeconds: number | null }> {
  mkdirSync(options.outDir, { recursive: true });
  const config = loadConfig({});
  const open = async (location: string): Promise<Opened> => {
    const { db, dialect } = await openDatabase(location, { busyTimeoutMs: BACKGROUND_BUSY_MS });
    return { db, dialect, location, store: createStore(db, dialect, { collections: config.collections, sightings: config.stix.sightings, busyTimeoutMs: BACKGROUND_BUSY_MS }) };
  };
  const importInto = async (store: Store) => {
    // The explore bench's data set: the same generator and seed give the same file.
    const data = join(options.outDir, `explore-data-${options.indicators}.ndjson`);
    if (!existsSync(data)) {
      log(`generating ${options.indicators} indicators into ${data}`);
      await generateData(data, { indicators: options.indicators, seed: 1 });
    }
    log(`importing ${data}`);
    const started = performance.now();
    await importFile(store, data, { now: () => NOW - DAY_MS });
    const seconds = round((performance.now() - started) / 1000, 1);
    log(`  imported in ${seconds} s`);
    return seconds;
  };
  let importSeconds: number | null = null;
  if (options.db === undefined || !/^postgres(ql)?:\/\//.test(options.db)) {
    // The bench changes its stores: each run starts from copies of the imported one.
    const base = join(options.outDir, `observations-base-${options.indicators}.sqlite`);
    if (!existsSync(base)) {
      const opened = await open(base);
      importSeconds = await importInto(opened.store);
      await opened.store.close();
    }
    const sighted = options.db ?? join(options.outDir, `observations-${options.indicators}.sqlite`);
    const none = sighted.replace(/(\.sqlite)?$/, '-none.sqlite');
    for (const file of [sighted, none]) {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
      copyFileSync(base, file);
    }
    return { twins: { sighted: await open(sighted), none: await open(none) }, importSeconds };
  }
  const url = new URL(options.db);
  const noneUrl = new URL(options.db);
  noneUrl.searchParams.set('schema', `${url.searchParams.get('schema')}_none`);
  const twins = { sighted: await open(options.db), none: await open(noneUrl.toString()) };
  for (const opened of [twins.sighted, twins.none]) {
    if (!(await opened.store.isEmpty())) {
      await Promise.all([twins.sighted.store.close(), twins.none.store.close()]);
      throw new Error(`${shown(opened.location)} already holds a store: the bench changes its data, so give it a schema that is empty or absent`);
    }
    const seconds = await importInto(opened.store);
    importSeconds ??= seconds;
  }
  return { twins, importSeconds };
}

interface LookupSample {
  indicators: { iid: number; value: string; type: string }[];
  tids: number[];
}

/** Half uniform over the store, half drawn as the sightings will be (most of those sighted after). */
async function lookupSample(db: Kysely<Database>, ranked: number[], rankedTids: number[], size: number): Promise<LookupSample> {
  const rng = new Prng(7);
  const zipf = new Zipf(ranked.length);
  const zipfTids = new Zipf(rankedTids.length);
  const iids: number[] = [];
  const tids: number[] = [];
  for (let i = 0; i < size; i++) {
    iids.push(i % 2 === 0 ? ranked[Math.floor(rng.next() * ranked.length)]! : ranked[zipf.draw(rng)]!);
    if (rankedTids.length > 0) tids.push(i % 2 === 0 ? rankedTids[Math.floor(rng.next() * rankedTids.length)]! : rankedTids[zipfTids.draw(rng)]!);
  }
  const rows = new Map<number, { iid: number; value: string; type: string }>();
  const distinct = [...new Set(iids)];
  for (let i = 0; i < distinct.length; i += 500) {
    const page = await db.selectFrom('indicators').select(['iid', 'value', 'type']).where('iid', 'in', distinct.slice(i, i + 500)).execute();
    for (const r of page) rows.set(Number(r.iid), { iid: Number(r.iid), value: r.value, type: r.type });
  }
  return { indicators: iids.map((iid) => rows.get(iid)!), tids };
}

type LookupName = 'indicator by value' | 'indicator by iid' | 'threat by tid' | 'sightings page of an indicator';
const LOOKUPS: LookupName[] = ['indicator by value', 'indicator by iid', 'threat by tid', 'sightings page of an indicator'];

/** Lookups of one kind over the sample from `from` to `to`: each one's time in ms. */
async function lookupRun(store: Store, sample: LookupSample, name: LookupName, from: number, to: number): Promise<number[]> {
  const lookup: (i: number) => Promise<unknown> = {
    'indicator by value': (i: number) => store.findIndicatorByValue(sample.indicators[i]!.value, [sample.indicators[i]!.type]),
    'indicator by iid': (i: number) => store.findIndicator(sample.indicators[i]!.iid),
    'threat by tid': (i: number) => store.findThreat(sample.tids[i]!),
    'sightings page of an indicator': (i: number) => store.listSightings({ iid: sample.indicators[i]!.iid }, PAGE),
  }[name];
  const times: number[] = [];
  for (let i = from; i < to; i++) {
    const started = performance.now();
    const found = await lookup(i);
    times.push(performance.now() - started);
    if (found === undefined) throw new Error(`${name}: nothing found for sample ${i}`);
  }
  return times;
}

/** Lookups in a row on one store before the other's turn. */
const STRETCH = 100;

/**
 * Each lookup kind on both stores, taking turns every STRETCH lookups (which goes first alternating),
 * after two untimed passes over the sample on each (V8 compiles the lookups' code over the first
 * ones, and each store's cache fills). Side by side, a drift of the machine's speed (a shared VM's
 * moves by tens of percent within minutes) falls on both alike.
 */
async function compareLookups(twins: Twins, sample: LookupSample, rounds: number): Promise<{ none: Record<LookupName, Timing>; sighted: Record<LookupName, Timing> }> {
  const out = { none: {} as Record<LookupName, Timing>, sighted: {} as Record<LookupName, Timing> };
  for (const name of LOOKUPS) {
    const n = name === 'threat by tid' ? sample.tids.length : sample.indicators.length;
    const times: { none: number[]; sighted: number[] } = { none: [], sighted: [] };
    for (let pass = 0; pass < 2; pass++) for (const side of ['none', 'sighted'] as const) await lookupRun(twins[side].store, sample, name, 0, n);
    for (let round = 0, turn = 0; round < rounds; round++) {
      for (let from = 0; from < n; from += STRETCH, turn++) {
        for (const side of turn % 2 === 0 ? (['none', 'sighted'] as const) : (['sighted', 'none'] as const)) {
          times[side].push(...(await lookupRun(twins[side].store, sample, name, from, Math.min(n, from + STRETCH))));
        }
      }
    }
    out.none[name] = timingOf(times.none);
    out.sighted[name] = timingOf(times.sighted);
  }
  return out;
}

interface LifecycleTiming {
  runs: number[];
  median: number;
  retired: number;
}

/**
 * Lifecycle runs at the time of the first, so that each retires nothing more and the runs compare.
 * Each timed run follows an untimed one on the same store: a run right after one on the other store
 * pays for the switch (its pages and statements are no longer in the caches) and would measure that.
 * Which store goes first alternates from round to round.
 */
async function compareLifecycle(twins: Twins, runs: number): Promise<{ none: LifecycleTiming; sighted: LifecycleTiming }> {
  const settings = loadConfig({}).lifecycle;
  const times = { none: [] as number[], sighted: [] as number[] };
  const retired = { none: 0, sighted: 0 };
  for (let run = 0; run < runs; run++) {
    for (const side of run % 2 === 0 ? (['none', 'sighted'] as const) : (['sighted', 'none'] as const)) {
      await runLifecycle(twins[side].store, settings, lifecycleClock);
      const started = performance.now();
      const counts = await runLifecycle(twins[side].store, settings, lifecycleClock);
      times[side].push(performance.now() - started);
      retired[side] += counts.retiredThreats.length + counts.agedIndicators;
    }
  }
  const timing = (side: 'none' | 'sighted'): LifecycleTiming => ({ runs: times[side].map((t) => round(t, 1)), median: round(median(times[side]), 1), retired: retired[side] });
  return { none: timing('none'), sighted: timing('sighted') };
}

/** Rows and the counters, as applySighting (src/store/ingest/observation-writer.ts) would leave them for the same sightings. */
async function insertInBulk(db: Kysely<Database>, dialect: Dialect, plans: Iterable<SightingPlan>, after: number): Promise<number> {
  let rows = 0;
  await db.transaction().execute(async (trx) => {
    let chunk: SightingPlan[] = [];
    const flush = async () => {
      if (chunk.length === 0) return;
      const col = <T>(pick: (p: SightingPlan) => T) => chunk.map(pick);
      const iid = col((p) => ('iid' in p.target ? p.target.iid : null));
      const tid = col((p) => ('tid' in p.target ? p.target.tid : null));
      if (dialect === 'postgres') {
        await sql`insert into sightings (iid, tid, reported_by, reported_by_label, reported_at, seen_at, "count", note)
          select * from unnest(${iid}::bigint[], ${tid}::bigint[], ${col((p) => p.by.keyId)}::text[], ${col((p) => p.by.label)}::text[],
            ${col((p) => p.reportedAt)}::text[], ${col((p) => p.seenAt)}::text[], ${col((p) => p.count)}::bigint[], ${col((p) => p.note)}::text[])`.execute(trx);
      } else {
        await trx
          .insertInto('sightings')
          .values(chunk.map((p, n) => ({ iid: iid[n]!, tid: tid[n]!, reported_by: p.by.keyId, reported_by_label: p.by.label, reported_at: p.reportedAt, seen_at: p.seenAt, count: p.count, note: p.note })))
          .execute();
      }
      rows += chunk.length;
      if (rows % 100_000 < chunk.length) log(`  ${rows} rows`);
      chunk = [];
    };
    for (const plan of plans) {
      chunk.push(plan);
      if (chunk.length === (dialect === 'postgres' ? 10_000 : 1000)) await flush();
    }
    await flush();
    const later = (column: string, value: string) => sql.raw(`case when ${column} is null or ${column} < ${value} then ${value} else ${column} end`);
    const earlier = (column: string, value: string) => sql.raw(`case when ${column} is null or ${column} > ${value} then ${value} else ${column} end`);
    await sql`update indicators set sightings = indicators.sightings + n.total,
        stamp_sighted = ${later('indicators.stamp_sighted', 'n.last_seen')}, stamp_first_sighted = ${earlier('indicators.stamp_first_sighted', 'n.first_seen')},
        stamp_seen = ${later('indicators.stamp_seen', 'n.last_seen')}
      from (select iid, sum("count") as total, max(seen_at) as last_seen, min(seen_at) as first_seen from sightings
        where id > ${after} and iid is not null group by iid) as n
      where indicators.iid = n.iid`.execute(trx);
    await sql`update threats set sightings = threats.sightings + n.total,
        stamp_sighted = ${later('threats.stamp_sighted', 'n.last_seen')}, stamp_seen = ${later('threats.stamp_seen', 'n.last_seen')}
      from (select tid, sum("count") as total, max(seen_at) as last_seen from sightings where id > ${after} and tid is not null group by tid) as n
      where threats.tid = n.tid`.execute(trx);
    // An indicator's sighting observes the threats it is linked to, retired ones too.
    await sql`update threats set stamp_seen = n.last_seen
      from (select tl.tid, max(s.seen_at) as last_seen from sightings s join threat_links tl on tl.iid = s.iid where s.id > ${after} group by tl.tid) as n
      where threats.tid = n.tid and (threats.stamp_seen is null or threats.stamp_seen < n.last_seen)`.execute(trx);
  });
  return rows;
}

/**
 * The store as it settles when left alone, before each measurement: on PostgreSQL the tables the
 * measurements read vacuumed and analyzed, as autovacuum leaves them after an import or a million
 * new rows; on SQLite the write-ahead log copied back into the file, as its checkpoints do.
 */
async function settle(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`vacuum (analyze) indicators, threats, feeds, threat_links, feed_links, sightings`.execute(db);
  else await sql`pragma wal_checkpoint(truncate)`.execute(db);
}

interface Before {
  indicators: Map<number, string | null>;
  threats: Map<number, string | null>;
}

const laterStamp = (...stamps: (string | null | undefined)[]) => stamps.reduce<string | null>((a, b) => (b == null ? a : a === null || b > a ? b : a), null);

/** Each sampled record's counters against counts over its rows, and its stamp_seen against its stamp before and its sightings'. */
async function checkCounters(db: Kysely<Database>, before: Before): Promise<{ checked: number; sighted: number; mismatches: string[] }> {
  const mismatches: string[] = [];
  let sighted = 0;
  for (const [iid, seenBefore] of before.indicators) {
    const row = await db.selectFrom('indicators').select(['sightings', 'stamp_sighted', 'stamp_first_sighted', 'stamp_seen']).where('iid', '=', iid).executeTakeFirstOrThrow();
    const { rows } = await sql<{ total: string | number | null; last_seen: string | null; first_seen: string | null }>`
      select sum("count") as total, max(seen_at) as last_seen, min(seen_at) as first_seen from sightings where iid = ${iid}`.execute(db);
    const agg = rows[0]!;
    if (Number(agg.total ?? 0) > 0) sighted += 1;
    const expected = { sightings: Number(agg.total ?? 0), stamp_sighted: agg.last_seen, stamp_first_sighted: agg.first_seen, stamp_seen: laterStamp(seenBefore, agg.last_seen) };
    const got = { sightings: Number(row.sightings), stamp_sighted: row.stamp_sighted, stamp_first_sighted: row.stamp_first_sighted, stamp_seen: row.stamp_seen };
    if (JSON.stringify(expected) !== JSON.stringify(got)) mismatches.push(`indicator ${iid}: stored ${JSON.stringify(got)}, over its rows ${JSON.stringify(expected)}`);
  }
  for (const [tid, seenBefore] of before.threats) {
    const row = await db.selectFrom('threats').select(['sightings', 'stamp_sighted', 'stamp_seen']).where('tid', '=', tid).executeTakeFirstOrThrow();
    const { rows } = await sql<{ total: string | number | null; last_seen: string | null }>`
      select sum("count") as total, max(seen_at) as last_seen from sightings where tid = ${tid}`.execute(db);
    const { rows: linked } = await sql<{ last_seen: string | null }>`
      select max(s.seen_at) as last_seen from threat_links tl join sightings s on s.iid = tl.iid where tl.tid = ${tid}`.execute(db);
    const expected = { sightings: Number(rows[0]!.total ?? 0), stamp_sighted: rows[0]!.last_seen, stamp_seen: laterStamp(seenBefore, rows[0]!.last_seen, linked[0]!.last_seen) };
    const got = { sightings: Number(row.sightings), stamp_sighted: row.stamp_sighted, stamp_seen: row.stamp_seen };
    if (JSON.stringify(expected) !== JSON.stringify(got)) mismatches.push(`threat ${tid}: stored ${JSON.stringify(got)}, over its rows ${JSON.stringify(expected)}`);
  }
  return { checked: before.indicators.size + before.threats.size, sighted, mismatches };
}

/** Pages of the most-sighted indicator and threat: the newest, one from the middle and the oldest (beforeId). */
async function timeDeepPages(db: Kysely<Database>, store: Store): Promise<Record<string, Timing & { sightings: number }>> {
  const out: Record<string, Timing & { sightings: number }> = {};
  const top = await db.selectFrom('indicators').select('iid').orderBy('sightings', 'desc').limit(1).executeTakeFirstOrThrow();
  const topThreat = await db.selectFrom('threats').select('tid').orderBy('sightings', 'desc').limit(1).executeTakeFirst();
  const targets: { name: string; target: SightingTarget }[] = [{ name: 'most-sighted indicator', target: { iid: Number(top.iid) } }];
  if (topThreat !== undefined) targets.push({ name: 'most-sighted threat', target: { tid: Number(topThreat.tid) } });
  for (const { name, target } of targets) {
    const where = 'iid' in target ? sql`iid = ${target.iid}` : sql`tid = ${target.tid}`;
    const { rows } = await sql<{ n: string | number }>`select count(*) as n from sightings where ${where}`.execute(db);
    const n = Number(rows[0]!.n);
    const idAt = async (offset: number) =>
      Number((await sql<{ id: number }>`select id from sightings where ${where} order by id desc limit 1 offset ${offset}`.execute(db)).rows[0]?.id);
    const pages: [string, number | undefined][] = [['page 1', undefined]];
    if (n > 2 * PAGE) pages.push(['a middle page', await idAt(Math.floor(n / 2))], ['the last page', await idAt(n - PAGE - 1)]);
    for (const [page, beforeId] of pages) {
      const times: number[] = [];
      for (let run = 0; run <= 200; run++) {
        const started = performance.now();
        const got = await store.listSightings(target, PAGE, beforeId);
        if (run > 0) times.push(performance.now() - started);
        if (got.length === 0) throw new Error(`${name}, ${page}: no sightings`);
      }
      out[`${name} (${n} sightings), ${page}`] = { ...timingOf(times), sightings: n };
    }
  }
  return out;
}

/** The records the counters are checked on, with their stamp_seen before: a sighting raises it, never lowers it. */
async function checkSample(db: Kysely<Database>, ranked: number[], rankedTids: number[]): Promise<Before> {
  const rng = new Prng(17);
  const zipf = new Zipf(ranked.length);
  const iids = new Set<number>();
  while (iids.size < Math.min(100, ranked.length)) iids.add(iids.size % 2 === 0 ? ranked[zipf.draw(rng)]! : ranked[Math.floor(rng.next() * ranked.length)]!);
  const tids = new Set(rankedTids.slice(0, 10).concat(shuffled(rankedTids, rng).slice(0, 10)));
  const stampsOf = async (table: 'indicators' | 'threats', keys: number[]) => {
    if (keys.length === 0) return new Map<number, string | null>();
    const key = table === 'indicators' ? 'iid' : 'tid';
    const { rows } = await sql<{ k: number; stamp_seen: string | null }>`select ${sql.ref(key)} as k, stamp_seen from ${sql.table(table)} where ${sql.ref(key)} in (${sql.join(keys)})`.execute(db);
    return new Map(rows.map((r) => [Number(r.k), r.stamp_seen]));
  };
  return { indicators: await stampsOf('indicators', [...iids]), threats: await stampsOf('threats', [...tids]) };
}

/**
 * The M sightings: the first `real` through Store.applyWrite, one write each (for at most
 * `realSeconds`), timed by the write's stages; the rest in bulk.
 */
async function addSightings(opened: { db: Kysely<Database>; dialect: Dialect; store: Store }, options: Options, ranked: number[], rankedTids: number[]) {
  const { db, dialect, store } = opened;
  const plans = sightingsOf(options.sightings, ranked, rankedTids, 23);
  log(`adding ${options.sightings} sightings: the first ${options.real} through Store.applyWrite (for at most ${options.realSeconds} s)`);
  const clock = tickingClock(NOW);
  const realStarted = performance.now();
  const until = realStarted + options.realSeconds * 1000;
  const stages: Record<string, number> = { ingest: 0, derive: 0, project: 0, commit: 0 };
  let lastId = 0;
  let written = 0;
  while (written < options.real && (written === 0 || performance.now() < until)) {
    let stage = 'ingest';
    let since = performance.now();
    const onPhase = (next: string) => {
      stages[stage] = stages[stage]! + performance.now() - since;
      [stage, since] = [next, performance.now()];
    };
    const result = await store.applyWrite({ kind: 'sighting', plan: plans.next().value as SightingPlan }, noBatches(), clock, { onPhase });
    onPhase('ingest');
    lastId = result.sighted.id;
    written += 1;
  }
  const realSeconds = (performance.now() - realStarted) / 1000;
  const perWrite = Object.fromEntries(Object.entries(stages).map(([name, ms]) => [name, round(ms / written, 2)]));
  const real = { sightings: written, seconds: round(realSeconds, 1), perSecond: round(written / realSeconds, 1), perWriteMs: perWrite };
  log(`  ${real.sightings} sightings in ${real.seconds} s: ${real.perSecond} a second; ms per write by stage: ${Object.entries(perWrite).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  const rest = options.sightings - written;
  log(`the other ${rest} in bulk: rows inserted in SQL, the counters set over them as the write path sets them`);
  const bulkStarted = performance.now();
  const bulk = { sightings: rest > 0 ? await insertInBulk(db, dialect, plans, lastId) : 0, seconds: 0 };
  bulk.seconds = round((performance.now() - bulkStarted) / 1000, 1);
  const { rows } = await sql<{ sighted: string | number; once: string | number; most: string | number }>`
    select count(*) as sighted, sum(case when sightings = 1 then 1 else 0 end) as once, max(sightings) as most from indicators where sightings > 0`.execute(db);
  const spread = { indicators: ranked.length, sighted: Number(rows[0]!.sighted), sightedOnce: Number(rows[0]!.once), highestCount: Number(rows[0]!.most) };
  log(`  ${bulk.sightings} rows in ${bulk.seconds} s; ${spread.sighted} of ${spread.indicators} indicators sighted (${spread.sightedOnce} once), the highest count ${spread.highestCount}`);
  return { real, bulk, spread };
}

interface Compared {
  lookups: Awaited<ReturnType<typeof compareLookups>>;
  lifecycle: Awaited<ReturnType<typeof compareLifecycle>>;
}

function report(options: Options, compared: Compared, deepPages: Awaited<ReturnType<typeof timeDeepPages>>, added: Awaited<ReturnType<typeof addSightings>>, check: Awaited<ReturnType<typeof checkCounters>>, before: Before): void {
  const fmt = (t: Timing) => `${t.p50.toFixed(3)} / ${t.p95.toFixed(3)}`;
  const ratio = (a: number, b: number) => (a > 0 ? (b / a).toFixed(2) : '-');
  const row = (name: string, a: string, b: string, r: string) => `${name.padEnd(34)}${a.padStart(18)}${b.padStart(20)}${r.padStart(18)}`;
  const { lookups, lifecycle } = compared;
  const lines = [
    '',
    row('ms, p50 / p95', 'no sightings', `${options.sightings} sightings`, 'ratio p50 / p95'),
    ...LOOKUPS.map((name) => {
      const [a, b] = [lookups.none[name], lookups.sighted[name]];
      return row(name, fmt(a), fmt(b), `${ratio(a.p50, b.p50)} / ${ratio(a.p95, b.p95)}`);
    }),
    row('lifecycle run, median ms', String(lifecycle.none.median), String(lifecycle.sighted.median), ratio(lifecycle.none.median, lifecycle.sighted.median)),
    '(with no sightings a sightings page is empty: that row compares reading nothing with reading a page)',
    '',
    ...Object.entries(deepPages).map(([name, t]) => `${name.padEnd(60)} ${fmt(t)} ms`),
    '',
    `sightings: ${added.real.sightings} through Store.applyWrite (${added.real.perSecond} a second), ${added.bulk.sightings} inserted in bulk in SQL with the counters set as the writer sets them`,
    `counters checked on ${before.indicators.size} indicators (${check.sighted} sighted) and ${before.threats.size} threats against counts over their rows: ${check.mismatches.length === 0 ? 'all equal' : `${check.mismatches.length} differ`}`,
    ...check.mismatches.slice(0, 10).map((m) => `  ${m}`),
  ];
  for (const line of lines) log(line);
}

async function main(argv: string[]): Promise<void> {
  let options: Options | null;
  try {
    options = parseOptions(argv);
  } catch (error) {
    log(`${(error as Error).message}\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (options === null) {
    log(USAGE);
    return;
  }
  const { twins, importSeconds } = await openTwins(options);
  const { db, dialect, store } = twins.sighted;
  const started = performance.now();
  try {
    const iids = (await db.selectFrom('indicators').select('iid').orderBy('iid').execute()).map((r) => Number(r.iid));
    const tids = (await db.selectFrom('threats').select('tid').orderBy('tid').execute()).map((r) => Number(r.tid));
    const ranked = shuffled(iids, new Prng(11));
    const rankedTids = shuffled(tids, new Prng(13));
    log(`${dialect} stores ${shown(twins.sighted.location)} and ${shown(twins.none.location)}: ${iids.length} indicators, ${tids.length} threats`);

    // The first run retires what the data left unobserved; the ones timed later retire nothing.
    const settings = loadConfig({}).lifecycle;
    const first = await runLifecycle(store, settings, lifecycleClock);
    await runLifecycle(twins.none.store, settings, lifecycleClock);
    log(`first lifecycle run: ${first.retiredThreats.length} threats retired, ${first.agedIndicators} indicators aged out`);
    const sample = await lookupSample(db, ranked, rankedTids, options.lookups);
    const before = await checkSample(db, ranked, rankedTids);
    const added = await addSightings(twins.sighted, options, ranked, rankedTids);

    for (const side of [twins.sighted, twins.none]) await settle(side.db, side.dialect);
    log(`timing both stores side by side: ${options.rounds} passes of ${options.lookups} lookups of each kind, ${options.runs} lifecycle runs`);
    const compared: Compared = { lookups: await compareLookups(twins, sample, options.rounds), lifecycle: await compareLifecycle(twins, options.runs) };
    const deepPages = await timeDeepPages(db, store);
    const check = await checkCounters(db, before);
    report(options, compared, deepPages, added, check, before);

    const out = join(options.outDir, `observation-bench-results-${options.indicators}-${options.sightings}${dialect === 'postgres' ? '-postgres' : ''}.json`);
    const results = {
      date: new Date().toISOString(), store: dialect, indicators: iids.length, threats: tids.length, sightings: options.sightings,
      lookups: options.lookups, rounds: options.rounds, importSeconds, firstLifecycle: { retiredThreats: first.retiredThreats.length, agedIndicators: first.agedIndicators },
      none: { lookups: compared.lookups.none, lifecycle: compared.lifecycle.none },
      sighted: { lookups: compared.lookups.sighted, lifecycle: compared.lifecycle.sighted },
      deepPages, ...added, check, load: loadavg(), seconds: round((performance.now() - started) / 1000, 1),
    };
    writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    log(`results: ${out}`);
    if (check.mismatches.length > 0) process.exitCode = 1;
  } finally {
    for (const side of [twins.sighted, twins.none]) {
      if (options.drop && side.dialect === 'postgres') {
        const schema = new URL(side.location).searchParams.get('schema');
        if (schema !== null) await sql`drop schema ${sql.id(schema)} cascade`.execute(side.db);
      }
      await side.store.close();
      if (options.drop && side.dialect === 'sqlite') for (const suffix of ['', '-wal', '-shm']) rmSync(`${side.location}${suffix}`, { force: true });
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
