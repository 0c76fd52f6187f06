// One pull of a feed's source (docs/interface.md section 10, "Pulls"): fetch, read, normalize, then the one import pipeline
// (Store.applyWrite) writes it in a transaction; a failure changes nothing but the feed's error and retry time.
import { formatStamp, type Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PullCounts, PullPlan } from '../store/contract/commands.js';
import type { RunReport, RunTrigger } from '../store/contract/runs.js';
import { DEFAULT_KEEP_RUNS } from '../config.js';
import type { Store } from '../store/contract/store.js';
import type { Allowlist } from './allowlist.js';
import { withoutControlCharacters } from './control-characters.js';
import type { ResolveHost } from './transports/guarded-agent.js';
import { openSource, type PullRead } from './open-source.js';
import { pullBatches, type RowTally } from './pull-batches.js';
import { failureReason } from './pull-failure.js';
import { nextRun, parseSchedule, retryDelay, scheduleFromFeed, type Schedule } from './schedule.js';
import { envReferences, parseSource, redactedUrl, resolveEnv, SourceDefinitionError, type SourceDefinition } from './source-definition.js';
import { RateLimitWaits } from './transports/rate-limit-waits.js';
import { currentAllowlist } from './runtime-allowlist.js';

export type { RowTally } from './pull-batches.js';

export interface PullDeps {
  store: Store;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  allowlist: Allowlist;
  logger: Logger;
  /** Stops the pull from outside (shutdown); it then fails and changes nothing. */
  signal?: AbortSignal;
  /** Hears how many rows were read so far (a terminal's progress). */
  onProgress?: (rows: number) => void;
  /** Config `sources.allowPrivateNetworks`: every source may reach loopback and private networks (network-policy.ts). */
  allowPrivateNetworks?: boolean;
  /** Resolves host names for the pull's connections (tests control DNS with it); default: the system resolver. */
  resolveHost?: ResolveHost;
  /** Keeps a pull the sanity gate would refuse (`feeds pull --force`), this once. */
  force?: boolean;
  /** What started the pull, for its run (docs/interface.md section 12); default `command`. */
  trigger?: RunTrigger;
  /** Runs kept per feed (config `health.keepRuns`). */
  keepRuns?: number;
}

export type PullOutcome = { fid: number; feed: string; seconds: number } & (
  /** `notModified`: the source answered 304, nothing changed since the previous pull. */
  | ({ ok: true; notModified: boolean } & PullCounts & RowTally)
  | { ok: false; reason: string }
);

/** The source's `threat` as the pull names it: control characters out, blanks trimmed; none when nothing is left. */
function sourceThreatOf(source: SourceDefinition): PullPlan['sourceThreat'] {
  if (source.threat === undefined) return null;
  const name = withoutControlCharacters(source.threat.name).trim();
  if (name === '') return null;
  const category = withoutControlCharacters(source.threat.category).trim();
  return { name, category: category === '' ? 'malware' : category };
}

function scheduleOf(source: SourceDefinition | undefined, feedSchedule: string): Schedule {
  return source?.schedule === undefined ? scheduleFromFeed(feedSchedule) : parseSchedule(source.schedule);
}

/**
 * Pulls the feed once and returns its outcome; never throws for the feed's own faults (fetch,
 * format, an outage, a bad stored definition), which are recorded on the feed with a retry time.
 * Throws only when the feed has no source, or when even recording the failure fails (store down).
 */
