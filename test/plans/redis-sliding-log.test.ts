// The failed authentications' sliding log in Redis: one list per address on Redis's clock, the latest `keep` times, shared by every instance.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createClient } from 'redis';
import { createAuthFailureLimiter } from '../../src/plans/auth-failure-limiter.js';
import { createLogger } from '../../src/logger.js';
import { RateLimitError } from '../../src/errors.js';
import { connectRedisRateLimits, type RedisRateLimits } from '../../src/plans/redis-rate-limit-store.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const needsRedis = REDIS_URL ? false : 'set TEST_REDIS_URL (e.g. redis://127.0.0.1:6379) to run the Redis sliding log tests';
const PREFIX = `tg:test:${randomBytes(6).toString('hex')}:`;

describe('sliding logs in Redis', { skip: needsRedis }, () => {
  const opened: RedisRateLimits[] = [];
  const connect = async () => {
    const redis = await connectRedisRateLimits({ url: REDIS_URL!, onError: 'closed', logger: createLogger('silent', () => undefined), prefix: PREFIX });
    opened.push(redis);
    return redis;
  };
  after(async () => {
    for (const redis of opened) await redis.close();
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 100 })) if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  it('counts the latest `keep` events of a key within the window, in a list under the window name', async () => {
    const [a, b] = [await connect(), await connect()];
    const window = { name: 'log-test', ms: 60_000, keep: 3 };
    const [logA, logB] = [a.stores.slidingLog!(window), b.stores.slidingLog!(window)];
    assert.deepEqual(await logA.count('ip:192.0.2.1'), { count: 0, oldestLeavesInMs: 0 });
    await logA.add('ip:192.0.2.1');
    await logB.add('ip:192.0.2.1');
    for (let i = 0; i < 3; i++) await logA.add('ip:192.0.2.1');
    const { count, oldestLeavesInMs } = await logB.count('ip:192.0.2.1');
    assert.equal(count, 3);
    assert.ok(oldestLeavesInMs > 50_000 && oldestLeavesInMs <= 60_000, `${oldestLeavesInMs} ms`);
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      assert.equal(await client.type(`${PREFIX}log-test:ip:192.0.2.1`), 'list');
      assert.equal(await client.lLen(`${PREFIX}log-test:ip:192.0.2.1`), 3);
      assert.ok((await client.pTTL(`${PREFIX}log-test:ip:192.0.2.1`)) <= 60_000);
    } finally {
      await client.close();
    }
  });

  it('lets events leave the window as Redis\'s clock passes it', async () => {
    const log = (await connect()).stores.slidingLog!({ name: 'short', ms: 300, keep: 5 });
    await log.add('ip:192.0.2.2');
    assert.equal((await log.count('ip:192.0.2.2')).count, 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(await log.count('ip:192.0.2.2'), { count: 0, oldestLeavesInMs: 0 });
  });

  it('refuses an address at the limit on every instance, until its oldest failure is a minute old', async () => {
    const limiters = [await connect(), await connect()].map((redis) => createAuthFailureLimiter({ perMinute: 3, counters: redis.stores }));
    for (const limiter of [limiters[0]!, limiters[1]!, limiters[0]!]) await limiter.recordFailure('198.51.100.77');
    for (const limiter of limiters) {
      const error = await Promise.resolve(limiter.assertAllowed('198.51.100.77')).catch((e: unknown) => e);
      assert.ok(error instanceof RateLimitError);
      const retryAfter = Number(error.headers['Retry-After']);
      assert.ok(retryAfter >= 55 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    }
  });
});
