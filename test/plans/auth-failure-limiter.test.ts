// The failed-authentication limit: per client address and minute, refused with Retry-After until the minute ends, counted across cluster workers.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { RateLimitError } from '../../src/errors.js';
import { AUTH_FAILURE_WINDOW, createAuthFailureLimiter } from '../../src/plans/auth-failure-limiter.js';
import { createPrimaryCounterStores, servePrimaryCounters } from '../../src/plans/cluster-rate-limit-store.js';
import { FixedWindowStore } from '../../src/plans/fixed-window-store.js';

/** 10 s into a minute. */
const START = Date.parse('2026-01-15T10:00:10Z');

function refusal(error: unknown): RateLimitError {
  assert.ok(error instanceof RateLimitError, `not a RateLimitError: ${String(error)}`);
  return error;
}

describe('createAuthFailureLimiter', () => {
  it('allows perMinute failures from an address, then refuses it with Retry-After until the minute ends', async () => {
    let now = START;
    const limiter = createAuthFailureLimiter({ perMinute: 3, now: () => now });
    for (let i = 0; i < 3; i++) {
      await limiter.assertAllowed('198.51.100.7');
      await limiter.recordFailure('198.51.100.7');
    }
    const error = refusal(await Promise.resolve(limiter.assertAllowed('198.51.100.7')).catch((e: unknown) => e));
    assert.equal(error.status, 429);
    assert.equal(error.headers['Retry-After'], '50');
    assert.match(error.message, /^Too many failed authentications from this address: 3 a minute\./);
    // Other addresses are not affected; the refused one is again from the next minute on.
    await limiter.assertAllowed('198.51.100.8');
    now += 20_000;
    assert.equal(refusal(await Promise.resolve(limiter.assertAllowed('198.51.100.7')).catch((e: unknown) => e)).headers['Retry-After'], '30');
    now = START - (START % AUTH_FAILURE_WINDOW.ms) + AUTH_FAILURE_WINDOW.ms;
    await limiter.assertAllowed('198.51.100.7');
  });

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

  it('reads no shared counter for an address that has not failed in this process this minute', async () => {
    let now = START;
    let reads = 0;
    const counters = () => {
      const store = new FixedWindowStore(() => now);
      const get = store.get.bind(store);
      store.get = (key: string) => (reads++, get(key));
      return store;
    };
    const limiter = createAuthFailureLimiter({ perMinute: 3, counters, now: () => now });
    for (let i = 0; i < 5; i++) await limiter.assertAllowed('198.51.100.20');
    assert.equal(reads, 0);
    await limiter.recordFailure('198.51.100.20');
    await limiter.assertAllowed('198.51.100.20');
    assert.equal(reads, 1, 'after a failure the address is looked up');
    now += 60_000;
    await limiter.assertAllowed('198.51.100.20');
    assert.equal(reads, 1, 'and no longer once its window has ended');
  });

  it('sums the failures of every worker in the cluster primary (serve --workers without Redis)', async () => {
    const atPrimary = new EventEmitter();
    servePrimaryCounters(atPrimary as unknown as Parameters<typeof servePrimaryCounters>[0]);
    const worker = () => {
      const atWorker = new EventEmitter();
      const handle = { isConnected: () => true, send: (m: unknown) => (setImmediate(() => atWorker.emit('message', structuredClone(m))), true) } as unknown as Worker;
      const counters = createPrimaryCounterStores({
        send: (m: unknown) => (setImmediate(() => atPrimary.emit('message', handle, structuredClone(m))), true),
        on: (event, listener) => atWorker.on(event, listener),
      });
      return createAuthFailureLimiter({ perMinute: 4, counters });
    };
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
