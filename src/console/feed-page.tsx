// A feed's page in the console (docs/interface.md section 14): its health, its source definition with secrets masked, its runs as a chart and a table, and "Pull now".
import type { Feed } from '../domain.js';
import type { FeedStatus } from '../sources/feed-health.js';
import { churnPercent } from '../sources/sanity-gate.js';
import type { FeedRun } from '../store/contract/runs.js';
import { CONSOLE_PATHS, type PageContext } from './console-deps.js';
import { count, FeedRunsChart, formatAge, outcomeText, rejectedOf, StateBadge } from './feed-views.js';
import { CsrfField, Notice, Page } from './layout.js';

export interface FeedPageProps {
  ctx: PageContext;
  feed: Feed;
  /** Its health row; undefined for a feed with neither a source nor a run (an imported one). */
  status: FeedStatus | undefined;
  /** The source definition with its secrets masked; undefined when the feed has no source. */
  definition: unknown;
  /** The latest runs, newest first, and how many were asked for. */
  runs: readonly FeedRun[];
  limit: number;
  /** What the page reports first after a "Pull now": the run it made, or, until then, whether it waits or runs. */
  pulled?: FeedRun | undefined;
  request?: { waiting: boolean; pulling: string | undefined } | undefined;
  /** Config `pull.checkSeconds`: how soon a puller that was not woken finds a request. */
  checkSeconds?: number;
}

/** While a requested pull waits or runs, the page reloads itself this often, until its run is recorded. */
const WAITING_REFRESH_SECONDS = 2;

function RequestNotice({ request, checkSeconds }: { request: { waiting: boolean; pulling: string | undefined }; checkSeconds: number | undefined }) {
  if (request.pulling !== undefined) {
    const then = request.waiting ? ' Your pull starts when it ends.' : '';
    return <Notice kind="ok">{`Pulling now: ${request.pulling}.${then} This page reloads until the run is recorded.`}</Notice>;
  }
  const within = checkSeconds === undefined ? '' : ` (a puller checks at least every ${checkSeconds} s)`;
  return <Notice kind="ok">{`Pull requested: waiting for the puller${within}. This page reloads until the run is recorded.`}</Notice>;
}

function PulledNotice({ run }: { run: FeedRun }) {
  if (run.outcome === 'failed') return <Notice kind="error">{`Pulled now: run ${run.run} failed. ${run.error ?? ''}`}</Notice>;
  const what = run.outcome === 'not-modified' ? 'the source had not changed' : `${count(run.values)} values listed, ${count(run.new_indicators)} new`;
  return <Notice kind="ok">{`Pulled now: run ${run.run}, ${run.outcome}: ${what}.`}</Notice>;
}

function Health({ status }: { status: FeedStatus }) {
  return (
    <dl class="facts">
      <dt>State</dt>
      <dd>
        <StateBadge state={status.state} />
      </dd>
      <dt>Schedule</dt>
      <dd>{status.schedule}</dd>
      <dt>Last good pull</dt>
      <dd>{status.last_good_pull === null ? 'never' : `${status.last_good_pull} UTC (${formatAge(status.last_good_pull_age_seconds ?? 0)})`}</dd>
      <dt>Values listed</dt>
      <dd>{count(status.values)}</dd>
      <dt>New in last run</dt>
      <dd>{count(status.new_in_last_run)}</dd>
      <dt>Churn of last good pull</dt>
      <dd>{status.churn === null ? 'none' : churnPercent(status.churn)}</dd>
      <dt>Upstream last changed</dt>
      <dd>{status.stamp_modified === null ? 'never' : `${status.stamp_modified} UTC`}</dd>
      {status.last_error !== null && (
        <>
          <dt>Last error</dt>
          <dd class="error-text">{status.last_error}</dd>
        </>
      )}
    </dl>
  );
}