export async function pullFeed(fid: number, deps: PullDeps): Promise<PullOutcome> {
  const { store, clock, logger } = deps;
  const state = await store.findFeedSource(fid);
  if (state === undefined) throw new SourceDefinitionError('fid', `feed ${fid} has no source`);
  const started = clock.now();
  const at = formatStamp(started);
  const seconds = () => Math.round((clock.now() - started) / 100) / 10;
  const tally: RowTally = { rejected: 0, allowlisted: 0, skipped: 0 };
  // The run's report (docs/interface.md section 12): the transport's status and bytes land in it as the source is read.
  const run: RunReport = {
    trigger: deps.trigger ?? 'command', started, httpStatus: null, bytes: 0, rejected: { unparseable: 0, allowlisted: 0 }, rejections: [],
  };
  const keepRuns = deps.keepRuns ?? DEFAULT_KEEP_RUNS;
  let source: SourceDefinition | undefined;
  let secrets: string[] = [];
  let read: PullRead | undefined;
  let deadline: AbortSignal | undefined;
  try {
    source = parseSource(JSON.parse(state.definition));
    secrets = envReferences(source).map((name) => deps.env[name] ?? '');
    const resolved = resolveEnv(source, deps.env);
    // The config may open private networks to every source; the source's own `network` still wins when it says so.
    if (deps.allowPrivateNetworks && resolved.network === undefined) resolved.network = 'private';
    const nextDue = nextRun(scheduleOf(source, state.schedule), new Date(started)).getTime();
    // The whole pull is bounded (`maxSeconds`; docs/security.md), not only each request: a source that pages forever fails.
    deadline = AbortSignal.timeout(source.maxSeconds * 1000);
    const signal = deps.signal ? AbortSignal.any([deps.signal, deadline]) : deadline;
    // The config's allowlist and the store's run-time entries as they are now (docs/interface.md section 13, the allowlist).
    const bounded: PullDeps = { ...deps, signal, allowlist: await currentAllowlist(deps.allowlist, store) };
    // Measured as the deadline's timer is, not by the injected clock, which tests may move at will.
    const deadlineAt = performance.now() + source.maxSeconds * 1000;
    read = await openSource(
      resolved,
      {
        state,
        fetch: {
          displayUrl: redactedUrl(source.url),
          signal,
          meter: run,
          ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
        },
        // One budget for every wait of the pull, which a wait may not carry past maxSeconds.
        waits: new RateLimitWaits({ signal, remainingMs: () => deadlineAt - performance.now() }),
        now: started,
        force: deps.force ?? false,
        warn: (message, fields) => logger.warn(message, { fid, ...fields }),
      },
      { force: deps.force ?? false, onProgress: deps.onProgress },
    );
    const plan: PullPlan = {
      fid,
      at,
      sourceThreat: sourceThreatOf(source),
      // A threat is active or retired by its own state, not by a risk level: a `retired` source gives `unknown`.
      sourceRisk: source.risk === 'retired' ? 'unknown' : source.risk,
      repeat: read.rows === undefined,
      incremental: read.incremental,
      etag: read.etag,
      lastModified: read.lastModified,
      nextDue,
      ...(read.bodyHash === undefined ? {} : { bodyHash: read.bodyHash }),
      run,
      keepRuns,
      // The listing the pull began with, for its churn, as the gate's minRatio counts it (docs/sources.md).
      ...(read.incremental || state.stamp_pulled === null ? {} : { listedBefore: state.listed }),
      ...(read.checkOverlap === undefined ? {} : { checkOverlap: read.checkOverlap }),
    };
    // A shutdown stops the write too: it rolls back at the next batch or stage instead of finishing after the grace period.
    const summary = await store.applyWrite({ kind: 'pull', plan }, pullBatches(plan, read, source, bounded, tally, fid), clock, deps.signal ? { signal: deps.signal } : {});
    const counts = summary.pulled;
    const outcome: PullOutcome = { fid, feed: state.feed, seconds: seconds(), ok: true, notModified: read.rows === undefined, ...counts, ...tally };
    logger.info('pull', {
      fid, feed: state.feed, outcome: read.rows === undefined ? 'not-modified' : 'ok', values: counts.values, newIndicators: counts.newIndicators,
      newLinks: counts.newLinks, rejected: tally.rejected, allowlisted: tally.allowlisted, skipped: tally.skipped, seconds: outcome.seconds,
      ...(counts.churn === null ? {} : { churn: counts.churn }),
      ...(counts.withdrawn > 0 ? { withdrawn: counts.withdrawn } : {}),
      ...(counts.retiredSeen.length > 0 ? { retiredThreatsSeen: counts.retiredSeen } : {}),
    });
    return outcome;
  } catch (error) {
    if (deps.signal?.aborted && !deadline?.aborted) {
      // Stopped from outside (a shutdown): the feed did nothing wrong, so no failure is recorded on it;
      // it stays due, and the next pull (here or on another instance) reads it again.
      logger.info('pull cancelled: the process is stopping', { fid, feed: state.feed, seconds: seconds() });
      return { fid, feed: state.feed, seconds: seconds(), ok: false, reason: 'cancelled: the process is stopping' };
    }
    const reason = deadline?.aborted ? `the pull took longer than maxSeconds (${source!.maxSeconds} s)` : failureReason(error, secrets);
    const failures = state.failures + 1;
    const now = clock.now();
    const nextDue = now + retryDelay(failures, scheduleOf(source, state.schedule), new Date(now));
    run.rejected = { unparseable: tally.rejected, allowlisted: tally.allowlisted };
    await store.recordPullFailure(fid, { reason, at: formatStamp(now), finished: now, nextDue, run, keepRuns });
    const outcome: PullOutcome = { fid, feed: state.feed, seconds: seconds(), ok: false, reason };
    logger.warn('pull', { fid, feed: state.feed, outcome: 'failed', reason, failures, seconds: outcome.seconds });
    return outcome;
  } finally {
    await read?.done?.().catch(() => undefined);
  }
}

/** The line `feeds pull` prints for an outcome (docs/interface.md section 10, `feeds pull`). */
export function outcomeLine(outcome: PullOutcome): string {
  const name = outcome.feed.replace(/[\r\n\t]+/g, ' ');
  if (!outcome.ok) return `fid ${outcome.fid} ${name}: failed: ${outcome.reason.replace(/[\r\n]+/g, ' ')}`;
  return (
    `fid ${outcome.fid} ${name}: ok ${outcome.values} values, ${outcome.newIndicators} new indicators, ` +
    `${outcome.newLinks} new links, ${outcome.rejected} rejected, ${outcome.seconds.toFixed(1)} s`
  );
}
