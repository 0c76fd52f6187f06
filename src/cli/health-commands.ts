// `threatgate feeds status`, `feeds history FID` and `why VALUE` (docs/interface.md section 12): feeds' health,
// a feed's runs, and why a value is where it is; each as text, or with --json as the contract.
import type { Clock } from '../clock.js';
import type { CollectionConfig } from '../config.js';
import { ConfigError, UsageError } from '../errors.js';
import type { Allowlist } from '../sources/allowlist.js';
import { DEFAULT_QUIET_DAYS, feedStatuses, type FeedHealthSettings } from '../sources/feed-health.js';
import { valueObservations, type ValueObservations } from '../observations/value-observations.js';
import { churnPercent } from '../sources/sanity-gate.js';
import { provenanceOf, type Provenance } from '../sources/value-provenance.js';
import type { FeedRun } from '../store/contract/runs.js';
import type { Store } from '../store/contract/store.js';
import { cell, tableLines } from './table-output.js';

export interface HealthCommandDeps {
  store: Store;
  clock: Clock;
  out: (line: string) => void;
  /** Config `health` (quietDays); default DEFAULT_QUIET_DAYS. */
  health?: FeedHealthSettings;
  /** stdout is a terminal: aligned columns instead of tab-separated ones. */
  terminal?: boolean;
}

export interface HealthFlags {
  json?: boolean | undefined;
  limit?: string | undefined;
}

/** Runs `feeds history` shows unless --limit says otherwise, and the most it shows (the admin API's bound too). */
export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 1000;

const printJson = (deps: { out: (line: string) => void }, value: unknown) => deps.out(JSON.stringify(value, null, 2));

