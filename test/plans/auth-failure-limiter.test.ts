// The failed-authentication limit: per client address over a sliding minute, refused with Retry-After until its oldest failure is a minute old, counted across cluster workers.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { RateLimitError } from '../../src/errors.js';
import { AUTH_FAILURE_WINDOW_MS, createAuthFailureLimiter } from '../../src/plans/auth-failure-limiter.js';
import { createPrimaryCounterStores, servePrimaryCounters } from '../../src/plans/cluster-rate-limit-store.js';
import type { RateLimitStoreFactory } from '../../src/plans/rate-limiters.js';
import { MemorySlidingLog } from '../../src/plans/sliding-log.js';

/** 10 s into a minute. */
const START = Date.parse('2026-01-15T10:00:10Z');

/** A cluster primary on `clock` serving the counters, and a factory of workers' counters that reach it (in order, as IPC does). */
function primaryCounters(clock?: () => number): () => RateLimitStoreFactory {
  const atPrimary = new EventEmitter();
  servePrimaryCounters(atPrimary as unknown as Parameters<typeof servePrimaryCounters>[0], clock);
  return () => {
    const atWorker = new EventEmitter();
    const handle = { isConnected: () => true, send: (m: unknown) => (setImmediate(() => atWorker.emit('message', structuredClone(m))), true) } as unknown as Worker;
    return createPrimaryCounterStores({
      send: (m: unknown) => (setImmediate(() => atPrimary.emit('message', handle, structuredClone(m))), true),
      on: (event, listener) => atWorker.on(event, listener),
    });
  };
}

function refusal(error: unknown): RateLimitError {
  assert.ok(error instanceof RateLimitError, `not a RateLimitError: ${String(error)}`);
  return error;
}

describe('createAuthFailureLimiter', () => {
  it('allows perMinute failures from an address, then refuses it with Retry-After until the oldest is a minute old', async () => {
    let now = START;
    const limiter = createAuthFailureLimiter({ perMinute: 3, now: () => now });
    for (let i = 0; i < 3; i++) {
      await limiter.assertAllowed('198.51.100.7');
      await limiter.recordFailure('198.51.100.7');
    }
    const error = refusal(await Promise.resolve(limiter.assertAllowed('198.51.100.7')).catch((e: unknown) => e));
    assert.equal(error.status, 429);
    assert.equal(error.headers['Retry-After'], '60');
    assert.match(error.message, /^Too many failed authentications from this address: 3 a minute\./);
    // Other addresses are not affected; the refused one is again once its failures are a minute old.
    await limiter.assertAllowed('198.51.100.8');
    now += 20_000;
    assert.equal(refusal(await Promise.resolve(limiter.assertAllowed('198.51.100.7')).catch((e: unknown) => e)).headers['Retry-After'], '40');
    now = START + AUTH_FAILURE_WINDOW_MS;
    await limiter.assertAllowed('198.51.100.7');
  });

  for (const where of ['this process', 'the cluster primary'] as const) {
    it(`refuses failures spread across a minute boundary once perMinute fall within a minute (${where})`, async () => {
      // 10:00:50, 10:00:55 and 10:00:59, then 10:01:05 and 10:01:20: with windows aligned to the clock the count started again at 10:01:00.
      const at = (time: string) => Date.parse(`2026-01-15T${time}Z`);
      let now = at('10:00:50');
      const clock = () => now;
      const limiter = createAuthFailureLimiter({ perMinute: 4, now: clock, ...(where === 'this process' ? {} : { counters: primaryCounters(clock)() }) });
      const fail = async (time: string) => {
        now = at(time);
        await limiter.assertAllowed('198.51.100.30');
        await limiter.recordFailure('198.51.100.30');
      };
      for (const time of ['10:00:50', '10:00:55', '10:00:59', '10:01:05']) await fail(time);
      now = at('10:01:20');
      const error = refusal(await Promise.resolve(limiter.assertAllowed('198.51.100.30')).catch((e: unknown) => e));
      // Four within the minute from 10:00:50: one more when the first is a minute old, at 10:01:50.
      assert.equal(error.headers['Retry-After'], '30');
      now = at('10:01:49.900');
      await assert.rejects(async () => limiter.assertAllowed('198.51.100.30'), RateLimitError);
      await fail('10:01:50.001');
      // The second is still within the minute: refused again until it is a minute old.
      assert.equal(refusal(await Promise.resolve(limiter.assertAllowed('198.51.100.30')).catch((e: unknown) => e)).headers['Retry-After'], '5');
      now = at('10:02:06');
      await limiter.assertAllowed('198.51.100.30');
    });
  }

  it('counts an IPv6 /56 as one address, as the anonymous rate limits do', async () => {
    const limiter = createAuthFailureLimiter({ perMinute: 2, now: () => START });
    await limiter.recordFailure('2001:db8:0:1::1');
    await limiter.recordFailure('2001:db8:0:2::99');
    await assert.rejects(async () => limiter.assertAllowed('2001:db8:0:3::5'), RateLimitError);
    await limiter.assertAllowed('2001:db8:1::1');
  });

  it('reports each failure and each refusal', async () => {
    const heard: string[] = [];
    const limiter = createAuthFailureLimiter({ perMinute: 1, now: () => START, onFailure: () => heard.push('failure'), onRefused: () => heard.push('refused') });
    await limiter.recordFailure('192.0.2.1');
    await assert.rejects(async () => limiter.assertAllowed('192.0.2.1'));
    await assert.rejects(async () => limiter.assertAllowed('192.0.2.1'));
    assert.deepEqual(heard, ['failure', 'refused', 'refused']);
  });

  it('reads no shared log for an address that has not failed in this process in the last minute', async () => {
    let now = START;
    let reads = 0;
    const counters: RateLimitStoreFactory = () => undefined;
    counters.slidingLog = (window) => {
      const log = new MemorySlidingLog(window, () => now);
      return { add: (key) => log.add(key), count: (key) => (reads++, log.count(key)) };
    };
    const limiter = createAuthFailureLimiter({ perMinute: 3, counters, now: () => now });
    for (let i = 0; i < 5; i++) await limiter.assertAllowed('198.51.100.20');
    assert.equal(reads, 0);
    await limiter.recordFailure('198.51.100.20');
    await limiter.assertAllowed('198.51.100.20');
    assert.equal(reads, 1, 'after a failure the address is looked up');
    now += 60_000;
    await limiter.assertAllowed('198.51.100.20');
    assert.equal(reads, 1, 'and no longer once its failure is a minute old');
  });

  it('sums the failures of every worker in the cluster primary (serve --workers without Redis)', async () => {
    const workerCounters = primaryCounters();
    const worker = () => createAuthFailureLimiter({ perMinute: 4, counters: workerCounters() });
    const [a, b] = [worker(), worker()];
    for (const limiter of [a, b, a, b]) {
      await limiter.assertAllowed('203.0.113.9');
      await limiter.recordFailure('203.0.113.9');
    }
    await assert.rejects(async () => a.assertAllowed('203.0.113.9'), RateLimitError);
    await assert.rejects(async () => b.assertAllowed('203.0.113.9'), RateLimitError);
    await a.assertAllowed('203.0.113.10');
  });
});
