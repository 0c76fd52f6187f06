#!/usr/bin/env node
// The composition root and command line: reads the environment, opens the store, runs one command.
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { systemClock } from './clock.js';
import { loadConfig, resolveRuntimeSettings, type Config, type RuntimeSettings } from './config.js';
import { ConfigError, ImportError, UsageError } from './errors.js';
import { batchedWriter, createLogger } from './logger.js';
import { exitQuietlyOnClosedPipe } from './cli/closed-pipe.js';
import type { Metrics } from './metrics/metrics.js';
import type { PullerLink } from './cli/serve-command.js';
import type { RateLimitStoreFactory } from './plans/rate-limiters.js';
import { BACKGROUND_BUSY_MS, DEFAULT_DB_PATH, openStore, SERVING_BUSY_MS } from './store/open-store.js';
import type { Store } from './store/contract/store.js';

const USAGE = `Usage: threatgate <command> [options]

Commands:
  serve [--port N] [--host H] [--workers N] [--demo-if-empty] [--no-pull]
                                     start the gateway (lookup API and TAXII 2.1); --workers: processes
                                     sharing the port (default: one per core; 1 = no cluster);
                                     --demo-if-empty: when the store is empty, first load the demo
                                     data set and print one key per plan (what npm start runs);
                                     --no-pull: do not pull source feeds in the background
  import FILE                        load a JSON document or NDJSON file into the store
  keys create --plan PLAN [--label TEXT]
  keys create --admin [--label TEXT]  a key of no plan that opens only /admin/api/ and the console
  keys list
  keys revoke KEY_OR_ID
  feeds add --feed NAME --organization ORG --source FILE_OR_JSON
            [--category C] [--description D] [--website URL] [--pricing P]
                                     create or update a feed pulled from a source (a JSON file, or inline
                                     JSON starting with {); prints its fid alone; the other flags set the
                                     feed's descriptive fields (an existing feed needs no --source for them)
  feeds list                         one tab-separated line per source under a header line; never a secret
  feeds pull FID... | --all [--force] [--no-wait]
                                     pull now: one line per feed, exit 1 when any pull failed;
                                     --force keeps a pull the sanity gate would refuse, once;
                                     a feed pulled elsewhere is waited for, or with --no-wait
                                     reported and skipped (exit 75)
  feeds remove FID                   stop pulling a feed (its data stays)
  feeds delete FID [--yes]           delete a feed, its links, its source and its runs; the indicators only
                                     it gives are retired and revoked in TAXII; asks first on a terminal,
                                     refuses without --yes elsewhere (exit 2)
  feeds status [--json]              one line per feed: its health state, last good pull, last run
  feeds history FID [--limit N] [--json]
                                     the feed's latest runs (pulls), newest first (default 20)
  why VALUE [--json]                 why a value is (or is not) on the lists: its feeds, threats, risk,
                                     retirement, allowlist entry, rejections, collections and exports;
                                     exit 1 when nothing knows the value
  allowlist list                     the allowlist: the config's entries and those added at run time
  allowlist add ENTRY [--reason TEXT] [--dry-run]
                                     keep a value, block or domain out of every later pull and retire
                                     the stored indicators it covers; --dry-run counts them, changes nothing
  allowlist remove ENTRY             drop a run-time entry: the next pulls may list what it kept out
  seen VALUE [--note TEXT] [--at TIMESTAMP] [--count N]
  seen --threat TID [--note TEXT] [--at TIMESTAMP] [--count N]
                                     record a sighting of a stored indicator (the value as pasted) or a
                                     threat: an observation of it, as a pull's is; --at when it was seen
                                     (RFC 3339, YYYY-MM-DD HH:MM:SS UTC or a date; default now), --count
                                     how many times (default 1); prints what it recorded
  threats retire TID                 retire a threat by hand
  threats reactivate TID             make a retired threat active again
  lifecycle                          retire the threats no source has observed for lifecycle.threatRetireDays
                                     and age out the indicators no source lists any more; prints what it did
  demo                               fill an empty store with the demo data set, print one key per plan
  export COLLECTION [--type T,...] [--format txt|csv] [--style panos] [--max N] [--output FILE]
                                     a collection's active indicators (id or alias), as GET /export/
                                     serves them: one value per line (txt, the default) or CSV;
                                     --max keeps the N highest-risk, latest-seen lines and says on
                                     stderr how many it left out; --output writes a temporary file
                                     and renames it into place

Options for every command:
  --db PATH_OR_URL     SQLite file (default ${DEFAULT_DB_PATH}) or postgres:// URL; env DATABASE_URL
  --config FILE        JSON file merged over config/default.json; env THREATGATE_CONFIG
  -h, --help           this text

serve also reads PORT, HOST, REDIS_URL and LOG_LEVEL.`;

