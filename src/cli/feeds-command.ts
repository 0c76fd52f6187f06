// `threatgate feeds add|list|pull|remove|delete|status|history`: feeds' source definitions and descriptive
// fields, their pulls (docs/interface.md section 10), deleting a feed (feed-delete-command.ts) and their
// health (section 12, health-commands.ts).
import { readFileSync } from 'node:fs';
import { ConfigError, UsageError } from '../errors.js';
import { addFeedSource } from './add-feed-source.js';
import { feedDeleteCommand } from './feed-delete-command.js';
import { feedMetadataFlags, type FeedMetadataField } from './feed-metadata.js';
import type { FeedsDeps } from './feeds-deps.js';
import { EXIT_BUSY, leaseHolder } from './lease-holder.js';
import { feedsHistory, feedsStatus } from './health-commands.js';
import { cell } from './table-output.js';
import { hostname } from 'node:os';
import { formatStamp } from '../clock.js';
import { outcomeLine, pullFeed } from '../sources/pull-feed.js';
import { underPullLease } from '../sources/pull-lease.js';
import { removeStalePullDirs } from '../sources/pull-temp.js';
import { redactedUrl, SourceDefinitionError } from '../sources/source-definition.js';
import type { FeedSourceListing, PullLease } from '../store/contract/records.js';

/** The columns of `feeds list`, in order: a contract for scripts, so only ever appended to. */
const LIST_COLUMNS = ['fid', 'feed', 'organization', 'format', 'schedule', 'stamp_pulled', 'indicators', 'url', 'last_error', 'lease'] as const;

export { EXIT_BUSY } from './lease-holder.js';
/** How often a waiting `feeds pull` asks for the lease again. */
const WAIT_POLL_MS = 1000;

