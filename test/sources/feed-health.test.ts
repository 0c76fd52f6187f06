// A feed's health state (docs/interface.md section 12.1): each state, the boundaries of stale and quiet-upstream, the order
// in which they are decided; and the status row built from the store's facts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { feedHealthState, feedStatuses, type FeedHealthInput, type FeedHealthState } from '../../src/sources/feed-health.js';
import type { FeedHealthFacts, FeedRun } from '../../src/store/contract/runs.js';

const NOW = Date.parse('2026-03-20T12:00:00Z');
const SECOND = 1000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const SETTINGS = { quietDays: 14 };

/** A feed pulled well an hour ago on an hourly schedule, its upstream changed yesterday: ok. */
const HEALTHY: FeedHealthInput = {
  hasSource: true,
  lastRun: 'good',
  stampPulled: NOW - HOUR,
  lastGoodRun: NOW - HOUR,
  stampModified: NOW - DAY,
  scheduleSeconds: 3600,
};

const CASES: [what: string, change: Partial<FeedHealthInput>, state: FeedHealthState][] = [
  ['a feed pulled on schedule whose upstream changed recently', {}, 'ok'],
  // paused comes first, whatever else holds.
  ['a removed source', { hasSource: false }, 'paused'],
  ['a removed source whose last run failed', { hasSource: false, lastRun: 'failed' }, 'paused'],
  ['a removed source never pulled', { hasSource: false, lastRun: null, stampPulled: null, lastGoodRun: null }, 'paused'],
  // never-pulled: no run and no stamp_pulled.
  ['a source with no run and no stamp_pulled', { lastRun: null, stampPulled: null, lastGoodRun: null, stampModified: null }, 'never-pulled'],
  ['a source pulled before runs were recorded (stamp_pulled only)', { lastRun: null, lastGoodRun: null }, 'ok'],
  // failing: the last run failed, before stale or quiet.
  ['a source whose last run failed', { lastRun: 'failed' }, 'failing'],
  ['a source whose only run failed', { lastRun: 'failed', stampPulled: null, lastGoodRun: null, stampModified: null }, 'failing'],
  ['a failing source that is also stale and quiet', { lastRun: 'failed', stampPulled: NOW - 30 * DAY, lastGoodRun: NOW - 30 * DAY, stampModified: NOW - 60 * DAY }, 'failing'],
  // stale: no good pull for more than two periods.
  ['an hourly source last pulled exactly two hours ago', { stampPulled: NOW - 2 * HOUR, lastGoodRun: NOW - 2 * HOUR }, 'ok'],
  ['an hourly source last pulled two hours and a second ago', { stampPulled: NOW - 2 * HOUR - SECOND, lastGoodRun: NOW - 2 * HOUR - SECOND }, 'stale'],
  ['a daily source last pulled exactly two days ago', { scheduleSeconds: 86_400, stampPulled: NOW - 2 * DAY, lastGoodRun: NOW - 2 * DAY }, 'ok'],
  ['a daily source last pulled two days and a second ago', { scheduleSeconds: 86_400, stampPulled: NOW - 2 * DAY - SECOND, lastGoodRun: NOW - 2 * DAY - SECOND }, 'stale'],
  ['a weekly source last pulled 13 days ago', { scheduleSeconds: 7 * 86_400, stampPulled: NOW - 13 * DAY, lastGoodRun: NOW - 13 * DAY }, 'ok'],
  ['a weekly source last pulled 15 days ago', { scheduleSeconds: 7 * 86_400, stampPulled: NOW - 15 * DAY, lastGoodRun: NOW - 15 * DAY }, 'stale'],
  ['an hourly source whose good run is recent though stamp_pulled is old', { stampPulled: NOW - 5 * HOUR, lastGoodRun: NOW - HOUR }, 'ok'],
  ['an hourly source whose stamp_pulled is recent though its last good run is old', { stampPulled: NOW - HOUR, lastGoodRun: NOW - 5 * HOUR }, 'ok'],
  ['a source whose definition no longer parses (no period): never stale', { scheduleSeconds: null, stampPulled: NOW - 90 * DAY, lastGoodRun: NOW - 90 * DAY, stampModified: NOW - DAY }, 'ok'],
  ['a stale source whose upstream is also quiet', { stampPulled: NOW - 3 * HOUR, lastGoodRun: NOW - 3 * HOUR, stampModified: NOW - 30 * DAY }, 'stale'],
  // quiet-upstream: good pulls, but stamp_modified older than quietDays.
  ['a source whose upstream changed exactly 14 days ago', { stampModified: NOW - 14 * DAY }, 'ok'],
  ['a source whose upstream changed 14 days and a second ago', { stampModified: NOW - 14 * DAY - SECOND }, 'quiet-upstream'],
  ['a source whose pulls never changed anything (stamp_modified null)', { stampModified: null }, 'ok'],
];

