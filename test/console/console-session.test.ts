// The console's sessions and form safety (docs/interface.md section 14) on each store: login with an admin key only, a signed cookie whose
// session lives in the store (logout and a revoked key end it there), forged and expired cookies, the CSRF token and
// Origin on every post (a refusal changes nothing), the cookie's attributes, the login rate limit, the CSP, console.enabled.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { signedSessionId } from '../../src/console/session-cookie.js';
import { CONSOLE_CSP } from '../../src/console/render.js';
import { storeBackends } from '../helpers/store-backends.js';
import { consoleClient, ORIGIN, openConsoleWorld, sessionCookieOf, signIn, type ConsoleWorld } from './console-world.js';

const HOURS_12 = 12 * 3_600_000;

for (const backend of storeBackends()) {
  describe(`console sessions (${backend.name})`, () => {
    let world: ConsoleWorld;
    before(async () => {
      world = await openConsoleWorld(backend);
    });
    after(async () => {
      await world?.close();
      await backend.cleanup();
    });
    const runsOf = async (fid: number) => (await world.store.listFeedRuns(fid, 100)).length;

    describe('GET a console page without a session', () => {
      it('redirects 303 to the login page, keeping a console path as next', async () => {
        const client = consoleClient(world.app);
        assert.equal((await client.get('/console/').expect(303)).headers.location, '/console/login');
        assert.equal((await client.get(`/console/feeds/${world.goodFid}?limit=5`).expect(303)).headers.location, `/console/login?next=${encodeURIComponent(`/console/feeds/${world.goodFid}?limit=5`)}`);
      });

      it('GET /console/login › the form, with the console CSP, no-store, and no inline script or style', async () => {
        const res = await consoleClient(world.app).get('/console/login').expect(200);
        assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
        assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.match(res.text, /^<!DOCTYPE html>\n<html lang="en">/);
        assert.match(res.text, /<input id="login-key" name="key" type="password"/);
        assert.doesNotMatch(res.text, /<script(?![^>]*\ssrc=)/, 'a script without src');
        assert.doesNotMatch(res.text, /\sstyle=/, 'an inline style');
      });
    });

    describe('POST /console/login', () => {
      it('with the admin key › a signed session cookie (HttpOnly, SameSite=Strict, Path=/console, 12 hours), then the pages open', async () => {
        const res = await consoleClient(world.app).post('/console/login', { key: world.adminKey }, { csrf: null });
        assert.equal(res.status, 303);
        assert.equal(res.headers.location, '/console/');
        const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!;
        assert.match(setCookie, /^tg_console=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/console; HttpOnly; SameSite=Strict$/);
        const page = await consoleClient(world.app, sessionCookieOf(res)).get('/console/').expect(200);
        assert.match(page.text, new RegExp(`Signed in with key <code>${world.adminKeyId}</code>`));
        assert.equal(page.text.includes(world.adminKey), false, 'the key itself is never shown');
      });

      it('with a next path › goes there if it is a console path, to the feeds page otherwise', async () => {
        const login = (next: string) => consoleClient(world.app).post('/console/login', { key: world.adminKey, next }, { csrf: null });
        assert.equal((await login(`/console/feeds/${world.goodFid}`)).headers.location, `/console/feeds/${world.goodFid}`);
        for (const elsewhere of ['https://evil.example/console/', '//evil.example/console/', '/admin/api/feeds', '/console/../admin/api/feeds', '/\\evil.example']) {
          assert.equal((await login(elsewhere)).headers.location, '/console/', elsewhere);
        }
      });

      it('with a wrong key › 401, the form again saying so, no cookie', async () => {
        const res = await consoleClient(world.app).post('/console/login', { key: 'x'.repeat(43) }, { csrf: null });
        assert.equal(res.status, 401);
        assert.match(res.text, /Unknown or revoked API key\./);
        assert.match(res.text, /<input id="login-key"/);
        assert.equal(sessionCookieOf(res), undefined);
      });

      it('with a plan key › 403 saying only an admin key opens the console, no cookie', async () => {
        const res = await consoleClient(world.app).post('/console/login', { key: world.proKey }, { csrf: null });
        assert.equal(res.status, 403);
        assert.match(res.text, /This API key has a plan: the console opens only with an admin key \(threatgate keys create --admin\)\./);
        assert.equal(sessionCookieOf(res), undefined);
      });

      it('with no key › 400 asking for one', async () => {
        const res = await consoleClient(world.app).post('/console/login', { key: '  ' }, { csrf: null });
        assert.equal(res.status, 400);
        assert.match(res.text, /Enter an admin key\./);
      });

      it('from another origin, or with no Origin › 403 naming why, no cookie', async () => {
        const other = await consoleClient(world.app).post('/console/login', { key: world.adminKey }, { csrf: null, origin: 'https://evil.example' });
        assert.equal(other.status, 403);
        assert.match(other.text, /posted from https:\/\/evil\.example, not from this console \(http:\/\/console\.test\)/);
        assert.equal(sessionCookieOf(other), undefined);
        const none = await consoleClient(world.app).post('/console/login', { key: world.adminKey }, { csrf: null, origin: null });
        assert.equal(none.status, 403);
        assert.match(none.text, /carried no Origin header/);
      });

      it('past auth.failuresPerMinute failed logins from one address › 429 with Retry-After, even for the right key', async () => {
        const app = world.appWith({ auth: { failuresPerMinute: 2 } });
        for (let i = 0; i < 2; i++) assert.equal((await consoleClient(app).post('/console/login', { key: 'y'.repeat(43) }, { csrf: null })).status, 401);
        const res = await consoleClient(app).post('/console/login', { key: world.adminKey }, { csrf: null });
        assert.equal(res.status, 429);
        assert.match(res.headers['retry-after'] ?? '', /^[1-9][0-9]*$/);
        assert.match(res.headers['content-type'] ?? '', /^text\/html/);
        assert.equal(sessionCookieOf(res), undefined);
      });
    });

    describe('the session cookie', () => {
      it('over HTTPS behind a trusted proxy › Secure too; the same header from an untrusted peer › not', async () => {
        const viaProxy = (app: ReturnType<ConsoleWorld['appWith']>, origin: string) =>
          request(app).post('/console/login').set('Host', 'console.test').set('X-Forwarded-Proto', 'https').set('Origin', origin).type('form').send({ key: world.adminKey });
        const trusted = await viaProxy(world.appWith({ trustProxy: true }), 'https://console.test');
        assert.equal(trusted.status, 303);
        assert.match(([] as string[]).concat(trusted.headers['set-cookie'] ?? [])[0]!, /; Secure/);
        const untrusted = await viaProxy(world.app, ORIGIN);
        assert.equal(untrusted.status, 303);
        assert.doesNotMatch(([] as string[]).concat(untrusted.headers['set-cookie'] ?? [])[0]!, /Secure/);
      });

      it('forged (a bad signature), unknown (well signed, no session) or malformed › not signed in', async () => {
        const client = await signIn(world.app, world.adminKey);
        const [sid] = client.cookie!.slice('tg_console='.length).split('.');
        const secret = await world.store.consoleSecret();
        const cookies = [
          `tg_console=${sid}.${'A'.repeat(43)}`,
          `tg_console=${signedSessionId('B'.repeat(43), secret)}`,
          `tg_console=${signedSessionId(sid!, 'another secret')}`,
          'tg_console=nonsense',
        ];
        for (const cookie of cookies) assert.equal((await consoleClient(world.app, cookie).get('/console/').expect(303)).headers.location, '/console/login', cookie);
        await consoleClient(world.app, client.cookie).get('/console/').expect(200);
      });

      it('after console.sessionHours › not signed in', async () => {
        const client = await signIn(world.app, world.adminKey);
        world.clock.advance(HOURS_12 - 1000);
        await client.get('/console/').expect(200);
        world.clock.advance(1000);
        await client.get('/console/').expect(303);
      });

      it('of a key revoked since › not signed in: revoking the key ends its sessions', async () => {
        const client = await signIn(world.app, world.adminKey);
        await client.get('/console/').expect(200);
        const other = await createAdminKey(world.store, world.clock, 'to revoke');
        const doomed = await signIn(world.app, other.key);
        await world.store.revokeKey({ id: other.id }, world.clock.stamp());
        await doomed.get('/console/').expect(303);
        await client.get('/console/').expect(200);
      });
    });

    describe('POST /console/logout', () => {
      it('ends the session in the store: the cookie, replayed, opens nothing', async () => {
        const client = await signIn(world.app, world.adminKey);
        const res = await client.post('/console/logout');
        assert.equal(res.status, 303);
        assert.equal(res.headers.location, '/console/login');
        assert.match(([] as string[]).concat(res.headers['set-cookie'] ?? [])[0]!, /^tg_console=; Max-Age=0; Path=\/console; HttpOnly; SameSite=Strict$/);
        await client.get('/console/').expect(303);
      });

      it('without its CSRF token › 403 naming it, and the session lives on', async () => {
        const client = await signIn(world.app, world.adminKey);
        const res = await client.post('/console/logout', {}, { csrf: null });
        assert.equal(res.status, 403);
        assert.match(res.text, /carried no CSRF token \(field _csrf\)/);
        await client.get('/console/').expect(200);
      });
    });

    describe('a form post that changes something (Pull now)', () => {
      it('with no CSRF token, another session\'s token, no Origin or another Origin › 403 naming why, and no run recorded', async () => {
        const client = await signIn(world.app, world.adminKey);
        const otherToken = (await (await signIn(world.app, world.adminKey)).get('/console/').expect(200)).text.match(/name="_csrf" value="([^"]+)"/)![1]!;
        const before = await runsOf(world.goodFid);
        const path = `/console/feeds/${world.goodFid}/pull`;
        const refusals: Array<[Promise<request.Response>, RegExp]> = [
          [client.post(path, {}, { csrf: null }), /carried no CSRF token/],
          [client.post(path, {}, { csrf: otherToken }), /its CSRF token does not belong to this session/],
          [client.post(path, {}, { origin: null }), /carried no Origin header/],
          [client.post(path, {}, { origin: 'http://console.test.evil.example' }), /posted from http:\/\/console\.test\.evil\.example, not from this console/],
        ];
        for (const [pending, why] of refusals) {
          const res = await pending;
          assert.equal(res.status, 403, res.text);
          assert.match(res.headers['content-type'] ?? '', /^text\/html/);
          assert.match(res.text, why);
          assert.match(res.text, /Nothing was changed/);
        }
        assert.equal(await runsOf(world.goodFid), before);
        assert.equal(world.server.requestsFor('/blocklist-de.txt').length, 0);
      });
    });

    describe('pages and assets', () => {
      it('the stylesheet and script are served without a session, from the package; an unknown asset is a 404 page', async () => {
        const css = await request(world.app).get('/console/assets/console.css').expect(200);
        assert.match(css.headers['content-type'] ?? '', /^text\/css/);
        const js = await request(world.app).get('/console/assets/console.js').expect(200);
        assert.match(js.headers['content-type'] ?? '', /javascript/);
        const missing = await request(world.app).get('/console/assets/nothing.css').expect(404);
        assert.match(missing.text, /<title>Not found · threatgate console<\/title>/);
        assert.equal(missing.headers['content-security-policy'], CONSOLE_CSP);
        assert.equal(missing.headers['cache-control'], 'no-store');
        assert.equal(missing.headers['referrer-policy'], 'same-origin');
      });

      it('an unknown console path, signed in › an HTML 404 with the navigation and the CSP', async () => {
        const client = await signIn(world.app, world.adminKey);
        const res = await client.get('/console/nowhere').expect(404);
        assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
        assert.match(res.text, /There is no such page in the console\./);
        assert.match(res.text, /<nav aria-label="Console">/);
      });

      it('console.enabled false › no /console route at all', async () => {
        const app = world.appWith({ console: { enabled: false } });
        await request(app).get('/console/login').expect(404);
        await request(app).get('/console/assets/console.css').expect(404);
        const res = await request(app).post('/console/login').set('Host', 'console.test').set('Origin', ORIGIN).type('form').send({ key: world.adminKey }).expect(404);
        assert.equal(sessionCookieOf(res), undefined);
      });

      it('the other surfaces read no console cookie and send no console headers', async () => {
        const client = await signIn(world.app, world.adminKey);
        const res = await request(world.app).get('/admin/api/feeds').set('Cookie', client.cookie!).expect(401);
        assert.notEqual(res.headers['content-security-policy'], CONSOLE_CSP);
      });
    });
  });
}
