// "Pull now" (POST /admin/api/feeds/{fid}/pull and the console's button): a request handed to the puller, never a pull on a serving process.
import { formatStamp, type Clock } from '../clock.js';
import { NotFoundError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { FeedRun } from '../store/contract/runs.js';
import type { Store } from '../store/contract/store.js';

export interface PullNowDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  /**
   * Tells this instance's puller to check for due feeds now, rather than at its next check (the
   * cluster primary's pull thread, or this process's). Absent, the request waits for the next check
   * of any instance's puller.
   */
  wakePuller?: (() => void) | undefined;
}

/** What `POST /admin/api/feeds/{fid}/pull` answers (202): the request, and where its run will appear. */
export interface PullNowAnswer {
  fid: number;
  /** `queued` until the puller takes the lease; `running` when a pull of the feed is under way already (the request is taken after it). */
  state: 'queued' | 'running';
  /** When the request was made (the first one, when several wait), UTC. */
  requested: string;
  requested_by: string | null;
  /** The holder pulling the feed now, when `running`. */
  pulling: string | null;
  /** Its run is the first of trigger `console` started at or after `requested`. */
  runs: string;
}

/**
 * Records the request and wakes the puller; answers at once. A feed with no source is a 404. The
 * pull runs on the puller (a thread of the process, or the cluster primary's), under the feed's
 * lease like every pull, so a serving process never holds a pull's memory or its writes.
 */
export async function requestPullNow(fid: number, keyId: string, deps: PullNowDeps): Promise<PullNowAnswer> {
  const { store, clock } = deps;
  const now = clock.now();
  const request = await store.requestPull(fid, keyId, now);
  if (request === undefined) {
    throw new NotFoundError((await store.findFeed(fid)) === undefined ? 'Feed not found.' : `Feed ${fid} has no source to pull (threatgate feeds add gives it one).`);
  }
  deps.wakePuller?.();
  deps.logger.info('pull requested', { fid, client: keyId });
  const lease = await store.findPullLease(fid);
  const live = lease !== undefined && lease.until >= now;
  return {
    fid,
    state: live ? 'running' : 'queued',
    requested: formatStamp(request.at),
    requested_by: request.by,
    pulling: live ? `${lease.owner}${lease.since === null ? '' : ` since ${formatStamp(lease.since)}`}` : null,
    runs: `/admin/api/feeds/${fid}/runs?limit=5`,
  };
}

/** The run a request made at `requestedAt` (ms) led to: the oldest console run started at or after it, among `runs` (newest first). */
export function runOfRequest(runs: readonly FeedRun[], requestedAt: number): FeedRun | undefined {
  const from = formatStamp(Math.floor(requestedAt / 1000) * 1000);
  return runs.filter((run) => run.trigger === 'console' && run.started >= from).at(-1);
}