function RunsTable({ runs, pulled }: { runs: readonly FeedRun[]; pulled: number | undefined }) {
  return (
    <div class="table-wrap">
      <table class="runs">
        <caption>Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Started (UTC)</th>
            <th scope="col">Trigger</th>
            <th scope="col">Outcome</th>
            <th scope="col" class="number">Values</th>
            <th scope="col" class="number">New</th>
            <th scope="col" class="number">No longer listed</th>
            <th scope="col" class="number" title="The share of the previous listing this pull no longer lists">Churn</th>
            <th scope="col" class="number">Rejected</th>
            <th scope="col" class="number">Seconds</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.run} data-run={run.run} data-outcome={run.outcome} class={run.run === pulled ? 'just-pulled' : undefined}>
              <th scope="row">{run.run}</th>
              <td>{run.started}</td>
              <td>{run.trigger}</td>
              <td>{outcomeText(run)}</td>
              <td class="number">{count(run.values)}</td>
              <td class="number">{count(run.new_indicators)}</td>
              <td class="number">{count(run.unlisted)}</td>
              <td class="number">{run.churn === null ? 'none' : churnPercent(run.churn)}</td>
              <td class="number" title={`unparseable ${run.rejected.unparseable}, allowlisted ${run.rejected.allowlisted}`}>
                {run.outcome === 'failed' ? 'none' : count(rejectedOf(run))}
              </td>
              <td class="number">{run.seconds}</td>
              <td class={run.error === null ? undefined : 'error-text'}>{run.error ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FeedPage({ ctx, feed, status, definition, runs, limit, pulled, request, checkSeconds }: FeedPageProps) {
  return (
    <Page title={`Feed ${feed.feed}`} ctx={ctx} refreshSeconds={request === undefined ? undefined : WAITING_REFRESH_SECONDS}>
      {pulled !== undefined && <PulledNotice run={pulled} />}
      {request !== undefined && <RequestNotice request={request} checkSeconds={checkSeconds} />}
      <p class="muted">
        {feed.organization} · feed {feed.fid} · <a href={CONSOLE_PATHS.feeds}>all feeds</a>
      </p>
      {definition !== undefined && (
        <form class="toolbar" method="post" action={CONSOLE_PATHS.pull(feed.fid)} data-busy-label="Requesting…">
          <CsrfField ctx={ctx} />
          <button type="submit">Pull now</button>
          <span class="help">Asks the puller to pull the source now, under the feed's lease as the schedule would; the run is recorded with trigger console.</span>
        </form>
      )}

      <h2>Health</h2>
      {status === undefined ? (
        <p>
          <StateBadge state="paused" /> This feed has no source and no runs: it came from an import, or its source was removed before its first pull.
        </p>
      ) : (
        <Health status={status} />
      )}

      <h2>Source definition</h2>
      {definition === undefined ? (
        <p>This feed has no source: nothing is pulled (its data stays).</p>
      ) : (
        <>
          <p class="help">
            Secrets are masked (<code>***</code>); <code>{'${env:NAME}'}</code> placeholders are read from the server's environment at each pull.
          </p>
          <pre>
            <code>{JSON.stringify(definition, null, 2)}</code>
          </pre>
        </>
      )}

      <h2>Runs over time</h2>
      {runs.length === 0 ? (
        <p>No runs yet.</p>
      ) : (
        <>
          <FeedRunsChart id="runs-chart" feed={feed.feed} runs={runs} size="large" series="all" />
          <h2>Run history</h2>
          <p>
            The latest {runs.length} run{runs.length === 1 ? '' : 's'}
            {runs.length === limit ? (
              <>
                {' '}
                (<a href={`${CONSOLE_PATHS.feed(feed.fid)}?limit=${Math.min(limit * 5, 1000)}`}>show more</a>)
              </>
            ) : null}
            .
          </p>
          <RunsTable runs={runs} pulled={pulled?.run} />
        </>
      )}
    </Page>
  );
}