/** Log lines are batched; anything printed directly goes after the lines logged before it. */
const log = batchedWriter((text) => process.stderr.write(text));
process.on('exit', log.flush);
exitQuietlyOnClosedPipe([process.stdout, process.stderr]);
const out = (line: string) => {
  log.flush();
  process.stdout.write(`${line}\n`);
};
const err = (line: string) => {
  log.flush();
  process.stderr.write(`${line}\n`);
};

function parseCommandLine(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      db: { type: 'string' },
      config: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      workers: { type: 'string' },
      plan: { type: 'string' },
      label: { type: 'string' },
      feed: { type: 'string' },
      organization: { type: 'string' },
      source: { type: 'string' },
      'demo-if-empty': { type: 'boolean' },
      all: { type: 'boolean' },
      'no-pull': { type: 'boolean' },
      force: { type: 'boolean' },
      'no-wait': { type: 'boolean' },
      type: { type: 'string' },
      format: { type: 'string' },
      style: { type: 'string' },
      max: { type: 'string' },
      output: { type: 'string' },
      json: { type: 'boolean' },
      limit: { type: 'string' },
      admin: { type: 'boolean' },
      reason: { type: 'string' },
      'dry-run': { type: 'boolean' },
      yes: { type: 'boolean' },
      category: { type: 'string' },
      description: { type: 'string' },
      website: { type: 'string' },
      pricing: { type: 'string' },
      threat: { type: 'string' },
      note: { type: 'string' },
      at: { type: 'string' },
      count: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}

/** `--workers`: default one per core; an in-memory SQLite database cannot be shared between processes. */
function workerCount(flag: string | undefined, db: string): number {
  const inMemory = db === ':memory:' || db === 'sqlite::memory:';
  if (flag === undefined) return inMemory ? 1 : availableParallelism();
  if (!/^\d{1,3}$/.test(flag) || Number(flag) < 1) throw new ConfigError(`--workers: "${flag}" is not a whole number from 1 to 999`);
  if (inMemory && Number(flag) > 1) throw new ConfigError('--workers: an in-memory SQLite database cannot be shared by several workers; use a file');
  return Number(flag);
}

