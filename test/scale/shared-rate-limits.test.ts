// Rate limits kept in Redis: one budget across instances, and the documented behaviour when Redis fails (open or closed).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import request from 'supertest';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import type { Options } from 'express-rate-limit';
import { createRateLimiter, RATE_WINDOWS } from '../../src/plans/rate-limiters.js';
import { connectRedisRateLimits, STORE_FAILURE_MESSAGE, type RedisRateLimits } from '../../src/plans/redis-rate-limit-store.js';
import { BURST_REFUSALS, limiterTrace } from '../helpers/limiter-trace.js';
import { openInstance, seedDatabase, type Instance } from '../helpers/gateway-instances.js';
import { eventually } from '../helpers/eventually.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';
import { startTcpProxy, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { assertTaxiiError, taxiiGet } from '../taxii/taxii-request.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const needsRedis = REDIS_URL ? false : 'set TEST_REDIS_URL (e.g. redis://127.0.0.1:6379) to run the Redis-backed rate limit tests';
/** Nothing listens on port 1: connections are refused at once. */
const UNREACHABLE = 'redis://127.0.0.1:1';
/** One prefix per run, so parallel or repeated runs never share counters; removed at the end. */
const PREFIX = `tg:test:${randomBytes(6).toString('hex')}:`;

const config = loadConfig({
  overrides: {
    plans: {
      anonymous: { perSecond: 1000, perDay: 1000, perMonth: 10000 },
      pro: { perSecond: 1000, perDay: 5, perMonth: 1000 },
      feed: { perSecond: 1000, perDay: 1000, perMonth: 10000 },
    },
  },
});

function captureLogger() {
  const lines: string[] = [];
  const logger = createLogger('info', (line) => lines.push(line));
  const messages = () => lines.map((line) => JSON.parse(line) as { level: string; msg: string; reason?: string });
  return { logger, messages };
}

async function removeTestKeys(): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for await (const keys of client.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 100 })) if (keys.length > 0) await client.del(keys);
  await client.close();
}