/** `3m`, `2h`, `5d`: the largest whole unit, as a person reads an age at a glance. */
export function ageText(seconds: number | null): string {
  if (seconds === null) return '-';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86_400)}d`;
}

// churn: the latest good run's, as a percentage (--json gives 0 to 1; docs/interface.md).
const STATUS_COLUMNS = ['fid', 'feed', 'state', 'last_good_pull_age', 'last_run', 'values', 'new', 'churn', 'last_error'];

/** `feeds status`: one line per feed with a source or runs, in fid order. */
export async function feedsStatus(flags: HealthFlags, deps: HealthCommandDeps): Promise<number> {
  const statuses = feedStatuses(await deps.store.feedHealthFacts(), deps.health ?? { quietDays: DEFAULT_QUIET_DAYS }, deps.clock.now());
  if (flags.json) {
    printJson(deps, statuses);
    return 0;
  }
  const rows = statuses.map((s) => [s.fid, s.feed, s.state, ageText(s.last_good_pull_age_seconds), s.last_run?.outcome, s.values, s.new_in_last_run, churnPercent(s.churn), s.last_error]);
  for (const line of tableLines(STATUS_COLUMNS, rows, deps.terminal ?? false)) deps.out(line);
  return 0;
}

const HISTORY_COLUMNS = [
  'run', 'started', 'trigger', 'outcome', 'seconds', 'http_status', 'bytes', 'values', 'new_indicators', 'new_links', 'unlisted', 'churn', 'unparseable', 'allowlisted', 'error',
];

function historyRow(run: FeedRun): (string | number | null)[] {
  return [
    run.run, run.started, run.trigger, run.outcome, run.seconds.toFixed(1), run.http_status, run.bytes, run.values, run.new_indicators, run.new_links, run.unlisted, churnPercent(run.churn),
    run.rejected.unparseable, run.rejected.allowlisted, run.error,
  ];
}

function historyLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_HISTORY_LIMIT;
  const limit = /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_HISTORY_LIMIT)) throw new UsageError(`feeds history: --limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}, not "${text}"`);
  return limit;
}

/** `feeds history FID`: the feed's latest runs, newest first. */
export async function feedsHistory(fid: number, flags: HealthFlags, deps: HealthCommandDeps): Promise<number> {
  const limit = historyLimit(flags.limit);
  const runs = await deps.store.listFeedRuns(fid, limit);
  // A mistyped fid is named, not shown as a feed that has not run yet.
  if (runs.length === 0 && (await deps.store.findFeedSource(fid)) === undefined) throw new ConfigError(`feeds history: feed ${fid} has no source and no runs`);
  if (flags.json) {
    printJson(deps, runs);
    return 0;
  }
  for (const line of tableLines(HISTORY_COLUMNS, runs.map(historyRow), deps.terminal ?? false)) deps.out(line);
  return 0;
}

export interface WhyDeps {
  store: Store;
  allowlist: Allowlist;
  collections: readonly CollectionConfig[];
  out: (line: string) => void;
}

/** Whether anything knows the value: the store (an indicator, a feed's link, a block holding it, a rejection) or the allowlist. */
const isKnown = (p: Provenance): boolean => p.indicator !== null || p.feeds.length > 0 || p.blocks.length > 0 || p.rejection !== null || p.allowlist !== null;

/**
 * `why VALUE`: its provenance, and the latest sightings and submissions of its indicator
 * (docs/observations.md). Exit code 0 when anything knows the value (the store or the allowlist),
 * 1 when nothing does, so a script can ask `threatgate why X && ...`.
 */
export async function whyCommand(args: readonly string[], flags: HealthFlags, deps: WhyDeps): Promise<number> {
  const [value, extra] = args;
  if (value === undefined || value.trim() === '' || extra !== undefined) throw new UsageError('why: give one VALUE (quote it if it holds blanks)');
  const provenance = await provenanceOf(value, deps);
  const observations = await valueObservations(deps.store, provenance.indicator?.iid ?? null);
  if (flags.json) printJson(deps, { ...provenance, ...observations });
  else for (const line of whyLines(provenance, observations)) deps.out(line);
  return isKnown(provenance) ? 0 : 1;
}

/** A sighting's line: when it was seen, how many times, who reported it (the key's label, else its id, or `command line`) and the note. */
function sightingText(s: ValueObservations['sightings'][number]): string {
  const by = s.reported_by_label ?? s.reported_by ?? 'command line';
  return `seen ${s.seen_at}, count ${s.count}, by ${by}${s.reported_by !== null && s.reported_by_label !== null ? ` (${s.reported_by})` : ''}${s.note === null ? '' : `: ${s.note}`}`;
}

const feedName = (fid: number, feed: string) => `fid ${fid} ${feed}`;

/** The readable block of `why`: a label and a line per fact, the latest observations (none when left out) after the threats. */
export function whyLines(p: Provenance, observations: ValueObservations = { sightings: [], submissions: [] }): string[] {
  const lines: [string, string][] = [['value', p.value]];
  if (p.normalized === null) lines.push(['unparseable', `no indicator of any type: ${p.unparseable ?? '-'}`]);
  else if (p.normalized.value !== p.value) lines.push(['normalized', `${p.normalized.value} (${p.normalized.type})`]);
  else lines.push(['type', p.normalized.type]);
  const i = p.indicator;
  if (i !== null) {
    const state = i.retired ? `retired${i.retired_reason === null ? '' : ` (${i.retired_reason})`}${i.stamp_retired === null ? '' : ` on ${i.stamp_retired}`}` : 'active';
    lines.push(['indicator', `iid ${i.iid}, ${i.type} ${i.value}, risk ${i.risk}, ${state}; added ${i.stamp_added ?? '-'}, seen ${i.stamp_seen ?? '-'}`]);
    lines.push(['risk from', p.risk_from.length > 0 ? p.risk_from.map((f) => feedName(f.fid, f.feed)).join(', ') : 'no feed listing it now (an import or the lifecycle set it)']);
  }
  for (const f of p.feeds) {
    const listing = f.listed_now ? 'lists it now' : `listed it until ${f.last_listed ?? '-'}`;
    const last = f.listed_now && f.last_listed !== null ? `, last pulled ${f.last_listed}` : '';
    lines.push(['feed', `${feedName(f.fid, f.feed)} (${f.organization}): ${listing}; first listed ${f.first_listed}${last}, risk ${f.risk ?? '-'}, by ${f.linked_by}`]);
  }
  for (const t of p.threats) {
    const by = t.linked_by === null ? 'an import' : feedName(t.linked_by.fid, t.linked_by.feed);
    lines.push(['threat', `tid ${t.tid} ${t.name}${t.retired ? ' (retired)' : ''}: linked ${t.stamp_linked} by ${by}`]);
  }
  for (const s of observations.sightings) lines.push(['sighting', sightingText(s)]);
  for (const s of observations.submissions) lines.push(['submission', `for analysis by key ${s.key_id} at ${s.submitted_at} (qid ${s.qid})`]);
  for (const b of p.blocks) lines.push(['block', `iid ${b.iid}, ${b.value} holds it, risk ${b.risk}, ${b.retired ? 'retired' : 'active'}`]);
  if (p.allowlist !== null) lines.push(['allowlist', `kept out of every pull by the entry "${p.allowlist.entry}"`]);
  if (p.rejection !== null) lines.push(['rejected', `by ${feedName(p.rejection.fid, p.rejection.feed)} at ${p.rejection.at} (${p.rejection.reason})`]);
  for (const c of p.collections) {
    const exported = p.exports.find((e) => e.collection === c.id);
    lines.push(['collection', `${c.id} ${c.title}${c.alias ? ` (${c.alias})` : ''}${exported ? `; export ${exported.url}` : '; not exported (retired)'}`]);
  }
  if (!isKnown(p)) lines.push(['unknown', 'no indicator, feed, rejection or allowlist entry knows this value']);
  const width = Math.max(...lines.map(([label]) => label.length));
  return lines.map(([label, text]) => `${label.padEnd(width)}  ${cell(text)}`);
}
