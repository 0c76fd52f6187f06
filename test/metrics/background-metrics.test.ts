// The background pulls' and lifecycle's metrics (docs/deployment.md, "Metrics"): a pull, a 304, a failure and a lifecycle
// run each move theirs, through the scheduler's report and, from the pull thread, through messages
// to the thread that owns the registry.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { systemClock, type Clock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createMetrics, type BackgroundEvent } from '../../src/metrics/metrics.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { startBackgroundPulls } from '../../src/sources/background-pulls.js';
import { startPullScheduler } from '../../src/sources/pull-scheduler.js';
import { scheduleSeconds, stampSeconds } from '../../src/sources/feed-health.js';
import { parseSchedule } from '../../src/sources/schedule.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { parsePrometheusText, sampleValue, type Exposition } from '../helpers/prometheus-text.js';
import { DEFAULT_COLLECTIONS, storeBackends } from '../helpers/store-backends.js';

const DAY_MS = 86_400_000;
const START = Date.parse('2026-03-01T10:00:00Z');
const LIFECYCLE = { threatRetireDays: 90, indicatorRetireDays: 30 };

function testClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

describe('feed schedules and stamps, as the feed gauges read them', () => {
  it('gives the gap between two runs: N for every N, an hour for hourly, a week for weekly', () => {
    assert.equal(scheduleSeconds(parseSchedule('every 30m'), START), 1800);
    assert.equal(scheduleSeconds(parseSchedule('hourly'), START), 3600);
    assert.equal(scheduleSeconds(parseSchedule('weekly'), START), 7 * 86_400);
    assert.equal(scheduleSeconds(parseSchedule('0 6,18 * * *'), Date.parse('2026-03-01T07:00:00Z')), 12 * 3600);
  });
  it('reads store stamps as UTC seconds', () => {
    assert.equal(stampSeconds('2026-03-01 10:00:00'), START / 1000);
    assert.equal(stampSeconds('not a stamp'), null);
  });
});

