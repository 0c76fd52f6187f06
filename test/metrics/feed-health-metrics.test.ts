// The feed health metrics (docs/interface.md section 12.1): threatgate_feed_state, one 0/1 series per state of each feed as
// `feeds status` judges it, and threatgate_feed_rejected_values_total by feed and reason, moved by
// the scheduler's real pulls of a local feed server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import type { Clock } from '../../src/clock.js';
import { silentLogger } from '../../src/logger.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { startPullScheduler } from '../../src/sources/pull-scheduler.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { parsePrometheusText, sampleValue, type Exposition } from '../helpers/prometheus-text.js';
import { storeBackends } from '../helpers/store-backends.js';

const START = Date.parse('2026-03-01T10:00:00Z');
const STATES = ['ok', 'failing', 'stale', 'quiet-upstream', 'never-pulled', 'paused'];

function testClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, advance: (ms) => void (now += ms) };
}

/** The state whose series is 1 for the feed, after checking that every state has exactly one series. */
function stateOf(t: Exposition, fid: number): string {
  const on = STATES.filter((state) => sampleValue(t, 'threatgate_feed_state', { fid: String(fid), state }) === 1);
  const off = STATES.filter((state) => sampleValue(t, 'threatgate_feed_state', { fid: String(fid), state }) === 0);
  assert.equal(on.length + off.length, STATES.length, `fid ${fid}: one series per state`);
  assert.equal(on.length, 1, `fid ${fid}: one state at 1`);
  return on[0]!;
}

for (const backend of storeBackends()) {
  describe(`feed health metrics (${backend.name})`, () => {
    let feeds: FeedServer;
    before(async () => {
      feeds = await startFeedServer();
    });
    after(async () => {
      await feeds.close();
      await backend.cleanup();
    });

    it('give each feed its state and count the values its pulls left out, by reason', async () => {
      const clock = testClock(START);
      const { store } = await backend.create();
      // 10.0.0.7 is kept out by the default allowlist; 999.1.2.3 is no address.
      feeds.publish('/kept.txt', '203.0.113.1\n203.0.113.2\n203.0.113.3\n10.0.0.7\n999.1.2.3\n', { etag: true });
      feeds.publish('/down.txt', '203.0.113.9\n');
      feeds.fail('/down.txt', { kind: 'status', status: 500 });
      feeds.publish('/gone.txt', '203.0.113.20\n');
      const add = (feed: string, path: string) =>
        addFeedSource(store, { feed, organization: 'Test', source: { url: `${feeds.base}${path}`, format: 'text', schedule: 'hourly' } }, clock, {});
      const kept = await add('Kept list', '/kept.txt');
      const down = await add('Down list', '/down.txt');
      const gone = await add('Gone list', '/gone.txt');
      const metrics = createMetrics({ defaultMetrics: false });
      // An upstream unchanged for more than a second is quiet, so that an hour shows it.
      const scheduler = startPullScheduler({
        store, clock, env: {}, allowlist: createAllowlist(undefined), logger: silentLogger, checkMs: 3_600_000, owner: 'health-metrics-test',
        health: { quietDays: 1 / 86_400 }, report: (event) => metrics.background(event),
      });
      const text = async () => parsePrometheusText(await metrics.scrape());
      const rejected = (t: Exposition, fid: number, reason: string) => sampleValue(t, 'threatgate_feed_rejected_values_total', { fid: String(fid), reason });
      try {
        await scheduler.tick();
        let t = await text();
        assert.deepEqual([stateOf(t, kept), stateOf(t, down), stateOf(t, gone)], ['ok', 'failing', 'ok']);
        assert.equal(rejected(t, kept, 'unparseable'), 1);
        assert.equal(rejected(t, kept, 'allowlisted'), 1);
        assert.equal(rejected(t, down, 'unparseable'), 0, 'every reason of a known feed starts at 0');
        assert.equal(rejected(t, down, 'allowlisted'), 0);
        const [run] = await store.listFeedRuns(kept, 1);
        assert.equal(run?.trigger, 'schedule', 'the scheduler\'s pulls are recorded as scheduled');

        // An hour on: the kept list answers 304 (nothing left out again), the down list fails again,
        // and the removed feed is paused.
        assert.equal(await store.removeFeedSource(gone), true);
        clock.advance(3_600_000 + 1000);
        await scheduler.tick();
        t = await text();
        assert.deepEqual([stateOf(t, kept), stateOf(t, down), stateOf(t, gone)], ['quiet-upstream', 'failing', 'paused']);
        assert.equal(rejected(t, kept, 'unparseable'), 1);
        assert.equal(rejected(t, kept, 'allowlisted'), 1);
      } finally {
        await scheduler.stop();
        await store.close();
      }
    });
  });
}
