// The console's safety and reach in chromium: forms without their CSRF token refused, the main flows by keyboard alone,
// and every page free of browser console errors and of serious or critical axe-core findings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/eventually.js';
import { seriousAxeFindings, type ConsoleWorld } from './console-world.js';
import { refusedLogin, runNumbers, signedIn, tabTo } from './console-steps.js';

/** Run in order, after the specs before them in console.test.ts, on the world it opened. */
export function safetySpecs(world: () => ConsoleWorld): void {
  describe('CSRF', () => {
    it('a form posted without its CSRF token, or with another session\'s, is refused with 403 and changes nothing', async () => {
      const { page, context } = await signedIn(world());
      const other = await signedIn(world());
      const othersToken = await other.page.locator('input[name="_csrf"]').first().inputValue();
      const { drop } = world().feeds;
      const listed = await world().exportLines();
      const asked = world().feedServer.requestsFor('/drop.txt').length;
      // Sent from the console's own origin, as the browser would: only the token is missing or wrong.
      const post = (path: string, form: Record<string, string>) => page.request.post(path, { form, headers: { origin: world().base }, maxRedirects: 0 });
      for (const token of [undefined, othersToken]) {
        const extra: Record<string, string> = token === undefined ? {} : { _csrf: token };
        const pull = await post(`/console/feeds/${drop.fid}/pull`, extra);
        assert.equal(pull.status(), 403);
        assert.match(await pull.text(), /CSRF token/);
        const add = await post('/console/allowlist/apply', { entry: '198.51.100.0/25', reason: 'forged', ...extra });
        assert.equal(add.status(), 403);
      }
      assert.equal(world().feedServer.requestsFor('/drop.txt').length, asked, 'no pull was made');
      assert.deepEqual(await world().exportLines(), listed, 'nothing was retired');
      await page.goto('/console/allowlist');
      assert.doesNotMatch(await page.locator('main').innerText(), /198\.51\.100\.0\/25/);
      // With the page's own token the same post is taken: the refusals were for the token alone.
      const token = await page.locator('input[name="_csrf"]').first().inputValue();
      const good = await post(`/console/feeds/${drop.fid}/pull`, { _csrf: token });
      assert.ok(good.status() < 400, `status ${good.status()}`);
      // Taken: the puller, woken by it, asks the source once.
      await eventually(async () => world().feedServer.requestsFor('/drop.txt').length === asked + 1, 'the puller asked the source once', 30_000);
      await other.context.close();
      await context.close();
    });
  });

  describe('by keyboard alone', () => {
    it('logs in, opens a feed, pulls it now and searches a value with Tab and Enter', async () => {
      const { page, context, errors } = await world().newPage();
      await page.goto('/console/login');
      await page.keyboard.press('Tab');
      assert.equal(await page.locator(':focus').innerText(), 'Skip to content', 'the first Tab stop skips to the content');
      await tabTo(page, page.getByLabel('Admin key'));
      await page.keyboard.type(world().adminKey);
      await page.keyboard.press('Enter');
      await page.waitForURL('**/console/');

      const { drop } = world().feeds;
      await tabTo(page, page.locator(`#feed-${drop.fid} h2 a`));
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/console/feeds/${drop.fid}`);
      const before = await runNumbers(page);
      await tabTo(page, page.getByRole('button', { name: 'Pull now' }));
      await page.keyboard.press('Enter');
      await page.locator('.notice', { hasText: 'Pulled now' }).waitFor({ timeout: 30_000 });
      assert.equal((await runNumbers(page)).length, before.length + 1);

      await tabTo(page, page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Value' }));
      await page.keyboard.press('Enter');
      await page.waitForURL('**/console/value');
      await tabTo(page, page.getByLabel('Value', { exact: true }));
      await page.keyboard.type('c2.example.com');
      await page.keyboard.press('Enter');
      await page.waitForURL('**/console/value?value=c2.example.com');
      assert.match(await page.locator('#value-normalized').innerText(), /type domain/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('every page', () => {
    /** Each page as a signed-in operator sees it, with and without a form's answer. */
    const signedInPages = () => [
      '/console/',
      `/console/feeds/${world().feeds.blocklist.fid}`,
      `/console/feeds/${world().feeds.broken.fid}`,
      '/console/value',
      '/console/value?value=192.0.2.10',
      '/console/value?value=198.51.100.7',
      '/console/allowlist',
      '/console/exports',
      '/console/exports?collection=indicators&type=ip&type=cidr&format=txt&device=panos-50k&max=2',
      '/console/explore',
      `/console/explore?q=${encodeURIComponent('type=ip and risk>=low')}`,
      // A refused query (a 400 page) is scanned by the Explore page's own specs (explore-specs.ts).
    ];

    it('logs no error to the browser console and has no serious or critical axe-core finding', async () => {
      const { page, context, errors } = await signedIn(world());
      const findings: Record<string, unknown> = {};
      const scan = async (name: string, on: Page) => {
        const found = await seriousAxeFindings(on);
        if (found.length > 0) findings[name] = found;
      };
      for (const path of signedInPages()) {
        const response = await page.goto(path);
        assert.equal(response?.status(), 200, path);
        await scan(path, page);
      }
      // The login page as someone not signed in sees it, then with a refusal's reason (whose 401
      // the browser logs as a failed load, so that one is scanned only).
      const anonymous = await world().newPage();
      await anonymous.page.goto('/console/login');
      await scan('/console/login', anonymous.page);
      assert.deepEqual([...errors, ...anonymous.errors], []);
      assert.equal(await refusedLogin(anonymous.page, 'tg_0000000000000000000000000000000000'), 401);
      await scan('/console/login (refused)', anonymous.page);
      assert.deepEqual(findings, {});
      await anonymous.context.close();
      await context.close();
    });
  });
}