/** Progress on a terminal only: piped output stays clean for scripts. */
function progressPrinter(): ((count: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let shown = 0;
  return (count) => {
    // Counts arrive a batch at a time: a line each time another 10,000 have been read.
    if (count - shown < 10_000) return;
    shown = count - (count % 10_000);
    process.stderr.write(`\rimported ${shown.toLocaleString('en-US')} records`);
  };
}

/** Checked before the store is opened: a mistyped command is named as such, not as a missing store. */
const COMMANDS = ['serve', 'import', 'keys', 'feeds', 'threats', 'lifecycle', 'demo', 'export', 'why', 'allowlist', 'seen'];

/**
 * Whether the command may create its SQLite store (docs/interface.md section 10, "Every command"): the ones that fill or serve one. Any
 * other, run from the wrong folder, would otherwise work on a new, empty store (`keys list`: no keys).
 */
function createsStore(command: string, positionals: string[]): boolean {
  return command === 'serve' || command === 'import' || command === 'demo' || (command === 'feeds' && positionals[0] === 'add');
}

async function runCommand(command: string, positionals: string[], values: ReturnType<typeof parseCommandLine>['values'], settings: RuntimeSettings, config: Config): Promise<void> {
  if (!COMMANDS.includes(command)) throw new UsageError(`unknown command "${command}"`);
  const logger = createLogger(settings.logLevel, log.write);
  const mustExist = !createsStore(command, positionals);
  // A command waits out the puller's long writes; serve's own connections give up sooner (open-store.ts).
  const busyTimeoutMs = command === 'serve' ? SERVING_BUSY_MS : BACKGROUND_BUSY_MS;
  const store: Store = await openStore(settings.db, { setting: settings.dbSetting, collections: config.collections, sightings: config.stix.sightings, mustExist, busyTimeoutMs });
  let keepOpen = false;
  try {
    // Each command loads its own modules when it runs: a command starts with the store and itself,
    // not every other command's sources, parsers and HTTP side, which a refused or quick command
    // would otherwise spend most of its start-up loading (docs/architecture.md, "An import, in one straight line").
    switch (command) {
      case 'import': {
        const [file, extra] = positionals;
        if (!file || extra !== undefined) throw new UsageError('import: give exactly one FILE');
        const progress = progressPrinter();
        const { importFile } = await import('./import/import-file.js');
        const summary = await importFile(store, file, systemClock, progress);
        if (progress) process.stderr.write('\n');
        const { read, changed } = summary;
        out(`imported ${file}: read ${read.threats} threats, ${read.feeds} feeds, ${read.indicators} indicators, ${read.links} links; ` +
          `changed ${changed.threats} threats, ${changed.feeds} feeds, ${changed.indicators} indicators, ${changed.links} links` +
          (summary.skippedTtps ? `; skipped ${summary.skippedTtps} ttps items without an ATT&CK technique id (not in STIX)` : ''));
        return;
      }
      case 'keys': {
        const { keysCommand } = await import('./cli/keys-command.js');
        await keysCommand(positionals, values, { store, config, clock: systemClock, out });
        return;
      }
      case 'feeds': {
        const [{ createAllowlist }, { feedsCommand }, { confirmOnTerminal }, { underSignals }] = await Promise.all([
          import('./sources/allowlist.js'), import('./cli/feeds-command.js'), import('./cli/feed-delete-command.js'), import('./cli/command-signals.js'),
        ]);
        const allowlist = createAllowlist(config.allowlist);
        const deps = {
          store, clock: systemClock, env: process.env, allowlist, allowPrivateNetworks: config.sources.allowPrivateNetworks, logger, out, err, health: config.health, keepRuns: config.health.keepRuns,
          terminal: process.stdout.isTTY === true,
          confirm: confirmOnTerminal(process.stdin, process.stderr),
        };
        const code = await underSignals(store, logger, err, (signal) => feedsCommand(positionals, values, { ...deps, signal }));
        if (code !== 0) process.exitCode = code;
        return;
      }
      case 'why': {
        const [{ whyCommand }, { createAllowlist }] = await Promise.all([import('./cli/health-commands.js'), import('./sources/allowlist.js')]);
        const code = await whyCommand(positionals, values, { store, allowlist: createAllowlist(config.allowlist), collections: config.collections, out });
        if (code !== 0) process.exitCode = code;
        return;
      }
      case 'allowlist': {
        const { allowlistCommand } = await import('./cli/allowlist-command.js');
        await allowlistCommand(positionals, values, { store, config, clock: systemClock, out });
        return;
      }
      case 'seen': {
        const { seenCommand } = await import('./cli/seen-command.js');
        await seenCommand(positionals, values, { store, clock: systemClock, out });
        return;
      }
      case 'lifecycle': {
        const { lifecycleCommand } = await import('./cli/lifecycle-command.js');
        await lifecycleCommand(positionals, { store, config, clock: systemClock, out });
        return;
      }
      case 'threats': {
        const { threatsCommand } = await import('./cli/lifecycle-command.js');
        await threatsCommand(positionals, { store, config, clock: systemClock, out });
        return;
      }
      case 'export': {
        const { exportCommand } = await import('./cli/export-command.js');
        await exportCommand(positionals, values, { store, config, stdout: process.stdout, err });
        return;
      }
      case 'demo': {
        const { loadDemo, printDemoKeys } = await import('./cli/demo-command.js');
        const result = await loadDemo(store, config, systemClock);
        err(`demo: loaded ${result.counts.threats} threats, ${result.counts.feeds} feeds, ${result.counts.indicators} indicators, ${result.counts.links} links`);
        printDemoKeys(result, out);
        return;
      }
      case 'serve': {
        if (positionals.length > 0) throw new UsageError(`serve: unexpected argument "${positionals[0]}"`);
        // The HTTP side (Express, the surfaces, the console, the metrics) is loaded by serve alone.
        const [{ createServedApp }, { serve }] = await Promise.all([import('./app.js'), import('./cli/serve-command.js')]);
        const workers = workerCount(values.workers, settings.db);
        keepOpen = true;
        const buildApp = (rateLimitStores: RateLimitStoreFactory | undefined, metrics: Metrics | undefined, puller: PullerLink) => createServedApp(config, { store, logger, rateLimitStores, metrics, ...puller });
        const pull = config.pull.enabled && values['no-pull'] !== true;
        await serve({ store, config, settings, logger, demoIfEmpty: values['demo-if-empty'] === true, workers, buildApp, out, err, pull, writeLog: log.write, env: process.env });
        return;
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } finally {
    if (!keepOpen) await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    err(`threatgate: ${(error as Error).message}\n\n${USAGE}`);
    return 1;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    (values.help ? out : err)(USAGE);
    return values.help ? 0 : 1;
  }
  try {
    const settings = resolveRuntimeSettings(values, process.env, DEFAULT_DB_PATH);
    const config = loadConfig({ file: settings.configFile, setting: settings.configSetting });
    await runCommand(command, rest, values, settings, config);
    return 0;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof ImportError || error instanceof UsageError) {
      err(`threatgate: ${error.message}`);
      return 1;
    }
    err(`threatgate: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exitCode = code;
