// Every route of every surface's table, answered the same with the fast path and without it: a route cannot exist on one path only.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { allowedMethods, type Route } from '../../src/http/route-table.js';
import type { Store } from '../../src/store/contract/store.js';
import { basic, learn, MAIN, openCorpusStore, roomy, TAXII, TEST, type Keys } from './corpus-store.js';
import { startServer, type Answer, type Sent, type Server } from './fast-path-pair.js';

/** A request to each route of the tables, by the route's full template: a route added to a table without one here fails the test. */
function examples(keys: Keys, learned: Awaited<ReturnType<typeof learn>>): Record<string, { path: string; headers?: Record<string, string> }> {
  const key = `&key=${keys.byPlan.business!.key}`;
  const taxii = { Accept: TAXII, Authorization: basic(keys.byPlan.pro!.key) };
  const collection = `/taxii2/api/collections/${MAIN}`;
  const admin = { Authorization: basic(keys.admin, 'admin') };
  return {
    '/api/threat.php': { path: `/api/threat.php?tid=1${key}` },
    '/api/feed.php': { path: `/api/feed.php?fid=1${key}` },
    '/api/indicator.php': { path: `/api/indicator.php?iid=5${key}` },
    '/api/info.php': { path: `/api/info.php?tid=2${key}` },
    '/api/explore.php': { path: `/api/explore.php?q=${encodeURIComponent('type=domain and risk>=low')}&limit=5${key}` },
    '/api/search.php': { path: `/api/search.php?value=example&type%5B%5D=domain&limit=hundred${key}` },
    // A POST without `ioc` is refused before it records anything: both servers then read the same store.
    '/api/analyze.php': { path: `/api/analyze.php?qid=1${key}` },
    '/taxii2/': { path: '/taxii2/', headers: taxii },
    '/taxii2/api': { path: '/taxii2/api/', headers: taxii },
    '/taxii2/api/status/:statusId': { path: '/taxii2/api/status/1/', headers: taxii },
    '/taxii2/api/collections': { path: '/taxii2/api/collections/', headers: taxii },
    '/taxii2/api/collections/:collectionId': { path: `${collection}/`, headers: taxii },
    '/taxii2/api/collections/:collectionId/manifest': { path: `${collection}/manifest/?limit=2`, headers: taxii },
    '/taxii2/api/collections/:collectionId/objects': { path: `${collection}/objects/?limit=2`, headers: taxii },
    '/taxii2/api/collections/:collectionId/objects/:objectId': { path: `${collection}/objects/${learned.objectId}/`, headers: taxii },
    '/taxii2/api/collections/:collectionId/objects/:objectId/versions': { path: `${collection}/objects/${learned.objectId}/versions/`, headers: taxii },
    '/export/:collectionId.txt': { path: `/export/${TEST}.txt`, headers: { Authorization: basic(keys.byPlan.pro!.key), 'If-None-Match': learned.etag } },
    '/export/:collectionId.csv': { path: '/export/test.csv?max=3', headers: { Authorization: basic(keys.byPlan.pro!.key), 'If-None-Match': learned.csvEtag } },
    '/admin/api/feeds': { path: '/admin/api/feeds', headers: admin },
    '/admin/api/feeds/:fid/runs': { path: '/admin/api/feeds/1/runs', headers: admin },
    // Changes are sent as another site's, refused before they change anything: both servers then read the same store.
    '/admin/api/feeds/:fid/pull': { path: '/admin/api/feeds/1/pull', headers: { ...admin, 'Sec-Fetch-Site': 'cross-site' } },
    '/admin/api/why': { path: '/admin/api/why?value=198.51.100.7', headers: admin },
    '/admin/api/allowlist': { path: '/admin/api/allowlist', headers: { ...admin, 'Sec-Fetch-Site': 'cross-site' } },
    '/admin/api/allowlist/*entry': { path: '/admin/api/allowlist/example.com', headers: { ...admin, 'Sec-Fetch-Site': 'cross-site' } },
    '/admin/api/sightings': { path: '/admin/api/sightings?tid=1', headers: { ...admin, 'Sec-Fetch-Site': 'cross-site' } },
  };
}

/** The methods a request is sent with to a route: each it answers, and one it does not (its 405, or what answers every method). */
function methodsOf(route: Route): Sent['method'][] {
  const answered = allowedMethods(route).filter((method): method is Sent['method'] => method !== 'HEAD');
  return [...answered, ...(['POST', 'DELETE'] as const).filter((method) => !answered.includes(method)).slice(0, 1), ...(route.any ? (['GET'] as const) : [])];
}

const comparable = (answer: Answer) => ({ status: answer.status, headers: answer.headers.filter(([name]) => name.toLowerCase() !== 'date'), body: answer.body.toString('base64') });

describe('the surface tables', () => {
  let store: Store;
  let dir: string;
  let fastServer: Server;
  let plain: Server;
  let requests: Record<string, { path: string; headers?: Record<string, string> }>;
  const config = loadConfig({ overrides: { cache: { versionCheckMs: 0 }, plans: roomy({}), auth: { failuresPerMinute: 1000 } } });

  before(async () => {
    let keys: Keys;
    ({ store, dir, keys } = await openCorpusStore(config));
    requests = examples(keys, await learn(store, config, keys.byPlan.pro!.key));
    fastServer = await startServer(store, config, true);
    plain = await startServer(store, config, false);
  });
  after(async () => {
    await Promise.all([fastServer.close(), plain.close()]);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mount every surface: the lookup API, TAXII, the exports and the operator API', () => {
    assert.deepEqual(
      fastServer.surfaces.map((surface) => surface.mount),
      ['/api', '/taxii2', '/export', '/admin'],
    );
  });

  it('answer every route of every table the same on both paths, the fast path taking each route whose answer it may know', async () => {
    const mismatches: string[] = [];
    for (const surface of fastServer.surfaces) {
      for (const route of surface.routes) {
        const template = `${surface.mount}${route.path}`;
        const example = requests[template];
        if (example === undefined) {
          mismatches.push(`${template}: no request in this test's examples`);
          continue;
        }
        for (const method of methodsOf(route)) {
          // Three times each: a cache filled by the first answer is read by the later ones.
          for (let i = 0; i < 3; i++) {
            const sent: Sent = { method, path: example.path, ...(example.headers ? { headers: example.headers } : {}) };
            const before = fastServer.expressCalls();
            const a = await fastServer.send(sent);
            const viaExpress = fastServer.expressCalls() > before;
            const b = await plain.send(sent);
            try {
              assert.deepEqual(comparable(a), comparable(b));
            } catch (error) {
              mismatches.push(`${method} ${template} #${i + 1}: ${(error as Error).message}`);
            }
            const fastRoute = route.known !== undefined && method === 'GET';
            if (i === 2 && fastRoute && viaExpress) mismatches.push(`${method} ${template}: the fast path did not answer it (${a.status})`);
            if (!fastRoute && !viaExpress) mismatches.push(`${method} ${template}: answered without Express, though its table does not say its answer can be known`);
          }
        }
      }
    }
    assert.deepEqual(mismatches, []);
  });
});
