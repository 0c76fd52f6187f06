// The operator API (docs/interface.md section 13, /admin/api/) on each store: every route read with an admin key, real pulls of a local
// fixture server from POST feeds/{fid}/pull, a failing source whose secret shows nowhere, and the 4xx of bad input.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { DEFAULT_ALLOWLIST } from '../../src/sources/allowlist.js';
import { storeBackends } from '../helpers/store-backends.js';
import { ADMIN_CLOCK, FEED_SECRET, openAdminWorld, type AdminWorld } from './admin-world.js';

for (const backend of storeBackends()) {
  describe(`/admin/api/ (${backend.name})`, () => {
    let world: AdminWorld;
    before(async () => {
      world = await openAdminWorld(backend);
    });
    after(async () => {
      await world?.close();
      await backend.cleanup();
    });

    describe('GET feeds', () => {
      it('with an admin key › answers each feed with a source, never pulled yet, not to be cached', async () => {
        const res = await world.get('/admin/api/feeds').expect(200);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.deepEqual(
          res.body.feeds.map((f: { fid: number; state: string; last_run: unknown }) => [f.fid, f.state, f.last_run]),
          [[world.goodFid, 'never-pulled', null], [world.failingFid, 'never-pulled', null]],
        );
      });
    });

    describe('POST feeds/{fid}/pull', () => {
      it('answers 202 at once with the request, wakes the puller and pulls nothing itself; the run of the puller is trigger console', async () => {
        const wakes = world.wakes;
        const res = await world.post(`/admin/api/feeds/${world.goodFid}/pull`).expect(202);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.equal(res.headers.location, `/admin/api/feeds/${world.goodFid}/runs?limit=5`);
        assert.deepEqual(res.body, {
          fid: world.goodFid, state: 'queued', requested: '2026-03-02 08:00:00', requested_by: world.adminKeyId, pulling: null, runs: `/admin/api/feeds/${world.goodFid}/runs?limit=5`,
        });
        assert.equal(world.wakes, wakes + 1);
        // The serving app fetched nothing: the pull is the puller's.
        assert.equal(world.server.requestsFor('/blocklist-de.txt').length, 0);
        assert.deepEqual((await world.get(`/admin/api/feeds/${world.goodFid}/runs`).expect(200)).body.runs, []);
        // Asking again while it waits is the same request.
        assert.deepEqual((await world.post(`/admin/api/feeds/${world.goodFid}/pull`).expect(202)).body, res.body);

        await world.runPuller();
        const [run] = (await world.get(`/admin/api/feeds/${world.goodFid}/runs`).expect(200)).body.runs;
        assert.equal(run.fid, world.goodFid);
        assert.equal(run.trigger, 'console');
        assert.equal(run.outcome, 'ok');
        assert.equal(run.http_status, 200);
        assert.ok(run.values > 0 && run.new_indicators === run.values, JSON.stringify(run));
        assert.equal(run.error, null);
        assert.equal(world.server.requestsFor('/blocklist-de.txt').length, 1);
        assert.equal(await world.store.findPullRequest(world.goodFid), undefined);
      });

      it('a failing upstream › the puller records the failed run, trigger console, whose error holds no secret', async () => {
        await world.post(`/admin/api/feeds/${world.failingFid}/pull`).expect(202);
        await world.runPuller();
        const res = await world.get(`/admin/api/feeds/${world.failingFid}/runs?limit=1`).expect(200);
        const [run] = res.body.runs;
        assert.equal(run.outcome, 'failed');
        assert.equal(run.trigger, 'console');
        assert.match(run.error, /500/);
        assert.equal(res.text.includes(FEED_SECRET), false, res.text);
        // The secret did reach the upstream, in the URL and the header: the puller was given the environment.
        const [sent] = world.server.requestsFor('/private.txt');
        assert.equal(sent?.headers.authorization, `Bearer ${FEED_SECRET}`);
        assert.ok(sent?.url.includes(FEED_SECRET));
      });

      it('a feed whose lease another holder has › 202 running, naming the holder; the requested pull follows once the lease is free', async () => {
        const before = (await world.get(`/admin/api/feeds/${world.goodFid}/runs`).expect(200)).body.runs.length;
        const now = ADMIN_CLOCK.now();
        assert.ok(await world.store.claimPullLease(world.goodFid, 'feeds pull on elsewhere pid 7', now, now + 60_000));
        try {
          const res = await world.post(`/admin/api/feeds/${world.goodFid}/pull`).expect(202);
          assert.equal(res.body.state, 'running');
          assert.equal(res.body.pulling, 'feeds pull on elsewhere pid 7 since 2026-03-02 08:00:00');
          await world.runPuller();
          assert.equal((await world.get(`/admin/api/feeds/${world.goodFid}/runs`).expect(200)).body.runs.length, before);
        } finally {
          await world.store.releasePullLease(world.goodFid, 'feeds pull on elsewhere pid 7');
        }
        await world.runPuller();
        const runs = (await world.get(`/admin/api/feeds/${world.goodFid}/runs`).expect(200)).body.runs;
        assert.equal(runs.length, before + 1);
        assert.equal(runs[0].trigger, 'console');
      });

      it('an unknown feed › 404 "Feed not found."; a feed whose source was removed › 404 naming that', async () => {
        assert.deepEqual((await world.post('/admin/api/feeds/999/pull').expect(404)).body, { error: 'Feed not found.' });
        const removed = await world.store.nextFeedId();
        await addFeedSource(world.store, { feed: 'Gone', organization: 'Admin Tests', source: { url: `${world.server.base}/gone.txt`, format: 'text' } }, ADMIN_CLOCK, {});
        assert.ok(await world.store.removeFeedSource(removed));
        assert.match((await world.post(`/admin/api/feeds/${removed}/pull`).expect(404)).body.error, new RegExp(`^Feed ${removed} has no source to pull`));
      });

      it('GET › 405 with Allow: POST', async () => {
        const res = await world.get(`/admin/api/feeds/${world.goodFid}/pull`).expect(405);
        assert.equal(res.headers.allow, 'POST');
      });
    });

    describe('GET feeds/{fid}/runs', () => {
      it('answers the runs newest first, limited by limit', async () => {
        const all = (await world.get(`/admin/api/feeds/${world.goodFid}/runs`).expect(200)).body.runs;
        assert.equal(all.length, 2);
        await world.post(`/admin/api/feeds/${world.goodFid}/pull`).expect(202);
        await world.runPuller();
        const runs = (await world.get(`/admin/api/feeds/${world.goodFid}/runs?limit=1`).expect(200)).body.runs;
        assert.equal(runs.length, 1);
        // The second pull finds the source unchanged (its ETag).
        assert.equal(runs[0].outcome, 'not-modified');
        assert.ok(runs[0].run > all[0].run);
        // Churn as a number 0 to 1: a first pull has none, an unchanged source replaced nothing.
        assert.deepEqual([all.at(-1).churn, runs[0].churn], [null, 0]);
        const feed = (await world.get('/admin/api/feeds').expect(200)).body.feeds.find((f: { fid: number }) => f.fid === world.goodFid);
        assert.equal(feed.churn, 0);
      });

      const refusals: [string, string, string][] = [
        ['limit=0', `?limit=0`, 'Parameter "limit" must be a whole number from 1 to 1000.'],
        ['limit=1001', `?limit=1001`, 'Parameter "limit" must be a whole number from 1 to 1000.'],
        ['limit=ten', `?limit=ten`, 'Parameter "limit" must be a whole number from 1 to 1000.'],
        ['limit given twice', `?limit=1&limit=2`, 'Parameter "limit" must be given once.'],
      ];
      for (const [what, query, error] of refusals) {
        it(`${what} › 400 naming limit`, async () => {
          assert.deepEqual((await world.get(`/admin/api/feeds/1/runs${query}`).expect(400)).body, { error });
        });
      }

      it('a feed id that is no number › 400; an unknown feed › 404', async () => {
        assert.deepEqual((await world.get('/admin/api/feeds/one/runs').expect(400)).body, { error: 'The feed id in the path must be a positive whole number.' });
        assert.deepEqual((await world.get('/admin/api/feeds/999/runs').expect(404)).body, { error: 'Feed not found.' });
      });
    });

    describe('GET feeds, after the pulls', () => {
      it('shows the good feed ok and the failing one failing, with its error masked', async () => {
        const res = await world.get('/admin/api/feeds').expect(200);
        const byFid = new Map(res.body.feeds.map((f: { fid: number }) => [f.fid, f]));
        const good = byFid.get(world.goodFid) as { state: string; last_run: { outcome: string } };
        const failing = byFid.get(world.failingFid) as { state: string; last_error: string };
        assert.equal(good.state, 'ok');
        assert.equal(good.last_run.outcome, 'not-modified');
        assert.equal(failing.state, 'failing');
        assert.match(failing.last_error, /500/);
        assert.equal(res.text.includes(FEED_SECRET), false);
      });
    });

    describe('GET why', () => {
      it('answers the provenance of a pulled value, written in another spelling', async () => {
        const res = await world.get('/admin/api/why?value=%20198.51.100.7%20').expect(200);
        assert.equal(res.body.normalized.value, '198.51.100.7');
        assert.deepEqual(res.body.feeds.map((f: { fid: number; listed_now: boolean }) => [f.fid, f.listed_now]), [[world.goodFid, true]]);
        assert.equal(res.headers['cache-control'], 'no-store');
      });

      it('an allowlisted value › names the entry that keeps it out', async () => {
        const res = await world.get('/admin/api/why?value=10.1.2.3').expect(200);
        assert.deepEqual(res.body.allowlist, { entry: '10.0.0.0/8' });
        assert.equal(res.body.indicator, null);
      });

      it('without a value › 400 naming it', async () => {
        assert.match((await world.get('/admin/api/why').expect(400)).body.error, /^Parameter "value" is required/);
        assert.match((await world.get('/admin/api/why?value=%20').expect(400)).body.error, /^Parameter "value" is required/);
      });
    });

    describe('GET allowlist', () => {
      it('answers the effective list: the built-in default when the config gives none', async () => {
        const res = await world.get('/admin/api/allowlist').expect(200);
        assert.deepEqual(res.body, { entries: DEFAULT_ALLOWLIST.map((entry) => ({ entry, origin: 'config' })) });
      });

      it('answers the config\u2019s own list when it gives one', async () => {
        const app = world.appWith({ allowlist: ['corp.example', '203.0.113.0/24'] });
        const res = await request(app).get('/admin/api/allowlist').set('Authorization', `Bearer ${world.adminKey}`).expect(200);
        assert.deepEqual(res.body.entries, [{ entry: 'corp.example', origin: 'config' }, { entry: '203.0.113.0/24', origin: 'config' }]);
      });

      it('PUT › 405 with Allow: GET, HEAD, POST (adding and removing entries: admin-allowlist.test.ts)', async () => {
        const res = await request(world.app).put('/admin/api/allowlist').set('Authorization', `Bearer ${world.adminKey}`).expect(405);
        assert.equal(res.headers.allow, 'GET, HEAD, POST');
      });
    });

    describe('no response', () => {
      it('holds the secret of the failing source', async () => {
        const paths = ['/admin/api/feeds', `/admin/api/feeds/${world.failingFid}/runs`, '/admin/api/why?value=192.0.2.200', '/admin/api/allowlist'];
        for (const path of paths) {
          const res = await world.get(path).expect(200);
          assert.equal(res.text.includes(FEED_SECRET), false, path);
        }
        assert.equal(world.logLines.join('\n').includes(FEED_SECRET), false);
      });
    });

    describe('an unknown path under /admin/api/', () => {
      it('with an admin key › 404 as JSON', async () => {
        const res = await world.get('/admin/api/keys').expect(404);
        assert.deepEqual(res.body, { error: 'Not found.' });
        assert.equal(res.headers['cache-control'], 'no-store');
      });
    });

    describe('a change asked by a browser from another site', () => {
      it('› 403, and nothing is pulled', async () => {
        const asked = world.server.requestsFor('/blocklist-de.txt').length;
        const res = await world.post(`/admin/api/feeds/${world.goodFid}/pull`).set('Sec-Fetch-Site', 'cross-site').expect(403);
        assert.match(res.body.error, /another site/);
        assert.equal(world.server.requestsFor('/blocklist-de.txt').length, asked);
      });
    });
  });
}
