// Admin keys (docs/interface.md sections 7.4 and 13): only they open /admin/api/ (Basic `admin:KEY` or Bearer, never `?key=`), the lookup API, TAXII
// and the exports refuse them with 403, and failed admin logins count with every other failed key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { ADMIN_KEY_REFUSED, PLAN_KEY_REFUSED } from '../../src/auth/authenticate-key.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { storeBackends } from '../helpers/store-backends.js';
import { assertTaxiiError, basicAuth, INDICATORS_COLLECTION, TAXII_TYPE } from '../taxii/taxii-request.js';
import { ADMIN_CLOCK, adminBasic, openAdminWorld, type AdminWorld } from './admin-world.js';

const UNKNOWN_KEY = 'A'.repeat(43);
const CHALLENGE = 'Basic realm="threatgate admin"';

for (const backend of storeBackends()) {
  describe(`admin keys (${backend.name})`, () => {
    let world: AdminWorld;
    before(async () => {
      world = await openAdminWorld(backend);
    });
    after(async () => {
      await world?.close();
      await backend.cleanup();
    });

    describe('/admin/api/', () => {
      it('with the admin key as Basic password of user admin › 200', async () => {
        await request(world.app).get('/admin/api/allowlist').set('Authorization', adminBasic(world.adminKey)).expect(200);
      });

      it('with the admin key as a Bearer token › 200', async () => {
        await request(world.app).get('/admin/api/allowlist').set('Authorization', `Bearer ${world.adminKey}`).expect(200);
      });

      it('without credentials › 401 with the admin challenge', async () => {
        const res = await world.get('/admin/api/feeds', null).expect(401);
        assert.equal(res.headers['www-authenticate'], CHALLENGE);
        assert.match(res.body.error, /^Authentication is required: HTTP Basic with username "admin"/);
        assert.equal(res.headers['cache-control'], 'no-store');
      });

      const refusals: [string, () => string, RegExp][] = [
        ['Basic with user taxii2', () => basicAuth(world.adminKey), /^The Basic username must be "admin"; the password is the admin key\.$/],
        ['Basic without a colon', () => `Basic ${Buffer.from(world.adminKey).toString('base64')}`, /^The Basic credentials must be "admin:<admin key>"\.$/],
        ['another scheme', () => `Digest ${world.adminKey}`, /^The Authorization header must be HTTP Basic/],
        ['an unknown key', () => adminBasic(UNKNOWN_KEY), /^Unknown or revoked API key\.$/],
      ];
      for (const [what, header, error] of refusals) {
        it(`with ${what} › 401 with the admin challenge`, async () => {
          const res = await request(world.app).get('/admin/api/feeds').set('Authorization', header()).expect(401);
          assert.equal(res.headers['www-authenticate'], CHALLENGE);
          assert.match(res.body.error, error);
        });
      }

      it('with a key of a plan › 403, Basic or Bearer', async () => {
        for (const header of [adminBasic(world.proKey), `Bearer ${world.proKey}`]) {
          const res = await request(world.app).get('/admin/api/feeds').set('Authorization', header).expect(403);
          assert.deepEqual(res.body, { error: PLAN_KEY_REFUSED });
        }
      });

      it('with a revoked admin key › 401', async () => {
        const revoked = await createAdminKey(world.store, ADMIN_CLOCK);
        await world.get('/admin/api/feeds', revoked.key).expect(200);
        assert.equal(await world.store.revokeKey({ id: revoked.id }, '2026-03-02 08:00:00'), revoked.id);
        await world.get('/admin/api/feeds', revoked.key).expect(401);
      });

      it('with ?key= › 400 saying why, even beside valid credentials, and the key is not logged', async () => {
        world.logLines.length = 0;
        for (const req of [world.get(`/admin/api/feeds?key=${world.adminKey}`, null), world.get(`/admin/api/feeds?key=${world.adminKey}`)]) {
          const res = await req.expect(400);
          assert.match(res.body.error, /^Parameter "key" is not accepted here: a URL ends up in logs and browser history\./);
        }
        assert.equal(world.logLines.join('\n').includes(world.adminKey), false);
      });

      it('logs the admin key\u2019s id as the client, never the key', async () => {
        world.logLines.length = 0;
        await world.get('/admin/api/feeds').expect(200);
        const entry = JSON.parse(world.logLines[0]!);
        assert.equal(entry.client, world.adminKeyId);
        assert.equal(world.logLines.join('\n').includes(world.adminKey), false);
      });
    });

    describe('the lookup API, TAXII and the exports', () => {
      it('refuse an admin key with 403 saying what it opens', async () => {
        const api = await request(world.app).get(`/api/threat.php?tid=1&key=${world.adminKey}`).expect(403);
        assert.deepEqual(api.body, { error: ADMIN_KEY_REFUSED });
        const taxii = await request(world.app).get('/taxii2/').set('Authorization', basicAuth(world.adminKey)).set('Accept', TAXII_TYPE);
        assertTaxiiError(taxii, 403);
        assert.equal(JSON.parse(taxii.text).description, ADMIN_KEY_REFUSED);
        const exported = await request(world.app).get(`/export/${INDICATORS_COLLECTION}.txt`).set('Authorization', basicAuth(world.adminKey)).expect(403);
        assert.deepEqual(exported.body, { error: ADMIN_KEY_REFUSED });
      });
    });

    describe('with one failed authentication allowed a minute', () => {
      it('an admin key refused elsewhere, a plan key refused here and ?key= count as no failure', async () => {
        const app = world.appWith({ auth: { failuresPerMinute: 1 } });
        await request(app).get(`/api/threat.php?tid=1&key=${world.adminKey}`).expect(403);
        await request(app).get(`/api/threat.php?tid=1&key=${world.adminKey}`).expect(403);
        await request(app).get('/admin/api/feeds').set('Authorization', `Bearer ${world.proKey}`).expect(403);
        await request(app).get(`/admin/api/feeds?key=${UNKNOWN_KEY}`).expect(400);
        await request(app).get('/admin/api/feeds').set('Authorization', `Bearer ${world.adminKey}`).expect(200);
        await request(app).get(`/api/threat.php?tid=1&key=${world.proKey}`).expect(404);
      });

      for (const [what, header] of [
        ['an unknown admin key', () => adminBasic(UNKNOWN_KEY)],
        ['Basic with another user', () => basicAuth(world.adminKey)],
      ] as const) {
        it(`${what} counts: the address then gets 429 here and on the lookup API`, async () => {
          const app = world.appWith({ auth: { failuresPerMinute: 1 } });
          await request(app).get('/admin/api/feeds').set('Authorization', header()).expect(401);
          const admin = await request(app).get('/admin/api/feeds').set('Authorization', `Bearer ${world.adminKey}`).expect(429);
          assert.match(admin.headers['retry-after'] ?? '', /^\d+$/);
          await request(app).get(`/api/threat.php?tid=1&key=${world.proKey}`).expect(429);
        });
      }

      it('a failed key on the lookup API counts here too', async () => {
        const app = world.appWith({ auth: { failuresPerMinute: 1 } });
        await request(app).get(`/api/threat.php?tid=1&key=${UNKNOWN_KEY}`).expect(401);
        await request(app).get('/admin/api/feeds').set('Authorization', `Bearer ${world.adminKey}`).expect(429);
      });
    });
  });
}
