// The Prometheus metrics of one process (prom-client), behind typed helpers: the HTTP layer, the rate
// limiter, the response caches and the background pulls each report through these and never touch
// prom-client themselves. Every label takes its values from a bounded set: route templates, plan and
// window names, feed ids; never a raw URL, key or client address.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RequestTally, type AnsweredPath } from './request-tally.js';

/** How one background pull ended: `not_modified` is a success that found the source unchanged. */
export type PullOutcomeLabel = 'ok' | 'not_modified' | 'failed';

/** What an import was for (Store.applyWrite in the serving process): a feed pull or a lifecycle run. */
export type ImportKind = 'pull' | 'lifecycle';

/** A feed's health (docs/interface.md section 12.1, decided by sources/feed-health.ts): the `state` label of threatgate_feed_state. */
export type FeedStateLabel = 'ok' | 'failing' | 'stale' | 'quiet-upstream' | 'never-pulled' | 'paused';

/** Why a pull left a value out: the `reason` label of threatgate_feed_rejected_values_total. */
export type RejectedReasonLabel = 'unparseable' | 'allowlisted';

/** One feed as the store knows it, for the feed gauges. */
export interface FeedState {
  fid: number;
  state: FeedStateLabel;
  /** The last successful pull, in seconds since the epoch (null: never pulled). */
  lastSuccess: number | null;
  /** The nominal time between two pulls of its schedule, in seconds (null: unknown). */
  scheduleSeconds: number | null;
}

/**
 * What the background work reports: pulls and lifecycle runs (docs/deployment.md, "Metrics"). Plain data, so that the pull thread can post it
 * to the thread that owns the registry: the process's main thread, or a cluster's primary.
 */
export type BackgroundEvent =
  | { kind: 'pull'; fid: number; outcome: PullOutcomeLabel; seconds: number; at: number; rejected: Record<RejectedReasonLabel, number> }
  | { kind: 'feeds'; feeds: FeedState[] }
  | { kind: 'retired'; threats: number; indicators: number }
  | { kind: 'import'; of: ImportKind; seconds: number }
  /** The puller's thread is up or down; `restarted`: it died and a restart is scheduled. */
  | { kind: 'puller'; up: boolean; restarted: boolean };

/** Hit and miss counts of one response cache. */
export interface CacheCounter {
  hit(): void;
  miss(): void;
}

export interface Metrics {
  readonly registry: Registry;
  /** One finished request: its route template (see routeLabel), method, status, duration, and which way it was answered (the fast path or Express). */
  request(route: string, method: string, status: number, seconds: number, path?: AnsweredPath): void;
  /** A request refused with 429 by the plan's limit over `window` (second, day, month). */
  rateLimited(plan: string, window: string): void;
  /** A failed authentication: a malformed, unknown or revoked key (401). */
  authFailed(): void;
  /** A request refused with 429 because its client address used up `auth.failuresPerMinute`. */
  authRefused(): void;
  /** The counter of the response cache named `cache`. */
  cache(cache: string): CacheCounter;
  /** A request answered 503 because the store could not be reached. */
  storeError(): void;
  /** An event of the background pulls or lifecycle. */
  background(event: BackgroundEvent): void;
  /** The text GET /metrics answers: this process's registry (see withScrape). */
  scrape(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** prom-client's process and Node.js metrics (default true). */
  defaultMetrics?: boolean;
  /** Plan names whose rate-limit counters start at 0, so that the first 429 shows in `increase()`. */
  plans?: readonly string[];
}

const RATE_WINDOW_NAMES = ['second', 'day', 'month'] as const;
const CACHE_NAMES = ['lookup', 'taxii', 'explore'] as const;
const OUTCOMES: readonly PullOutcomeLabel[] = ['ok', 'not_modified', 'failed'];
const FEED_STATES: readonly FeedStateLabel[] = ['ok', 'failing', 'stale', 'quiet-upstream', 'never-pulled', 'paused'];
const REJECTED_REASONS: readonly RejectedReasonLabel[] = ['unparseable', 'allowlisted'];

/** Cached lookups take well under a millisecond; a TAXII page of 1,000 objects a good part of a second. */
const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Pulls and imports run from a fraction of a second (304) to minutes (a large first pull). */
const LONG_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  if (options.defaultMetrics !== false) collectDefaultMetrics({ register: registry });

