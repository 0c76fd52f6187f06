// "Pull now" (POST /admin/api/feeds/{fid}/pull): one pull of a feed in the serving process, under the
// feed's lease as `feeds pull` and the scheduler take it, recorded as a run with trigger `console`.
import { hostname } from 'node:os';
import { formatStamp, type Clock } from '../clock.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Allowlist } from '../sources/allowlist.js';
import { pullFeed } from '../sources/pull-feed.js';
import { underPullLease } from '../sources/pull-lease.js';
import type { FeedRun } from '../store/contract/runs.js';
import type { Store } from '../store/store.js';

export interface ConsolePullDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  allowlist: Allowlist;
  /** The environment the sources' `${env:NAME}` secrets are read from (the composition root's). */
  env: Readonly<Record<string, string | undefined>>;
  /** Config `sources.allowPrivateNetworks`. */
  allowPrivateNetworks: boolean;
  /** Config `health.keepRuns`. */
  keepRuns: number;
}

/**
 * Pulls the feed now and returns the run it recorded, ok or failed: a failed pull is an answer
 * about the feed, not an error of the request. A feed with no source is a 404; a feed another
 * holder is pulling (the scheduler, `feeds pull`, another console) a 409 naming the holder, and
 * nothing is recorded on the feed, as for `feeds pull --no-wait`.
 */
export async function pullFromConsole(fid: number, keyId: string, deps: ConsolePullDeps): Promise<FeedRun> {
  const { store, clock } = deps;
  if ((await store.findFeedSource(fid)) === undefined) {
    throw new NotFoundError((await store.findFeed(fid)) === undefined ? 'Feed not found.' : `Feed ${fid} has no source to pull (threatgate feeds add gives it one).`);
  }
  const owner = `console (key ${keyId}) on ${hostname()} pid ${process.pid}`;
  const pulled = await underPullLease(fid, { store, clock, owner, take: 'any' }, () =>
    pullFeed(fid, {
      store,
      clock,
      env: deps.env,
      allowlist: deps.allowlist,
      logger: deps.logger,
      allowPrivateNetworks: deps.allowPrivateNetworks,
      keepRuns: deps.keepRuns,
      trigger: 'console',
    }),
  );
  if (!pulled.taken) {
    const lease = await store.findPullLease(fid);
    const holder = lease === undefined ? 'another process' : `${lease.owner}${lease.since === null ? '' : ` since ${formatStamp(lease.since)}`}`;
    throw new ConflictError(`Feed ${fid} is being pulled by ${holder}; ask again when that pull has finished.`);
  }
  deps.logger.info('console pull', { fid, client: keyId, ok: pulled.result.ok });
  const [run] = await store.listFeedRuns(fid, 1);
  // pullFeed records a run for every outcome it returns here (no signal is given, so none is cancelled).
  if (run === undefined) throw new Error(`the pull of feed ${fid} recorded no run`);
  return run;
}