describe('feedHealthState', () => {
  for (const [what, change, state] of CASES) {
    it(`${what} › ${state}`, () => {
      assert.equal(feedHealthState({ ...HEALTHY, ...change }, SETTINGS, NOW), state);
    });
  }

  it('reads quietDays from the settings', () => {
    const input = { ...HEALTHY, stampModified: NOW - 3 * DAY };
    assert.equal(feedHealthState(input, { quietDays: 2 }, NOW), 'quiet-upstream');
    assert.equal(feedHealthState(input, { quietDays: 3 }, NOW), 'ok');
  });
});

const stamp = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

function run(over: Partial<FeedRun>): FeedRun {
  return {
    run: 1, fid: 1, started: stamp(NOW - HOUR), finished: stamp(NOW - HOUR + 2 * SECOND), seconds: 2, trigger: 'schedule', outcome: 'ok', http_status: 200,
    bytes: 100, values: 3, new_indicators: 1, new_links: 1, unlisted: 0, churn: 0, rejected: { unparseable: 0, allowlisted: 0 }, threats: 0, error: null, etag: null,
    last_modified: null, ...over,
  };
}

function facts(over: Partial<FeedHealthFacts>): FeedHealthFacts {
  return {
    fid: 1, feed: 'Example DROP', organization: 'Example Intel', schedule: 'daily', definition: JSON.stringify({ url: 'https://feeds.example.org/drop.txt', format: 'text', schedule: 'every 6h' }),
    stamp_pulled: stamp(NOW - HOUR), stamp_modified: stamp(NOW - DAY), listed: 3, last_run: run({}), last_good_run: run({}), ...over,
  };
}

describe('feedStatuses', () => {
  it('gives a pulled feed its state, the source\'s schedule, the last good pull and its age, and the last run\'s counts', () => {
    const [status] = feedStatuses([facts({})], SETTINGS, NOW);
    assert.deepEqual(status, {
      fid: 1, feed: 'Example DROP', organization: 'Example Intel', state: 'ok', schedule: 'every 6h', last_good_pull: stamp(NOW - HOUR),
      last_good_pull_age_seconds: 3600, last_run: run({}), values: 3, new_in_last_run: 1, churn: 0, last_error: null, stamp_modified: stamp(NOW - DAY),
    });
  });

  it('judges staleness by the source\'s schedule, not the feed\'s: 13 hours is stale for every 6h', () => {
    const old = run({ started: stamp(NOW - 13 * HOUR) });
    const [status] = feedStatuses([facts({ stamp_pulled: stamp(NOW - 13 * HOUR), last_run: old, last_good_run: old })], SETTINGS, NOW);
    assert.equal(status?.state, 'stale');
    assert.equal(status?.last_good_pull_age_seconds, 13 * 3600);
  });

  it('gives a failing feed the last run\'s error and the last good pull before it', () => {
    const failed = run({ run: 2, outcome: 'failed', values: null, new_indicators: null, new_links: null, unlisted: null, threats: null, http_status: 500, error: 'HTTP status 500' });
    const [status] = feedStatuses([facts({ last_run: failed })], SETTINGS, NOW);
    assert.equal(status?.state, 'failing');
    assert.equal(status?.last_error, 'HTTP status 500');
    assert.equal(status?.new_in_last_run, null);
    assert.equal(status?.churn, 0, 'the churn of the last good run');
    assert.equal(status?.last_good_pull, stamp(NOW - HOUR));
  });

  it('shows a removed source as paused, with the feed\'s own schedule', () => {
    const [status] = feedStatuses([facts({ definition: null })], SETTINGS, NOW);
    assert.equal(status?.state, 'paused');
    assert.equal(status?.schedule, 'daily');
  });

  it('shows a feed never pulled with no last pull, age, run or error', () => {
    const [status] = feedStatuses([facts({ stamp_pulled: null, stamp_modified: null, listed: 0, last_run: null, last_good_run: null })], SETTINGS, NOW);
    assert.deepEqual(
      { state: status?.state, last_good_pull: status?.last_good_pull, age: status?.last_good_pull_age_seconds, last_run: status?.last_run, error: status?.last_error },
      { state: 'never-pulled', last_good_pull: null, age: null, last_run: null, error: null },
    );
  });
});