  // Counted on the request path in plain numbers (request-tally.ts), read into these when scraped.
  const tally = new RequestTally(REQUEST_BUCKETS);
  new Counter({
    name: 'threatgate_http_requests_total',
    help: 'HTTP requests answered, by route template, method, status and path (fast: the fast path, express: Express\'s router).',
    labelNames: ['route', 'method', 'status', 'path'] as const,
    registers,
    collect() {
      tally.fill(this);
    },
  });
  registry.registerMetric(tally.histogram('threatgate_http_request_duration_seconds', 'Time from a request\'s arrival to the end of its response, by route template.'));
  // No labels: the address is the limit's key and must not become a label; the surface shows in the request counts.
  const authFailures = new Counter({
    name: 'threatgate_auth_failures_total',
    help: 'Failed authentications: requests that presented a malformed, unknown or revoked API key (401).',
    registers,
  });
  const authRefusals = new Counter({
    name: 'threatgate_auth_refused_total',
    help: 'Requests refused with 429 because their client address made auth.failuresPerMinute failed authentications within the last minute.',
    registers,
  });
  const cacheCounts = new Map<string, { hits: number; misses: number }>(CACHE_NAMES.map((cache) => [cache, { hits: 0, misses: 0 }]));
  const limited = new Counter({
    name: 'threatgate_rate_limited_total',
    help: 'Requests refused with 429, by plan and by the window whose limit was reached.',
    labelNames: ['plan', 'window'] as const,
    registers,
  });
  new Counter({
    name: 'threatgate_response_cache_hits_total',
    help: 'Responses served from a response cache, by cache (lookup: the lookup API; taxii: TAXII object pages).',
    labelNames: ['cache'] as const,
    registers,
    collect() {
      this.reset();
      for (const [cache, counts] of cacheCounts) this.inc({ cache }, counts.hits);
    },
  });
  new Counter({
    name: 'threatgate_response_cache_misses_total',
    help: 'Responses a response cache did not hold and had built, by cache.',
    labelNames: ['cache'] as const,
    registers,
    collect() {
      this.reset();
      for (const [cache, counts] of cacheCounts) this.inc({ cache }, counts.misses);
    },
  });
  const storeErrors = new Counter({
    name: 'threatgate_store_errors_total',
    help: 'Requests answered 503 because the database could not be reached.',
    registers,
  });
  const pulls = new Counter({
    name: 'threatgate_feed_pulls_total',
    help: 'Background pulls of source feeds, by feed id and outcome (ok, not_modified, failed).',
    labelNames: ['fid', 'outcome'] as const,
    registers,
  });
  const rejectedValues = new Counter({
    name: 'threatgate_feed_rejected_values_total',
    help: 'Values background pulls left out, by feed id and reason (unparseable: no indicator of any type; allowlisted: kept out by the allowlist).',
    labelNames: ['fid', 'reason'] as const,
    registers,
  });
  const pullDurations = new Histogram({
    name: 'threatgate_feed_pull_duration_seconds',
    help: 'Time a background pull took, fetch and import together, whatever its outcome.',
    buckets: LONG_BUCKETS,
    registers,
  });
  // Only the process that pulls sets the feed gauges; summed over a cluster they would count once anyway.
  const lastSuccess = new Gauge({
    name: 'threatgate_feed_last_success_timestamp_seconds',
    help: 'When each feed was last pulled successfully (Unix time), as the store records it.',
    labelNames: ['fid'] as const,
    aggregator: 'max',
    registers,
  });
  const scheduleSeconds = new Gauge({
    name: 'threatgate_feed_schedule_seconds',
    help: 'The time between two scheduled pulls of each feed, in seconds (for cron schedules, the next gap).',
    labelNames: ['fid'] as const,
    aggregator: 'max',
    registers,
  });
  const feedStates = new Gauge({
    name: 'threatgate_feed_state',
    help: 'Each feed\'s health state (docs/interface.md section 12.1): 1 for the state it is in, 0 for the others (ok, failing, stale, quiet-upstream, never-pulled, paused).',
    labelNames: ['fid', 'state'] as const,
    aggregator: 'max',
    registers,
  });
  const retired = new Counter({
    name: 'threatgate_lifecycle_retired_total',
    help: 'Threats retired and indicators aged out by lifecycle runs, by kind (threat, indicator).',
    labelNames: ['kind'] as const,
    registers,
  });
  const imports = new Histogram({
    name: 'threatgate_import_duration_seconds',
    help: 'Time an import into the store took (one transaction), by what it was for (pull, lifecycle).',
    labelNames: ['kind'] as const,
    buckets: LONG_BUCKETS,
    registers,
  });