/** Inline JSON when it starts with `{`, else the path of a JSON file. Never echoes the text: it may hold a password. */
function readSource(value: string): unknown {
  let text = value;
  if (!value.trimStart().startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (error) {
      throw new UsageError(`--source: cannot read ${value} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, { cause: error });
    }
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`--source: ${text === value ? 'the value' : value} is not valid JSON`);
  }
}

/** `OWNER since T until T (N s left)` for a live lease; a lapsed one is no lease. */
function leaseText(lease: PullLease | undefined, now: number): string | null {
  if (lease === undefined || lease.until < now) return null;
  const since = lease.since === null ? '' : ` since ${formatStamp(lease.since)}`;
  return `${lease.owner}${since} until ${formatStamp(lease.until)} (${Math.ceil((lease.until - now) / 1000)} s left)`;
}

function listLine(source: FeedSourceListing, now: number): string {
  const definition = JSON.parse(source.definition) as { format?: string; url?: string };
  const error = source.last_error === null ? null : `${source.last_error_at ?? ''} ${source.last_error}`.trim();
  const values = [
    source.fid, source.feed, source.organization, definition.format, source.schedule, source.stamp_pulled, source.linked, redactedUrl(definition.url ?? ''), error,
    leaseText(source.lease, now),
  ];
  return values.map(cell).join('\t');
}

function parseFid(text: string | undefined, action = 'remove', what = 'one FID'): number {
  if (text === undefined || !/^[1-9]\d{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`feeds ${action}: give ${what}, a positive whole number${text === undefined ? '' : `, not "${text}"`}`);
  }
  return Number(text);
}

/** `\rfid N NAME: 120,000 rows` on a terminal while a pull reads; nothing when piped. */
function pullProgress(fid: number, feed: string): { onProgress?: (rows: number) => void; done(): void } {
  if (!process.stderr.isTTY) return { done() {} };
  let shown = 0;
  return {
    onProgress(rows) {
      if (rows - shown < 10_000) return;
      shown = rows - (rows % 10_000);
      process.stderr.write(`\rfid ${fid} ${feed}: ${shown.toLocaleString('en-US')} rows`);
    },
    done() {
      if (shown > 0) process.stderr.write('\r\x1b[K');
    },
  };
}

/**
 * `feeds pull FID... | --all`: one line per feed in the order given, each pulled under the feed's
 * lease as `serve` pulls it. A feed another holder is pulling is waited for, with a message on
 * stderr, or with `--no-wait` reported and skipped. Exit code: 1 when a pull failed, else EXIT_BUSY
 * when a feed was skipped, else 0.
 */
/** The lease owner `feeds pull` takes leases as (what a crash handler releases). */
export function commandPullOwner(): string {
  return `feeds pull on ${hostname()} pid ${process.pid}`;
}

async function pullCommand(fids: number[], deps: FeedsDeps, flags: PullFlags): Promise<number> {
  let failed = false;
  let busy = false;
  const owner = commandPullOwner();
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  // What a pull that crashed (a kill -9 mid-pull) left in the temporary folder goes first.
  await removeStalePullDirs();
  for (const fid of fids) {
    // Stopped (SIGTERM, Ctrl-C): the pull under way was cancelled and its lease released; no other starts.
    if (deps.signal?.aborted) break;
    const state = await deps.store.findFeedSource(fid);
    if (state === undefined) {
      deps.out(`fid ${fid} -: failed: feed ${fid} has no source`);
      failed = true;
      continue;
    }
    const progress = pullProgress(fid, state.feed);
    for (let told = false; ; ) {
      // A live lease of another holder is read first (a read never waits for a write): a feed being
      // pulled is waited for, or skipped with --no-wait, at once, not after the store's busy wait.
      const held = await deps.store.findPullLease(fid);
      const free = held === undefined || held.until < deps.clock.now() || held.owner === owner;
      const pulled = !free
        ? { taken: false as const }
        : await underPullLease(fid, { store: deps.store, clock: deps.clock, owner, take: 'any' }, () =>
            pullFeed(fid, { ...deps, trigger: 'command', ...(flags.force ? { force: true } : {}), ...(progress.onProgress ? { onProgress: progress.onProgress } : {}), ...(deps.signal ? { signal: deps.signal } : {}) }),
          );
      if (pulled.taken) {
        progress.done();
        deps.out(outcomeLine(pulled.result));
        failed ||= !pulled.result.ok;
        break;
      }
      // Not getting the lease is no failure of the feed: nothing is recorded on it.
      const holder = await leaseHolder(deps.store, fid);
      if (flags.noWait) {
        deps.out(`fid ${fid} is being pulled by ${holder}`);
        busy = true;
        break;
      }
      if (!told) (deps.err ?? deps.out)(`fid ${fid} is being pulled by ${holder}; waiting for it to finish`);
      told = true;
      if (deps.signal?.aborted) break;
      await sleep(WAIT_POLL_MS);
    }
  }
  return failed ? 1 : busy ? EXIT_BUSY : 0;
}

interface PullFlags {
  force?: boolean | undefined;
  noWait?: boolean | undefined;
}

export async function feedsCommand(
  args: string[],
  flags: { feed?: string | undefined; organization?: string | undefined; source?: string | undefined; all?: boolean | undefined } & { force?: boolean | undefined; 'no-wait'?: boolean | undefined } & {
    json?: boolean | undefined;
    limit?: string | undefined;
    yes?: boolean | undefined;
  } & Partial<Record<FeedMetadataField, string | undefined>>,
  deps: FeedsDeps,
): Promise<number> {
  const [action, target, ...rest] = args;
  switch (action) {
    case 'add': {
      for (const flag of ['feed', 'organization'] as const) {
        if (!flags[flag]) throw new UsageError(`feeds add: --${flag} is required`);
      }
      if (target !== undefined) throw new UsageError(`feeds add: unexpected argument "${target}"`);
      const metadata = feedMetadataFlags(flags);
      // Without a source, an existing feed's descriptive fields change and its source stays (add-feed-source.ts).
      if (flags.source === undefined && Object.keys(metadata).length === 0) throw new UsageError('feeds add: --source is required');
      const source = flags.source === undefined ? {} : { source: readSource(flags.source) };
      try {
        deps.out(String(await addFeedSource(deps.store, { feed: flags.feed!, organization: flags.organization!, ...source, metadata }, deps.clock, deps.env)));
      } catch (error) {
        if (error instanceof SourceDefinitionError) throw new UsageError(`feeds add: ${error.message}`, { cause: error });
        throw error;
      }
      return 0;
    }
    case 'pull': {
      const given = args.slice(1);
      if (flags.all === true && given.length > 0) throw new UsageError('feeds pull: give FIDs or --all, not both');
      if (flags.all !== true && given.length === 0) throw new UsageError('feeds pull: give one or more FIDs, or --all');
      const fids = flags.all === true ? (await deps.store.listFeedSources()).map((s) => s.fid) : given.map((t) => parseFid(t, 'pull', 'FIDs'));
      return pullCommand([...new Set(fids)], deps, { force: flags.force, noWait: flags['no-wait'] });
    }
    case 'list': {
      if (target !== undefined) throw new UsageError(`feeds list: unexpected argument "${target}"`);
      deps.out(LIST_COLUMNS.join('\t'));
      for (const source of await deps.store.listFeedSources()) deps.out(listLine(source, deps.clock.now()));
      return 0;
    }
    case 'delete': {
      if (rest.length > 0) throw new UsageError('feeds delete: give one FID');
      return feedDeleteCommand(parseFid(target, 'delete'), { yes: flags.yes === true }, deps);
    }
    case 'remove': {
      if (rest.length > 0) throw new UsageError('feeds remove: give one FID');
      const fid = parseFid(target);
      if (!(await deps.store.removeFeedSource(fid))) throw new ConfigError(`feeds remove: feed ${fid} has no source`);
      deps.out(`removed ${fid}`);
      return 0;
    }
    case 'status':
      if (target !== undefined) throw new UsageError(`feeds status: unexpected argument "${target}"`);
      return feedsStatus(flags, deps);
    case 'history':
      if (rest.length > 0) throw new UsageError('feeds history: give one FID');
      return feedsHistory(parseFid(target, 'history'), flags, deps);
    default:
      throw new UsageError(
        'feeds: expected "add --feed NAME --organization ORG --source FILE_OR_JSON", "list", "pull FID... | --all", "remove FID", "delete FID [--yes]", "status" or "history FID [--limit N]"',
      );
  }
}
