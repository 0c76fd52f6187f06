// The operator API's answers about feeds as zod schemas: runs, health and a "Pull now" (docs/interface.md sections 12 and 13).
import { z } from 'zod';
import { count, recordId, Timestamp } from '../api/lookup-schemas.js';
import { FEED_HEALTH_STATES } from '../sources/feed-health.js';
import { RUN_TRIGGERS } from '../store/contract/runs.js';

/** A zod enum of a list the code keeps elsewhere. */
export const oneOf = <T extends string>(values: readonly T[]) => z.enum(values as [T, ...T[]]);
const text = (description: string) => z.string().describe(description);
const share = (description: string) => z.number().min(0).max(1).describe(description).nullable();

export const FeedRun = z
  .strictObject({
    run: z.int().min(1).describe('The run\u2019s id, increasing across the store.'),
    fid: recordId,
    started: Timestamp,
    finished: Timestamp,
    seconds: z.number().min(0).describe('finished - started, to a tenth of a second.'),
    trigger: oneOf(RUN_TRIGGERS).describe('What started the pull: the background schedule, `threatgate feeds pull`, or the operator API.'),
    outcome: z.enum(['ok', 'not-modified', 'failed']),
    http_status: z.int().describe('The status of the upstream\u2019s last response; null when there was none.').nullable(),
    bytes: count.describe('Body bytes read, after decompression.').nullable(),
    values: count.describe('Distinct values listed; null for a failed run.').nullable(),
    new_indicators: count.nullable(),
    new_links: count.nullable(),
    unlisted: count.describe('Values the feed listed before and no longer lists.').nullable(),
    churn: share(
      'The share of the previous listing\u2019s values this pull no longer lists (`unlisted` over the values listed before it); null for a failed run, a first pull and an incremental source (taxii, misp).',
    ),
    rejected: z.strictObject({ unparseable: count, allowlisted: count }).describe('Values left out, by reason.'),
    threats: count.describe('Threats the pull named.').nullable(),
    error: text('Why it failed, with every secret masked; null unless failed.').nullable(),
    etag: text('The upstream\u2019s ETag.').nullable(),
    last_modified: text('The upstream\u2019s Last-Modified.').nullable(),
  })
  .describe('One pull of a feed (docs/interface.md section 12.3), as `threatgate feeds history --json` prints it.');

export const FeedStatus = z
  .strictObject({
    fid: recordId,
    feed: z.string(),
    organization: z.string(),
    state: oneOf(FEED_HEALTH_STATES).describe(
      'The first that holds: `paused` (no source), `never-pulled`, `failing` (the last run failed), `stale` (no good pull for two schedule periods), `quiet-upstream` (good pulls, but nothing changed for `health.quietDays`), else `ok`.',
    ),
    schedule: text('The schedule its pulls follow.'),
    last_good_pull: Timestamp.nullable(),
    last_good_pull_age_seconds: count.nullable(),
    last_run: FeedRun.nullable(),
    values: count.describe('Values the feed lists now.'),
    new_in_last_run: count.describe('New indicators of the last run.').nullable(),
    churn: share('The churn of the latest good run (FeedRun `churn`).'),
    last_error: text('Why the last run failed; null unless it did.').nullable(),
    stamp_modified: Timestamp.nullable(),
  })
  .describe('A feed\u2019s health (docs/interface.md section 12.2), as `threatgate feeds status --json` prints it.');

export const FeedStatuses = z.strictObject({ feeds: z.array(FeedStatus).describe('Every feed with a source or runs, by ascending `fid`.') });
export const FeedRuns = z.strictObject({ runs: z.array(FeedRun).describe('Newest first.') });

export const PullRequest = z
  .strictObject({
    fid: recordId,
    state: z
      .enum(['queued', 'running'])
      .describe('`queued` until a puller takes the feed\u2019s lease; `running` when a pull of the feed is under way already (the requested one follows it).'),
    requested: Timestamp,
    requested_by: text('The id of the admin key that asked first.').nullable(),
    pulling: text('The holder of the lease and since when, when `running`.').nullable(),
    runs: text('The path of the feed\u2019s latest runs, where the requested run appears.'),
  })
  .describe('A "Pull now" handed to the puller.');