  // Series that exist from the start, at 0: the first event then shows in rate() and increase().
  for (const plan of options.plans ?? []) for (const window of RATE_WINDOW_NAMES) limited.inc({ plan, window }, 0);
  retired.inc({ kind: 'threat' }, 0);
  retired.inc({ kind: 'indicator' }, 0);

  const caches = new Map<string, CacheCounter>();
  let puller: ReturnType<typeof pullerMetrics> | undefined;
  return {
    registry,
    contentType: registry.contentType,
    request(route, method, status, seconds, path) {
      tally.add(route, method, status, seconds, path);
    },
    rateLimited(plan, window) {
      limited.inc({ plan, window });
    },
    authFailed() {
      authFailures.inc();
    },
    authRefused() {
      authRefusals.inc();
    },
    cache(cache) {
      let counter = caches.get(cache);
      if (counter === undefined) {
        let counts = cacheCounts.get(cache);
        if (counts === undefined) cacheCounts.set(cache, (counts = { hits: 0, misses: 0 }));
        const own = counts;
        counter = { hit: () => void own.hits++, miss: () => void own.misses++ };
        caches.set(cache, counter);
      }
      return counter;
    },
    storeError() {
      storeErrors.inc();
    },
    background(event) {
      switch (event.kind) {
        case 'pull': {
          const fid = String(event.fid);
          pulls.inc({ fid, outcome: event.outcome });
          pullDurations.observe(event.seconds);
          for (const reason of REJECTED_REASONS) rejectedValues.inc({ fid, reason }, event.rejected[reason]);
          if (event.outcome !== 'failed') lastSuccess.set({ fid }, event.at);
          break;
        }
        case 'feeds':
          // The store's list replaces the gauges: the series of a feed it no longer reports go.
          lastSuccess.reset();
          scheduleSeconds.reset();
          feedStates.reset();
          for (const feed of event.feeds) {
            const fid = String(feed.fid);
            if (feed.lastSuccess !== null) lastSuccess.set({ fid }, feed.lastSuccess);
            if (feed.scheduleSeconds !== null) scheduleSeconds.set({ fid }, feed.scheduleSeconds);
            for (const state of FEED_STATES) feedStates.set({ fid, state }, state === feed.state ? 1 : 0);
            for (const outcome of OUTCOMES) pulls.inc({ fid, outcome }, 0);
            for (const reason of REJECTED_REASONS) rejectedValues.inc({ fid, reason }, 0);
          }
          break;
        case 'retired':
          retired.inc({ kind: 'threat' }, event.threats);
          retired.inc({ kind: 'indicator' }, event.indicators);
          break;
        case 'import':
          imports.observe({ kind: event.of }, event.seconds);
          break;
        case 'puller': {
          // Made by the first event, in the one process that runs a puller: a cluster's workers and a
          // `serve --no-pull` have no such series (an alert on 0 then means a puller that is down).
          puller ??= pullerMetrics(registers);
          puller.up.set(event.up ? 1 : 0);
          if (event.restarted) puller.restarts.inc();
          break;
        }
      }
    },
    scrape: () => registry.metrics(),
  };
}

/** The puller's gauge and restart counter (summed over a cluster: one process has them). */
function pullerMetrics(registers: Registry[]) {
  return {
    up: new Gauge({ name: 'threatgate_puller_up', help: 'Whether the thread that pulls source feeds runs (1) or is down and being restarted (0).', aggregator: 'max', registers }),
    restarts: new Counter({ name: 'threatgate_puller_restarts_total', help: 'Times the thread that pulls source feeds died and was started again.', registers }),
  };
}

/** The same metrics, with GET /metrics answered by `scrape` (a cluster worker's: the whole cluster's sum). */
export function withScrape(metrics: Metrics, scrape: () => Promise<string>): Metrics {
  return { ...metrics, scrape };
}
