// One scheduled pull of a due feed under its lease, as serve's puller makes it: an operator's waiting "Pull now" is taken here and the run recorded as theirs.
import { pullFeed, type PullDeps, type PullOutcome } from './pull-feed.js';
import { underPullLease } from './pull-lease.js';
import { timingImports, type ReportMetric } from './pull-metrics.js';

export interface DuePullDeps extends Omit<PullDeps, 'signal' | 'onProgress' | 'trigger'> {
  /** Names this puller in the lease. */
  owner: string;
  leaseMs: number;
  renewMs: number;
  /** Aborts the pull (shutdown): it then changes nothing. */
  signal: AbortSignal;
  /** Hears the pull's outcome for the metrics (pull-scheduler.ts). */
  report?: ReportMetric | undefined;
  /** Config `health.keepRuns`. */
  keepRuns?: number | undefined;
}

/** Pulls the feed under its lease if it is still due and free; false when another holder has it (or it is no longer due). */
export async function pullDueFeed(fid: number, deps: DuePullDeps): Promise<boolean> {
  const { store, clock, owner, report, logger } = deps;
  const now = clock.now();
  const started = performance.now();
  let outcome: PullOutcome | undefined;
  let taken = false;
  try {
    const leased = await underPullLease(fid, { store, clock, owner, take: 'due', leaseMs: deps.leaseMs, renewMs: deps.renewMs }, async () => {
      taken = true;
      // An operator's "Pull now" made the feed due: this pull is the one asked for, recorded as theirs.
      const request = await store.takePullRequest(fid);
      if (request !== undefined) logger.info('console pull', { fid, client: request.by, requested: new Date(request.at).toISOString() });
      const { owner: _owner, leaseMs: _leaseMs, renewMs: _renewMs, report: _report, keepRuns, ...pullDeps } = deps;
      return pullFeed(fid, {
        ...pullDeps,
        ...(report ? { store: timingImports(store, 'pull', report) } : {}),
        trigger: request === undefined ? 'schedule' : 'console',
        ...(keepRuns === undefined ? {} : { keepRuns }),
      });
    });
    if (leased.taken) outcome = leased.result;
    return leased.taken;
  } finally {
    // A pull that threw (its failure could not even be recorded) failed too.
    if (taken) {
      report?.({
        kind: 'pull',
        fid,
        outcome: outcome?.ok ? (outcome.notModified ? 'not_modified' : 'ok') : 'failed',
        seconds: (performance.now() - started) / 1000,
        at: Math.floor(now / 1000),
        // A failed pull's rows are not counted: it changed nothing, and its next try reads them again.
        rejected: outcome?.ok ? { unparseable: outcome.rejected, allowlisted: outcome.allowlisted } : { unparseable: 0, allowlisted: 0 },
      });
    }
  }
}
