// What an index on indicators.stamp_seen would cost pulls (docs/explore.md, "How queries stay
// bounded"): every pull sets stamp_seen on every value its source lists, so an unchanged re-pull
// rewrites that many index entries. Pulls a generated text list into an empty store through the
// store API (as `feeds pull` does), then pulls it unchanged, alternately without and with the index.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { addFeedSource } from '../src/cli/add-feed-source.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createAllowlist } from '../src/sources/allowlist.js';
import { pullFeed } from '../src/sources/pull-feed.js';
import { BACKGROUND_BUSY_MS, openDatabase } from '../src/store/open-store.js';
import { createStore } from '../src/store/store.js';
import { Prng } from './generate-data.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stderr.write(`${line}\n`);

const USAGE = `Usage: node --import tsx bench/seen-index-bench.ts [--lines 200000] [--rounds 3] [--db URL] [--out-dir bench/out]
  --db      a PostgreSQL URL (postgres://...?schema=NAME, emptied first); default a new SQLite file in OUT_DIR
  --rounds  unchanged re-pulls without the index and with it, alternately (default 3 of each)`;

/** A text list of `lines` values: IPv4 addresses and domain names, one a line, the same for a seed. */
function writeList(file: string, lines: number): void {
  const prng = new Prng(1);
  const out: string[] = [];
  for (let i = 0; i < lines; i += 1) {
    out.push(prng.next() < 0.5 ? `${10 + (i >>> 16)}.${(i >>> 8) & 255}.${i & 255}.${1 + Math.floor(prng.next() * 250)}` : `h${i.toString(36)}-${Math.floor(prng.next() * 1e6).toString(36)}.example.net`);
  }
  writeFileSync(file, `${out.join('\n')}\n`);
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      lines: { type: 'string', default: '200000' },
      rounds: { type: 'string', default: '3' },
      db: { type: 'string' },
      'out-dir': { type: 'string', default: join(ROOT, 'bench', 'out') },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    log(USAGE);
    return;
  }
  const lines = Number(values.lines);
  const rounds = Number(values.rounds);
  const outDir = resolve(values['out-dir']!);
  mkdirSync(outDir, { recursive: true });
  const list = join(outDir, `seen-index-list-${lines}.txt`);
  writeList(list, lines);
  const location = values.db ?? join(outDir, `seen-index-${lines}.sqlite`);
  if (values.db === undefined) for (const tail of ['', '-wal', '-shm']) rmSync(`${location}${tail}`, { force: true });
  const config = loadConfig({});
  const database = await openDatabase(location, { busyTimeoutMs: BACKGROUND_BUSY_MS });
  const { db, dialect } = database;
  if (dialect === 'postgres') {
    for (const table of ['feed_links', 'threat_links', 'source_listings', 'feed_runs', 'past_listings', 'threat_link_sources', 'stix_objects', 'collection_objects', 'indicators', 'feeds', 'threats', 'feed_sources', 'owner_value_counts']) {
      await sql`delete from ${sql.table(table)}`.execute(db);
    }
  }
  const store = createStore(db, dialect, { collections: config.collections, schema: database.schema, busyTimeoutMs: BACKGROUND_BUSY_MS });
  // Each pull a minute after the last: a pull marks as seen only what another pull's second did not.
  let offset = 0;
  const clock = { now: () => Date.now() + offset };
  const deps = { store, clock, env: {}, allowlist: createAllowlist(undefined), logger: createLogger('error', () => undefined) };
  try {
    const fid = await addFeedSource(store, { feed: 'Seen index bench', organization: 'threatgate bench', source: { url: pathToFileURL(list).href, format: 'text' } }, clock, {});
    const pull = async () => {
      offset += 60_000;
      const started = performance.now();
      const outcome = await pullFeed(fid, deps);
      if (!outcome.ok) throw new Error(JSON.stringify(outcome));
      return Math.round(performance.now() - started);
    };
    const first = await pull();
    log(`${dialect}: first pull of ${lines} lines: ${first} ms`);
    const without: number[] = [];
    const withIndex: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await sql`drop index if exists indicators_seen`.execute(db);
      without.push(await pull());
      await sql`create index indicators_seen on indicators (stamp_seen)`.execute(db);
      withIndex.push(await pull());
    }
    await sql`drop index if exists indicators_seen`.execute(db);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    log(`${dialect}: unchanged re-pull without an index on stamp_seen: ${without.join(', ')} ms (median ${median(without)})`);
    log(`${dialect}: unchanged re-pull with it:                          ${withIndex.join(', ')} ms (median ${median(withIndex)})`);
    const out = join(outDir, `seen-index-results-${lines}-${dialect}.json`);
    writeFileSync(out, `${JSON.stringify({ lines, dialect, first, without, with: withIndex, load: loadavg() }, null, 2)}\n`);
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
