// The OpenAPI response cases of the operator API and of the probes (/healthz, /readyz, /openapi.json).
import type { Express } from 'express';
import request from 'supertest';
import { createLogger } from '../../src/logger.js';
import { runPullerOnce } from '../helpers/run-puller.js';
import { fixedClock } from '../helpers/test-app.js';
import { basicAuth, INDICATORS_COLLECTION, TAXII_TYPE } from '../taxii/taxii-request.js';
import type { Method } from './openapi-checker.js';
import { UNKNOWN_KEY, type OpenApiWorld } from './openapi-world.js';

export function addAdminCases(w: OpenApiWorld): void {
  const { add, get, afterFailure } = w;
  // ---- Operator API ------------------------------------------------------------------------
  const bearer = (key: string) => `Bearer ${key}`;
  const adminCall = (method: Method, path: string, authorization: string | null = bearer(w.adminKey), app?: () => Express) => {
    const req = request((app ?? (() => w.admin.app))())[method](path);
    return authorization === null ? req : req.set('Authorization', authorization);
  };
  const adminRoutes: [template: string, path: () => string, method: Method][] = [
    ['/admin/api/feeds', () => '/admin/api/feeds', 'get'],
    ['/admin/api/feeds/{fid}/runs', () => `/admin/api/feeds/${w.pulledFid}/runs`, 'get'],
    ['/admin/api/feeds/{fid}/pull', () => `/admin/api/feeds/${w.failingFid}/pull`, 'post'],
    ['/admin/api/why', () => '/admin/api/why?value=192.0.2.10', 'get'],
    ['/admin/api/allowlist', () => '/admin/api/allowlist', 'get'],
    ['/admin/api/allowlist', () => '/admin/api/allowlist', 'post'],
    ['/admin/api/allowlist/{entry}', () => '/admin/api/allowlist/192.0.2.0%2F24', 'delete'],
  ];
  for (const [template, path, method] of adminRoutes) {
    const withQuery = (extra: string) => `${path()}${path().includes('?') ? '&' : '?'}${extra}`;
    add(template, 400, 'the key in the query', () => adminCall(method, withQuery(`key=${w.adminKey}`), null), method);
    add(template, 401, 'no credentials', () => adminCall(method, path(), null), method);
    add(template, 401, 'Basic with user taxii2', () => adminCall(method, path(), basicAuth(w.adminKey)), method);
    add(template, 403, 'a key of a plan', () => adminCall(method, path(), `Basic ${Buffer.from(`admin:${w.admin.keys.pro}`).toString('base64')}`), method);
    add(template, 429, 'an address past its failed authentications', () => afterFailure(() => adminCall(method, path(), bearer(w.adminKey), () => w.guessing)), method);
    add(template, 500, 'a fault', () => adminCall(method, path(), bearer(UNKNOWN_KEY), () => w.broken), method);
    add(template, 503, 'the database down', () => adminCall(method, path(), bearer(UNKNOWN_KEY), () => w.down), method);
  }
  add('/admin/api/feeds/{fid}/pull', 202, 'a request handed to the puller', () => adminCall('post', `/admin/api/feeds/${w.pulledFid}/pull`), 'post');
  add('/admin/api/feeds/{fid}/pull', 202, 'a feed another holder is pulling', async () => {
    const owner = 'feeds pull elsewhere';
    await w.admin.store.claimPullLease(w.failingFid, owner, fixedClock.now(), fixedClock.now() + 60_000);
    try {
      return await adminCall('post', `/admin/api/feeds/${w.failingFid}/pull`);
    } finally {
      await w.admin.store.releasePullLease(w.failingFid, owner);
    }
  }, 'post');
  add('/admin/api/feeds/{fid}/pull', 404, 'an unknown feed', () => adminCall('post', '/admin/api/feeds/999/pull'), 'post');
  add('/admin/api/feeds', 200, 'every feed, pulled or not', () => adminCall('get', '/admin/api/feeds'));
  add('/admin/api/feeds/{fid}/runs', 200, 'the runs, Basic admin', () => adminCall('get', `/admin/api/feeds/${w.pulledFid}/runs?limit=5`, `Basic ${Buffer.from(`admin:${w.adminKey}`).toString('base64')}`));
  add('/admin/api/feeds/{fid}/runs', 200, 'the runs of a failing feed', () => adminCall('get', `/admin/api/feeds/${w.failingFid}/runs`));
  add('/admin/api/feeds/{fid}/runs', 400, 'limit=0', () => adminCall('get', `/admin/api/feeds/${w.pulledFid}/runs?limit=0`));
  add('/admin/api/feeds/{fid}/runs', 404, 'an unknown feed', () => adminCall('get', '/admin/api/feeds/999/runs'));
  add('/admin/api/why', 200, 'a pulled value', async () => {
    await adminCall('post', `/admin/api/feeds/${w.pulledFid}/pull`);
    await runPullerOnce({ store: w.admin.store, clock: fixedClock, config: w.admin.config, logger: createLogger('error', () => undefined), env: {} });
    return adminCall('get', '/admin/api/why?value=198.51.100.7');
  });
  add('/admin/api/why', 200, 'an allowlisted value', () => adminCall('get', '/admin/api/why?value=10.0.0.1'));
  add('/admin/api/why', 200, 'a value that is no indicator', () => adminCall('get', '/admin/api/why?value=no%20such%20thing'));
  add('/admin/api/allowlist', 200, 'the effective allowlist', () => adminCall('get', '/admin/api/allowlist'));
  const addEntry = (body: unknown) => adminCall('post', '/admin/api/allowlist').send(body as object);
  add('/admin/api/allowlist', 200, 'a dry run', () => addEntry({ entry: '192.0.2.0/24', dryRun: true }), 'post');
  add('/admin/api/allowlist', 201, 'an entry added', () => addEntry({ entry: '192.0.2.0/24', reason: 'the documentation range' }), 'post');
  add('/admin/api/allowlist', 200, 'config and run-time entries', () => adminCall('get', '/admin/api/allowlist'));
  add('/admin/api/allowlist', 409, 'an entry of the config', () => addEntry({ entry: '10.0.0.0/8' }), 'post');
  add('/admin/api/allowlist', 413, 'a body over the limit', () => addEntry({ entry: '192.0.2.1', reason: 'x'.repeat(20_000) }), 'post');
  add('/admin/api/allowlist', 415, 'a form body', () => adminCall('post', '/admin/api/allowlist').type('form').send('entry=192.0.2.1'), 'post');
  add('/admin/api/allowlist/{entry}', 204, 'a run-time entry removed', () => adminCall('delete', '/admin/api/allowlist/192.0.2.0%2F24'), 'delete');
  add('/admin/api/allowlist/{entry}', 404, 'an entry on neither list', () => adminCall('delete', '/admin/api/allowlist/nothing.example'), 'delete');
  add('/admin/api/allowlist/{entry}', 409, 'an entry of the config', () => adminCall('delete', '/admin/api/allowlist/10.0.0.0%2F8'), 'delete');
  // An admin key elsewhere: refused as the document says each surface refuses a key.
  add('/api/threat.php', 403, 'an admin key', () => request(w.admin.app).get(`/api/threat.php?tid=1&key=${w.adminKey}`));
  add('/taxii2/', 403, 'an admin key', () => request(w.admin.app).get('/taxii2/').set('Authorization', basicAuth(w.adminKey)).set('Accept', TAXII_TYPE));
  add('/export/{collection_id}.txt', 403, 'an admin key', () => request(w.admin.app).get(`/export/${INDICATORS_COLLECTION}.txt`).set('Authorization', basicAuth(w.adminKey)));

  // ---- Operations --------------------------------------------------------------------------
  add('/healthz', 200, 'up', () => get('/healthz'));
  add('/readyz', 200, 'ready', () => get('/readyz'));
  add('/readyz', 503, 'the database down', () => get('/readyz', () => w.down));
  add('/openapi.json', 200, 'the document', () => get('/openapi.json'));
  add('/openapi.json', 400, 'pretty=true', () => get('/openapi.json?pretty=true'));
}
