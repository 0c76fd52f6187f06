// The sliding log in this process: a key's events within the last window, at most `keep` of them, and keys forgotten once their events have left it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemorySlidingLog } from '../../src/plans/sliding-log.js';

describe('MemorySlidingLog', () => {
  it('counts the events of the last window, and says when the oldest leaves it', () => {
    let now = 1_000_000;
    const log = new MemorySlidingLog({ ms: 60_000, keep: 10 }, () => now);
    log.addNow('a');
    now += 30_000;
    assert.deepEqual(log.addNow('a'), { count: 2, oldestLeavesInMs: 30_000 });
    assert.deepEqual(log.countNow('b'), { count: 0, oldestLeavesInMs: 0 });
    now += 30_000;
    // An event exactly a window old has left it.
    assert.deepEqual(log.countNow('a'), { count: 1, oldestLeavesInMs: 30_000 });
    now += 30_000;
    assert.deepEqual(log.countNow('a'), { count: 0, oldestLeavesInMs: 0 });
  });

  it('keeps the latest `keep` events of a key', () => {
    let now = 1_000_000;
    const log = new MemorySlidingLog({ ms: 60_000, keep: 3 }, () => now);
    for (let i = 0; i < 10; i++, now += 1000) log.addNow('a');
    // The last three, at +7 s, +8 s and +9 s: the oldest leaves 60 s after +7 s.
    now = 1_000_000 + 10_000;
    assert.deepEqual(log.countNow('a'), { count: 3, oldestLeavesInMs: 57_000 });
  });

  it('forgets keys whose events have all left the window', () => {
    let now = 1_000_000;
    const log = new MemorySlidingLog({ ms: 60_000, keep: 3 }, () => now);
    for (let i = 0; i < 1000; i++) log.addNow(`k${i}`);
    now += 120_001;
    log.addNow('late');
    const held = (log as unknown as { logs: Map<string, number[]> }).logs;
    assert.deepEqual([...held.keys()], ['late']);
  });
});
