// The console's login and logout in chromium: the session cookie, logout ending it for every copy, a wrong key and a plan key refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsoleWorld } from './console-world.js';
import { pathOf, refusedLogin, signedIn } from './console-steps.js';

/** Run in order, after the specs before them in console.test.ts, on the world it opened. */
export function loginSpecs(world: () => ConsoleWorld): void {
  describe('login and logout', () => {
    it('a page asked for without a session leads to the login form, which opens it with the admin key', async () => {
      const { page, context, errors } = await world().newPage();
      const feed = `/console/feeds/${world().feeds.blocklist.fid}`;
      await page.goto(feed);
      assert.equal(pathOf(page), '/console/login');
      await page.getByLabel('Admin key').fill(world().adminKey);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`**${feed}`);
      assert.equal(await page.locator('h1').innerText(), 'Feed Blocklist');
      const [cookie, ...more] = await context.cookies();
      assert.deepEqual(more, []);
      assert.deepEqual({ httpOnly: cookie?.httpOnly, sameSite: cookie?.sameSite }, { httpOnly: true, sameSite: 'Strict' });
      assert.ok(cookie!.expires > Date.now() / 1000, 'the session cookie expires');
      assert.ok(!cookie!.value.includes(world().adminKey), 'the cookie does not carry the key');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('Log out ends the session: the cookie it had, sent again, opens no page', async () => {
      const { page, context, errors } = await signedIn(world());
      const cookies = await context.cookies();
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL('**/console/login');
      assert.deepEqual(await context.cookies(), []);
      // A copy of the old cookie (kept by another tab, or stolen) is no session any more.
      const replay = await world().browser.newContext({ baseURL: world().base });
      await replay.addCookies(cookies);
      const again = await replay.newPage();
      await again.goto('/console/');
      assert.equal(pathOf(again), '/console/login');
      await replay.close();
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a wrong key is refused with 401 and its reason, and opens no session', async () => {
      const { page, context } = await world().newPage();
      assert.equal(await refusedLogin(page, 'tg_0000000000000000000000000000000000'), 401);
      assert.equal(pathOf(page), '/console/login');
      assert.match(await page.locator('#login-problem').innerText(), /\S/);
      assert.deepEqual(await context.cookies(), []);
      await page.goto('/console/');
      assert.equal(pathOf(page), '/console/login');
      await context.close();
    });

    it('a plan key is refused with 403: the console opens only with an admin key', async () => {
      const { page, context } = await world().newPage();
      assert.equal(await refusedLogin(page, world().planKey), 403);
      assert.match(await page.locator('#login-problem').innerText(), /only with an admin key/);
      assert.deepEqual(await context.cookies(), []);
      await context.close();
    });
  });
}
