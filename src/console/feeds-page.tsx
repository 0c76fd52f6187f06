// The console's feeds page (docs/interface.md section 14): every feed with its state, last good pull and its age, last run, values, new values, last error and a chart of its runs.
import type { FeedStatus } from '../sources/feed-health.js';
import { FEED_HEALTH_STATES } from '../sources/feed-health.js';
import type { FeedRun } from '../store/contract/runs.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { count, FeedRunsChart, formatAge, outcomeText, StateBadge } from './feed-views.js';
import { Page } from './layout.js';

/** Seconds between reloads when the operator turns auto-refresh on (console.js). */
export const AUTO_REFRESH_SECONDS = 60;

export interface FeedsPageProps {
  ctx: PageContext;
  /** When the page was made, `YYYY-MM-DD HH:MM:SS`. */
  asOf: string;
  feeds: ReadonlyArray<{ status: FeedStatus; runs: readonly FeedRun[] }>;
}

function stateSummary(feeds: FeedsPageProps['feeds']): string {
  const counts = FEED_HEALTH_STATES.map((state) => [state, feeds.filter((f) => f.status.state === state).length] as const).filter(([, n]) => n > 0);
  return counts.map(([state, n]) => `${n} ${state}`).join(', ');
}

function FeedCard({ status, runs }: { status: FeedStatus; runs: readonly FeedRun[] }) {
  const run = status.last_run;
  return (
    <li class="feed-card" id={`feed-${status.fid}`} data-fid={status.fid}>
      <h2>
        <a href={CONSOLE_PATHS.feed(status.fid)}>{status.feed}</a>
      </h2>
      <p class="muted">
        {status.organization} · feed {status.fid} · {status.schedule}
      </p>
      <p>
        State: <StateBadge state={status.state} />
      </p>
      <dl>
        <dt>Last good pull</dt>
        <dd>
          {status.last_good_pull === null ? 'never' : `${status.last_good_pull} UTC (${formatAge(status.last_good_pull_age_seconds ?? 0)})`}
        </dd>
        <dt>Last run</dt>
        <dd>{run === null ? 'none yet' : `${outcomeText(run)}, ${run.finished} UTC (${run.trigger})`}</dd>
        <dt>Values listed</dt>
        <dd>{count(status.values)}</dd>
        <dt>New in last run</dt>
        <dd>{count(status.new_in_last_run)}</dd>
        {status.last_error !== null && (
          <>
            <dt>Last error</dt>
            <dd class="error-text">{status.last_error}</dd>
          </>
        )}
      </dl>
      {runs.length > 0 && <FeedRunsChart id={`feed-${status.fid}-chart`} feed={status.feed} runs={runs} size="small" series="values-new" />}
    </li>
  );
}

export function FeedsPage({ ctx, asOf, feeds }: FeedsPageProps) {
  return (
    <Page title="Feeds" ctx={ctx}>
      <div class="toolbar">
        <p>
          {feeds.length === 0 ? 'No feeds yet.' : `${feeds.length} feed${feeds.length === 1 ? '' : 's'}: ${stateSummary(feeds)}.`} As of {asOf} UTC.
        </p>
        <button type="button" class="secondary" data-auto-refresh={AUTO_REFRESH_SECONDS} aria-pressed="false" hidden>
          Auto-refresh off
        </button>
      </div>
      {feeds.length === 0 ? (
        <p>
          No feed has a source or a run yet. Add one with <code>threatgate feeds add</code>.
        </p>
      ) : (
        <ul class="feeds">
          {feeds.map(({ status, runs }) => (
            <FeedCard key={status.fid} status={status} runs={runs} />
          ))}
        </ul>
      )}
    </Page>
  );
}