for (const backend of storeBackends()) {
  describe(`background metrics (${backend.name})`, () => {
    let feeds: FeedServer;
    before(async () => {
      feeds = await startFeedServer();
    });
    after(async () => {
      await feeds.close();
      await backend.cleanup();
    });

    it('a pull, a 304, a failed pull and a lifecycle run move their metrics', async () => {
      const clock = testClock(START);
      const { store } = await backend.create();
      feeds.publish('/moth.txt', '192.0.2.1\n198.51.100.7\nmoth.example.com\n', { etag: true });
      // minRatio 0: the list is later replaced by one a third its size, which the sanity gate would hold as an outage.
      const fid = await addFeedSource(
        store,
        { feed: 'Hourly moth list', organization: 'Test', source: { url: `${feeds.base}/moth.txt`, format: 'text', schedule: 'hourly', threat: 'Metric Moth', minRatio: 0 } },
        clock,
        {},
      );
      const metrics = createMetrics({ defaultMetrics: false });
      const events: BackgroundEvent[] = [];
      const scheduler = startPullScheduler({
        store, clock, env: {}, allowlist: createAllowlist(undefined), logger: silentLogger, checkMs: 3_600_000, owner: 'metrics-test', lifecycle: LIFECYCLE,
        report: (event) => {
          events.push(event);
          metrics.background(event);
        },
      });
      const text = async (): Promise<Exposition> => parsePrometheusText(await metrics.scrape());
      const pulls = (t: Exposition, outcome: string) => sampleValue(t, 'threatgate_feed_pulls_total', { fid: String(fid), outcome });
      try {
        await scheduler.tick();
        let t = await text();
        assert.equal(pulls(t, 'ok'), 1);
        assert.equal(pulls(t, 'not_modified'), 0, 'every outcome of a known feed starts at 0');
        assert.equal(pulls(t, 'failed'), 0);
        assert.equal(sampleValue(t, 'threatgate_feed_pull_duration_seconds_count'), 1);
        assert.equal(sampleValue(t, 'threatgate_feed_last_success_timestamp_seconds', { fid: String(fid) }), START / 1000);
        assert.equal(sampleValue(t, 'threatgate_feed_schedule_seconds', { fid: String(fid) }), 3600);
        assert.equal(sampleValue(t, 'threatgate_import_duration_seconds_count', { kind: 'pull' }), 1);
        assert.equal(sampleValue(t, 'threatgate_import_duration_seconds_count', { kind: 'lifecycle' }), 1, 'the lifecycle runs after a pull');
        assert.equal(sampleValue(t, 'threatgate_lifecycle_retired_total', { kind: 'threat' }), 0);
        assert.equal(sampleValue(t, 'threatgate_lifecycle_retired_total', { kind: 'indicator' }), 0);

        // An hour on: the source answers 304 (its ETag), a success that changes nothing.
        clock.advance(3_600_000);
        await scheduler.tick();
        t = await text();
        assert.equal(pulls(t, 'not_modified'), 1);
        assert.equal(sampleValue(t, 'threatgate_feed_last_success_timestamp_seconds', { fid: String(fid) }), (START + 3_600_000) / 1000);

        // 91 days on: the source fails, and the lifecycle retires the threat no pull has observed since.
        feeds.fail('/moth.txt', { kind: 'status', status: 500 });
        clock.advance(91 * DAY_MS);
        await scheduler.tick();
        t = await text();
        assert.equal(pulls(t, 'failed'), 1);
        assert.equal(pulls(t, 'ok'), 1);
        assert.equal(sampleValue(t, 'threatgate_feed_pull_duration_seconds_count'), 3);
        assert.equal(sampleValue(t, 'threatgate_feed_last_success_timestamp_seconds', { fid: String(fid) }), (START + 3_600_000) / 1000, 'a failure leaves it');
        assert.equal(sampleValue(t, 'threatgate_lifecycle_retired_total', { kind: 'threat' }), 1);
        assert.equal(sampleValue(t, 'threatgate_lifecycle_retired_total', { kind: 'indicator' }), 0, 'still listed by the feed');
        assert.equal(sampleValue(t, 'threatgate_import_duration_seconds_count', { kind: 'pull' }), 2, 'the failed pull imported nothing');

        // The source is back with other values: the three it no longer lists age out.
        feeds.publish('/moth.txt', '203.0.113.9\n', { etag: true });
        clock.advance(3_600_000);
        await scheduler.tick();
        t = await text();
        assert.equal(pulls(t, 'ok'), 2);
        assert.equal(sampleValue(t, 'threatgate_lifecycle_retired_total', { kind: 'indicator' }), 3);
        assert.equal(sampleValue(t, 'threatgate_import_duration_seconds_count', { kind: 'lifecycle' }), 4);
        assert.ok(events.some((e) => e.kind === 'retired' && e.threats === 0 && e.indicators === 3));
      } finally {
        await scheduler.stop();
        await store.close();
      }
    });

    it('from the pull thread, the events reach the registry of the thread that started it', async () => {
      const { store, location } = await backend.create();
      feeds.publish('/thread.txt', '203.0.113.5\n203.0.113.6\n', { etag: false });
      const fid = await addFeedSource(
        store,
        { feed: 'Thread list', organization: 'Test', source: { url: `${feeds.base}/thread.txt`, format: 'text', schedule: 'every 6h' } },
        systemClock,
        {},
      );
      const metrics = createMetrics({ defaultMetrics: false });
      const events: BackgroundEvent[] = [];
      const pulls = startBackgroundPulls({
        db: location, setting: '--db', collections: DEFAULT_COLLECTIONS, allowlist: undefined, checkMs: 3_600_000, lifecycle: LIFECYCLE,
        store, clock: systemClock, logger: silentLogger, logLevel: 'silent', writeLog: () => undefined, env: {},
        report: (event) => {
          events.push(event);
          metrics.background(event);
        },
      });
      try {
        const deadline = Date.now() + 30_000;
        while (!events.some((e) => e.kind === 'feeds') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.deepEqual([...new Set(events.map((e) => e.kind))].sort(), ['feeds', 'import', 'pull', 'puller', 'retired']);
        const t = parsePrometheusText(await metrics.scrape());
        // The thread said it was up once it had opened the store; it never stopped.
        assert.equal(sampleValue(t, 'threatgate_puller_up', {}), 1);
        assert.equal(sampleValue(t, 'threatgate_puller_restarts_total', {}), 0);
        assert.equal(sampleValue(t, 'threatgate_feed_pulls_total', { fid: String(fid), outcome: 'ok' }), 1);
        assert.equal(sampleValue(t, 'threatgate_feed_schedule_seconds', { fid: String(fid) }), 6 * 3600);
        const last = sampleValue(t, 'threatgate_feed_last_success_timestamp_seconds', { fid: String(fid) });
        assert.ok(Math.abs(last - Date.now() / 1000) < 60, `last success ${last}`);
        assert.equal(sampleValue(t, 'threatgate_import_duration_seconds_count', { kind: 'lifecycle' }), 1);
      } finally {
        await pulls.stop();
        await store.close();
      }
    });
  });
}
