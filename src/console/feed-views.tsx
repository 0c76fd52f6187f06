// What the feeds page and a feed's page both show: a state badge in words, an age, a run's outcome, and the chart of a feed's runs.
import type { FeedHealthState } from '../sources/feed-health.js';
import type { FeedRun } from '../store/contract/runs.js';
import { RunChart, type ChartSeries } from './run-chart.js';

/** What each state means, for the badge's description (docs/interface.md section 12.1). */
export const STATE_MEANINGS: Record<FeedHealthState, string> = {
  ok: 'pulled on schedule, and the upstream changes',
  failing: 'its last pull failed',
  stale: 'no good pull for two schedule periods',
  'quiet-upstream': 'good pulls, but the upstream has not changed for a long time',
  'never-pulled': 'not pulled yet',
  paused: 'its source was removed; nothing is pulled',
};

/** The state as a word (its colour and mark only repeat it), with what it means on hover and for screen readers. */
export function StateBadge({ state }: { state: FeedHealthState }) {
  return (
    <span class={`badge badge-${state}`} data-state={state} title={STATE_MEANINGS[state]}>
      {state}
    </span>
  );
}

/** `3 d 4 h ago`: the two largest units of an age in seconds. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return 'just now';
  const units: Array<[string, number]> = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
  ];
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [unit, size] of units) {
    if (rest >= size && parts.length < 2) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    } else if (parts.length > 0) break;
  }
  return `${parts.join(' ')} ago`;
}

/** A count as the console writes it; null as `none`. */
export function count(value: number | null): string {
  return value === null ? 'none' : value.toLocaleString('en-US');
}

/** A run's outcome, its HTTP status when it had one. */
export function outcomeText(run: FeedRun): string {
  return run.http_status === null ? run.outcome : `${run.outcome} (HTTP ${run.http_status})`;
}

/** Rejected values of a run, both reasons together. */
export const rejectedOf = (run: FeedRun): number => run.rejected.unparseable + run.rejected.allowlisted;

/** The chart of a feed's runs (`runs` newest first, as the store lists them): oldest on the left. */
export function FeedRunsChart({ id, feed, runs, size, series }: { id: string; feed: string; runs: readonly FeedRun[]; size: 'small' | 'large'; series: 'values-new' | 'all' }) {
  const ordered = [...runs].reverse();
  const chosen: ChartSeries[] = [
    { label: 'Values listed', values: ordered.map((r) => r.values) },
    { label: 'New', values: ordered.map((r) => r.new_indicators) },
  ];
  if (series === 'all') {
    chosen.push({ label: 'No longer listed', values: ordered.map((r) => r.unlisted) });
    chosen.push({ label: 'Rejected', values: ordered.map((r) => (r.outcome === 'failed' ? null : rejectedOf(r))) });
  }
  const title = series === 'all' ? `Runs of ${feed} over time: values listed, new, no longer listed and rejected` : `Values listed and new values per run of ${feed}`;
  return <RunChart id={id} title={title} runs={ordered.map((r) => r.started)} failed={ordered.map((r) => r.outcome === 'failed')} series={chosen} size={size} />;
}
