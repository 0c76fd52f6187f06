// The cluster primary's counters as a worker reaches them: the calls of one event-loop turn in one message.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { Options } from 'express-rate-limit';
import { createPrimaryCounterStores, servePrimaryCounters } from '../../src/plans/cluster-rate-limit-store.js';
import { RATE_WINDOWS, createRateLimiter } from '../../src/plans/rate-limiters.js';
import { BURST_REFUSALS, limiterTrace } from '../helpers/limiter-trace.js';

/** A worker and its primary in one process, with IPC's copying and its asynchrony. */
function connectedPair() {
  const atPrimary = new EventEmitter();
  const atWorker = new EventEmitter();
  const sent: { type: string }[] = [];
  const worker = {
    isConnected: () => true,
    send: (message: unknown) => (setImmediate(() => atWorker.emit('message', structuredClone(message))), true),
  } as unknown as Worker;
  servePrimaryCounters(atPrimary as unknown as Parameters<typeof servePrimaryCounters>[0]);
  const stores = createPrimaryCounterStores({
    send: (message: unknown) => {
      sent.push(message as { type: string });
      setImmediate(() => atPrimary.emit('message', worker, structuredClone(message)));
      return true;
    },
    on: (event, listener) => atWorker.on(event, listener),
  });
  const storeFor = (index: number) => {
    const store = stores(RATE_WINDOWS[index]!)!;
    store.init?.({ windowMs: RATE_WINDOWS[index]!.ms } as Options);
    return store;
  };
  return { sent, storeFor, stores };
}

describe('rate-limit counters held by the cluster primary', () => {
  it('sends the calls of one turn as one message, and counts them in call order', async () => {
    const { sent, storeFor } = connectedPair();
    const second = storeFor(0);
    const day = storeFor(1);
    const calls = [...Array.from({ length: 10 }, () => second.increment('key:a')), day.increment('key:a'), second.increment('key:b')];
    const results = await Promise.all(calls);
    assert.deepEqual(sent.map((m) => m.type), ['threatgate:rate-limit-batch']);
    assert.deepEqual(results.map((r) => r.totalHits), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 1]);
    assert.ok(results.every((r) => r.resetTime instanceof Date));
  });

  it('sends a lone call as a single request, and keeps counting across turns', async () => {
    const { sent, storeFor } = connectedPair();
    const second = storeFor(0);
    await Promise.all([second.increment('key:a'), second.increment('key:a')]);
    const third = await second.increment('key:a');
    assert.equal(third.totalHits, 3);
    assert.deepEqual(sent.map((m) => m.type), ['threatgate:rate-limit-batch', 'threatgate:rate-limit']);
    await second.decrement('key:a');
    assert.equal((await second.get!('key:a'))?.totalHits, 2);
    await second.resetKey('key:a');
    assert.equal(await second.get!('key:a'), undefined);
  });

  it('fails the calls, not the process, when the channel to the primary is closed', async () => {
    const stores = createPrimaryCounterStores({
      send: () => {
        throw new Error('channel closed');
      },
      on: () => undefined,
    });
    const second = stores(RATE_WINDOWS[0]!)!;
    const results = await Promise.allSettled([second.increment('key:a'), second.increment('key:b')]);
    assert.deepEqual(
      results.map((r) => r.status === 'rejected' && String(r.reason)),
      ['Error: rate-limit counters: cannot reach the cluster primary (channel closed)', 'Error: rate-limit counters: cannot reach the cluster primary (channel closed)'],
    );
  });

  it('counts a request\'s windows in one message, in order, stopping after the first past its limit', async () => {
    const { sent, stores } = connectedPair();
    const windows = [
      { name: 'second', ms: 1000, limit: 2 },
      { name: 'day', ms: 86_400_000, limit: 100 },
    ];
    const counted = [];
    for (let i = 0; i < 3; i++) counted.push(await stores.countInOrder!('key:a', windows));
    assert.deepEqual(sent.map((m) => m.type), ['threatgate:rate-limit', 'threatgate:rate-limit', 'threatgate:rate-limit']);
    // The third passes the second's limit: the day is not counted for it.
    assert.deepEqual(counted.map((c) => c.map((w) => w.totalHits)), [[1, 1], [2, 2], [3]]);
    assert.ok(counted.flat().every((w) => typeof w.resetMs === 'number' && w.resetMs > Date.now()));
  });

  it('gives a limiter over them the same counts, headers and 429s as one counting in this process, one message a request', async () => {
    const here = await limiterTrace(createRateLimiter());
    const { sent, stores } = connectedPair();
    const atPrimary = await limiterTrace(createRateLimiter(stores));
    assert.deepEqual(atPrimary, here);
    assert.deepEqual(here.map((r) => r.refused), BURST_REFUSALS);
    assert.equal(sent.length, 7);
    assert.ok(sent.every((m) => (m as unknown as { op?: string }).op === 'incrementInOrder'));
  });
});
