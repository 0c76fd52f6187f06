// `serve` with REDIS_URL (built CLI): start-up when Redis is unreachable (open or closed), and workers counting in Redis.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createClient } from 'redis';
import { loadConfig } from '../../src/config.js';
import { getOnNewConnection, startCli, type CliProcess } from '../helpers/cli-process.js';
import { seedDatabase } from '../helpers/gateway-instances.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';

const REDIS_URL = process.env.TEST_REDIS_URL;
const UNREACHABLE = 'redis://127.0.0.1:1';
const PLANS = { plans: { pro: { perSecond: 1000, perDay: 6, perMonth: 1000 } } };

describe('threatgate serve with REDIS_URL (built)', () => {
  let dir: string;
  let backend: Backend;
  let keys: Record<string, string>;
  let keyIds: Record<string, string>;
  let failOpen: CliProcess;
  let failClosed: CliProcess;
  let shared: CliProcess | undefined;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-redis-serve-'));
    backend = storeBackends()[0]!;
    const seeded = await seedDatabase(backend, loadConfig({ overrides: PLANS }));
    ({ keys, keyIds } = seeded);
    const plansFile = join(dir, 'plans.json');
    writeFileSync(plansFile, JSON.stringify(PLANS));
    const closedFile = join(dir, 'closed.json');
    writeFileSync(closedFile, JSON.stringify({ ...PLANS, redis: { onError: 'closed' } }));
    const serve = ['serve', '--port', '0', '--db', seeded.location];
    // Started together: each waits up to 3 s for Redis, and process start-up is slow on small machines.
    failOpen = startCli([...serve, '--workers', '1', '--config', plansFile], { REDIS_URL: UNREACHABLE });
    failClosed = startCli([...serve, '--workers', '1', '--config', closedFile], { REDIS_URL: UNREACHABLE });
    if (REDIS_URL) shared = startCli([...serve, '--workers', '2', '--config', closedFile], { REDIS_URL });
  });

  after(async () => {
    for (const cli of [failOpen, failClosed, shared]) if (cli && cli.child.exitCode === null) cli.child.kill('SIGKILL');
    if (REDIS_URL) {
      // The day and month windows would otherwise stay in the machine's Redis for 30 days.
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      for await (const found of client.scanIterator({ MATCH: `tg:rl:*:key:${keyIds.pro}`, COUNT: 100 })) if (found.length > 0) await client.del(found);
      await client.close();
    }
    await backend.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('with Redis unreachable at start-up', () => {
    it('and redis.onError "open" (the default): starts with a warning, serves without limits, and exits 0 on SIGTERM', async () => {
      const base = await failOpen.ready;
      const warning = failOpen.logs().find((e) => e.level === 'warn');
      assert.match(warning!.msg, /^starting without Redis/);
      assert.equal(warning!.redis, 'redis://127.0.0.1:1');
      for (let i = 0; i < 8; i++) assert.equal((await fetch(`${base}/api/threat.php?tid=1&key=${keys.pro}`)).status, 200);
      failOpen.child.kill('SIGTERM');
      assert.equal(await failOpen.exited, 0);
    });

    it('and redis.onError "closed": refuses to start with one line naming REDIS_URL, exit code 1', async () => {
      assert.equal(await failClosed.exited, 1);
      const lines = failClosed.stderr().split('\n').filter((line) => line.startsWith('threatgate:'));
      assert.deepEqual(lines, ['threatgate: REDIS_URL: cannot reach Redis at redis://127.0.0.1:1 (ECONNREFUSED), and redis.onError is "closed"']);
      assert.equal(failClosed.stdout(), '');
    });
  });

  it('with --workers 2 and a reachable Redis: the workers count one budget per key there', { skip: REDIS_URL ? false : 'set TEST_REDIS_URL to run against a real Redis' }, async () => {
    const base = await shared!.ready;
    const statuses: number[] = [];
    const remaining: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await getOnNewConnection(base, `/api/threat.php?tid=1&key=${keys.pro}`);
      statuses.push(res.status);
      remaining.push(String(res.headers['x-requests-remaining-day']));
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 429]);
    assert.deepEqual(remaining.slice(0, 6), ['5', '4', '3', '2', '1', '0']);
    const pids = new Set(shared!.logs().filter((e) => e.msg === 'request').map((e) => e.pid));
    assert.ok(pids.size >= 2, `served by ${[...pids].join(', ')}`);
    shared!.child.kill('SIGTERM');
    assert.equal(await shared!.exited, 0);
  });
});