describe('rate limits with REDIS_URL', () => {
  let backend: Backend;
  let location: string;
  let keys: Record<string, string>;
  before(async () => {
    backend = storeBackends()[0]!;
    ({ location, keys } = await seedDatabase(backend, config));
  });
  after(async () => {
    await backend.cleanup();
    if (REDIS_URL) await removeTestKeys();
  });

  describe('two gateway instances sharing one Redis', { skip: needsRedis }, () => {
    const redis: RedisRateLimits[] = [];
    const instances: Instance[] = [];
    before(async () => {
      for (let i = 0; i < 2; i++) {
        const shared = await connectRedisRateLimits({ url: REDIS_URL!, onError: 'closed', logger: captureLogger().logger, prefix: `${PREFIX}shared:` });
        redis.push(shared);
        instances.push(await openInstance(location, config, { rateLimitStores: shared.stores }));
      }
    });
    after(async () => {
      for (const instance of instances) await instance.close();
      for (const shared of redis) await shared.close();
    });

    it('count one budget per key: requests alternate between instances and the sixth is refused with 429', async () => {
      const [a, b] = instances as [Instance, Instance];
      const remaining: string[] = [];
      for (const instance of [a, b, a, b, a]) {
        const res = await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.pro}`).expect(200);
        remaining.push(String(res.headers['x-requests-remaining-day']));
      }
      assert.deepEqual(remaining, ['4', '3', '2', '1', '0']);
      const refused = await request(b.app).get(`/api/threat.php?tid=1&key=${keys.pro}`).expect(429);
      assert.match(refused.body.error, /^API rate limit exceeded: 5 requests per day for the pro plan/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
    });

    it('count the lookup API on one instance and the TAXII gateway on the other against the same budget', async () => {
      const [a, b] = instances as [Instance, Instance];
      const lookup = await request(a.app).get(`/api/threat.php?tid=1&key=${keys.feed}`).expect(200);
      const taxii = await taxiiGet(b.app, '/taxii2/', keys.feed!).expect(200);
      assert.equal(Number(taxii.headers['x-requests-remaining-day']), Number(lookup.headers['x-requests-remaining-day']) - 1);
    });
  });

  describe('failed authentications counted in one Redis by two instances', { skip: needsRedis }, () => {
    const redis: RedisRateLimits[] = [];
    const instances: Instance[] = [];
    const guarded = loadConfig({ overrides: { plans: config.plans, trustProxy: true, auth: { failuresPerMinute: 3 } } });
    before(async () => {
      for (let i = 0; i < 2; i++) {
        const shared = await connectRedisRateLimits({ url: REDIS_URL!, onError: 'closed', logger: captureLogger().logger, prefix: `${PREFIX}auth:` });
        redis.push(shared);
        instances.push(await openInstance(location, guarded, { rateLimitStores: shared.stores }));
      }
    });
    after(async () => {
      for (const instance of instances) await instance.close();
      for (const shared of redis) await shared.close();
    });

    it('refuse an address on both instances once its failures on either add up to the limit; other addresses pass', async () => {
      const [a, b] = instances as [Instance, Instance];
      const lookup = (instance: Instance, from: string, key: string) => request(instance.app).get(`/api/threat.php?tid=1&key=${key}`).set('X-Forwarded-For', from);
      // An address Redis has never counted passes (a missing counter is no failure).
      await lookup(a, '203.0.113.50', keys.pro!).expect(200);
      for (const instance of [a, b, a]) await lookup(instance, '203.0.113.51', 'A'.repeat(43)).expect(401);
      for (const instance of [b, a]) {
        const refused = await lookup(instance, '203.0.113.51', keys.pro!).expect(429);
        assert.match(refused.body.error, /^Too many failed authentications from this address: 3 a minute\./);
        assert.ok(Number(refused.headers['retry-after']) >= 1 && Number(refused.headers['retry-after']) <= 60);
      }
      assertTaxiiError(await taxiiGet(b.app, '/taxii2/', keys.pro!).set('X-Forwarded-For', '203.0.113.51'), 429);
      await lookup(b, '203.0.113.52', keys.pro!).expect(200);
    });
  });

  describe('a request\'s windows counted in Redis in one round trip', { skip: needsRedis }, () => {
    it('gives the same counts, headers and 429s as counting in this process, under the keys the windows\' stores read', async () => {
      const here = await limiterTrace(createRateLimiter());
      const shared = await connectRedisRateLimits({ url: REDIS_URL!, onError: 'closed', logger: captureLogger().logger, prefix: `${PREFIX}in-order:` });
      try {
        assert.ok(shared.stores.countInOrder);
        const inRedis = await limiterTrace(createRateLimiter(shared.stores));
        assert.deepEqual(inRedis, here);
        assert.deepEqual(here.map((r) => r.refused), BURST_REFUSALS);
        // The windows' own stores see those counts: 7 in the second, 3 in the day (the 4th to 7th
        // stopped at the second), 2 in the month (the 3rd stopped at the day).
        const counts = [];
        for (const window of RATE_WINDOWS) {
          const store = shared.stores(window)!;
          store.init?.({ windowMs: window.ms } as Options);
          counts.push((await store.get!('key:k1'))?.totalHits);
        }
        assert.deepEqual(counts, [7, 3, 2]);
      } finally {
        await shared.close();
      }
    });
  });

  describe('when Redis is unreachable at start-up', () => {
    it('with redis.onError "open": starts with one warning and lets requests pass unlimited, warning once per period', async () => {
      const { logger, messages } = captureLogger();
      const shared = await connectRedisRateLimits({ url: UNREACHABLE, onError: 'open', logger, startWaitMs: 300 });
      const instance = await openInstance(location, config, { rateLimitStores: shared.stores });
      try {
        for (let i = 0; i < 7; i++) await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.pro}`).expect(200);
        const warnings = messages().filter((m) => m.level === 'warn');
        assert.match(warnings[0]!.msg, /^starting without Redis: requests pass without rate limits/);
        assert.equal(warnings[0]!.reason, 'ECONNREFUSED');
        // 7 requests x 3 windows failed; one warning says so.
        assert.equal(warnings.filter((m) => m.msg === 'rate-limit counters unavailable: requests pass without limits').length, 1);
      } finally {
        await instance.close();
        await shared.close();
      }
    });

    it('with redis.onError "closed": refuses to start, naming REDIS_URL and the reason', async () => {
      const { logger } = captureLogger();
      await assert.rejects(connectRedisRateLimits({ url: UNREACHABLE, onError: 'closed', logger, startWaitMs: 300 }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.message, 'REDIS_URL: cannot reach Redis at redis://127.0.0.1:1 (ECONNREFUSED), and redis.onError is "closed"');
        return true;
      });
    });
  });

  describe('when Redis goes away mid-run', { skip: needsRedis }, () => {
    let proxy: TcpProxy;
    before(async () => {
      const target = new URL(REDIS_URL!);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    });
    after(() => proxy.close());

    async function outage(onError: 'open' | 'closed') {
      const { logger, messages } = captureLogger();
      const shared = await connectRedisRateLimits({ url: throughProxy(REDIS_URL!, proxy), onError, logger, prefix: `${PREFIX}${onError}:` });
      const instance = await openInstance(location, config, { rateLimitStores: shared.stores });
      return { instance, shared, messages, close: async () => (await instance.close(), await shared.close()) };
    }

    it('with "closed": answers 503 on both surfaces (no internals), and counts again once Redis is back', async () => {
      const { instance, messages, close } = await outage('closed');
      try {
        await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.feed}`).expect(200);
        await proxy.cut();
        const lookup = await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.feed}`).expect(503);
        assert.deepEqual(lookup.body, { error: STORE_FAILURE_MESSAGE });
        const taxii = await taxiiGet(instance.app, '/taxii2/', keys.feed!);
        assertTaxiiError(taxii, 503);
        assert.equal(JSON.parse(taxii.text).description, STORE_FAILURE_MESSAGE);
        assert.ok(messages().some((m) => m.msg === 'rate-limit counters unavailable: requests are refused with 503'));
        await proxy.restore();
        await eventually(async () => (await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.feed}`)).status === 200, 'requests pass again');
        const res = await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.feed}`).expect(200);
        assert.ok(Number(res.headers['x-requests-remaining-day']) < 999);
      } finally {
        await proxy.restore().catch(() => undefined);
        await close();
      }
    });

    it('with "open": lets requests pass while it is away, and counts again once it is back', async () => {
      const { instance, messages, close } = await outage('open');
      const remainingDay = async () => (await request(instance.app).get(`/api/threat.php?tid=1&key=${keys.feed}`).expect(200)).headers['x-requests-remaining-day'];
      try {
        assert.equal(await remainingDay(), '999');
        await proxy.cut();
        for (let i = 0; i < 3; i++) await remainingDay();
        assert.ok(messages().some((m) => m.level === 'warn' && m.msg === 'rate-limit counters unavailable: requests pass without limits'));
        await proxy.restore();
        await eventually(async () => (await remainingDay()) === '998', 'the counter in Redis is used again');
        assert.ok(messages().some((m) => m.msg === 'rate-limit counters in Redis are reachable again'));
      } finally {
        await proxy.restore().catch(() => undefined);
        await close();
      }
    });
  });
});
