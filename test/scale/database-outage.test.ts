// A database that goes away mid-run: 503 with a clear message on both surfaces and /readyz, and recovery when it is back.
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import request from 'supertest';
import { loadConfig } from '../../src/config.js';
import { STORE_UNAVAILABLE_MESSAGE } from '../../src/http/store-unavailable.js';
import { openInstance, seedDatabase, type Instance } from '../helpers/gateway-instances.js';
import { eventually } from '../helpers/eventually.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';
import { GENEROUS_PLANS } from '../helpers/test-app.js';
import { startTcpProxy, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { assertTaxiiError, INDICATORS_COLLECTION, taxiiGet } from '../taxii/taxii-request.js';

const DATABASE_URL = process.env.TEST_DATABASE_URL;
const needsPostgres = DATABASE_URL
  ? false
  : 'set TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run the database outage tests (PostgreSQL behind a TCP proxy)';
// Cached responses and key records are served until the store's versions are next read; reading them
// on every request makes each request meet the outage at once.
const config = loadConfig({ overrides: { ...GENEROUS_PLANS, cache: { versionCheckMs: 0 } } });
const OBJECTS = `/taxii2/api/collections/${INDICATORS_COLLECTION}/objects/?limit=5`;

/** Whether `promise` has settled by now (callbacks already due run first). */
const settledYet = (promise: Promise<unknown>) =>
  Promise.race([promise.then(() => true, () => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);

describe('PostgreSQL going away mid-run', { skip: needsPostgres }, () => {
  let backend: Backend;
  let proxy: TcpProxy;
  let instance: Instance;
  let keys: Record<string, string>;
  before(async () => {
    backend = storeBackends().find((b) => b.name === 'PostgreSQL')!;
    const seeded = await seedDatabase(backend, config);
    keys = seeded.keys;
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    instance = await openInstance(throughProxy(seeded.location, proxy), config);
  });
  after(async () => {
    await instance.close();
    await proxy.close();
    await backend.cleanup();
  });

  const lookup = () => request(instance.app).get(`/api/feed.php?fid=1&key=${keys.pro}`);

  it('serves normally while the database is reachable', async () => {
    await request(instance.app).get('/readyz').expect(200, { status: 'ready', puller: 'off' });
    await lookup().expect(200);
    assert.equal((await taxiiGet(instance.app, OBJECTS, keys.pro!)).status, 200);
  });

  describe('when the connection is refused', () => {
    before(() => proxy.cut());

    it('/readyz answers 503, /healthz still 200', async () => {
      const ready = await request(instance.app).get('/readyz').expect(503);
      assert.equal(ready.body.status, 'unavailable');
      await request(instance.app).get('/healthz').expect(200);
    });

    it('the lookup API answers 503 with the clear message and nothing internal, with or without a key', async () => {
      for (const res of [await lookup(), await request(instance.app).get('/api/threat.php?tid=1')]) {
        assert.equal(res.status, 503);
        assert.deepEqual(res.body, { error: STORE_UNAVAILABLE_MESSAGE });
      }
    });

    it('the TAXII gateway answers 503 with a TAXII error resource', async () => {
      const res = await taxiiGet(instance.app, OBJECTS, keys.pro!);
      assertTaxiiError(res, 503);
      assert.equal(JSON.parse(res.text).description, STORE_UNAVAILABLE_MESSAGE);
    });

    it('logs a short warning, not a stack trace per request', () => {
      const entries = instance.logLines.map((line) => JSON.parse(line) as { level: string; msg: string; reason?: string });
      assert.equal(entries.filter((e) => e.level === 'error').length, 0);
      const warnings = entries.filter((e) => e.msg === 'database unavailable: answering 503');
      assert.ok(warnings.length >= 1 && warnings.length <= 2, `one warning per renderer at most (got ${warnings.length})`);
      assert.equal(warnings[0]!.reason, 'ECONNREFUSED');
    });
  });

  describe('when it is back', () => {
    before(() => proxy.restore());

    it('/readyz and both surfaces answer 200 again', async () => {
      await eventually(async () => (await request(instance.app).get('/readyz')).status === 200, '/readyz is 200');
      await lookup().expect(200);
      assert.equal((await taxiiGet(instance.app, OBJECTS, keys.pro!)).status, 200);
    });
  });

  describe('when it hangs (connections open, no answers)', () => {
    it('/readyz answers 503 at its own bound, while its check still waits on the database, and 200 once answers flow again', async () => {
      const checks = mock.method(instance.store, 'checkReady');
      proxy.pause();
      try {
        await request(instance.app).get('/readyz').expect(503);
        // Not the driver giving up (its connection or query timeout would have settled the check): the probe's own bound.
        assert.equal(checks.mock.callCount(), 1);
        assert.equal(await settledYet(checks.mock.calls[0]!.result!), false, 'the check had settled before /readyz answered');
      } finally {
        proxy.resume();
        checks.mock.restore();
      }
      // The held check is answered once the database answers again.
      await checks.mock.calls[0]!.result;
      await eventually(async () => (await request(instance.app).get('/readyz')).status === 200, '/readyz is 200');
    });
  });
});
