// The operator console (DESIGN 12, issue 31 item 5) in a real browser: Debian's chromium driven by playwright-core
// against a real server whose store was filled by pulls of the fixture server, one feed failing. Login and
// logout, refused keys, every page with that data, Pull now, the charts, the allowlist's dry run against
// what applying it retires, a form without its CSRF token, the console errors of every page, the main flows
// by keyboard alone, and an axe-core scan of every page. The tests run in order on one store: Pull now adds
// runs the charts then draw, and the allowlist test retires what the value page then calls allowlisted.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { openConsoleWorld, seriousAxeFindings, type ConsoleWorld, type WatchedPage } from './console-world.js';

/** Presses Tab until `target` has the focus; fails naming what had it after `max` presses. */
async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await target.and(page.locator(':focus')).count()) > 0) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${max} presses of Tab never reached ${target}; the focus is on ${await page.evaluate('document.activeElement?.outerHTML')}`);
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

/** The run numbers of a feed page's run table, newest first. */
const runNumbers = async (page: Page) => (await page.locator('table.runs tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-run'))))) as number[];

describe('the operator console in chromium', () => {
  let world: ConsoleWorld;
  before(async () => {
    world = await openConsoleWorld();
  });
  after(async () => {
    await world?.close();
  });

  /** A new browser context signed in through the login form with the admin key, on the Feeds page. */
  async function signedIn(): Promise<WatchedPage> {
    const watched = await world.newPage();
    await watched.page.goto('/console/login');
    await watched.page.getByLabel('Admin key').fill(world.adminKey);
    await watched.page.getByRole('button', { name: 'Log in' }).click();
    await watched.page.waitForURL('**/console/');
    return watched;
  }

  /** Submits the login form with `key` and gives the answer's status (the page stays on the form). */
  async function refusedLogin(page: Page, key: string): Promise<number> {
    await page.goto('/console/login');
    await page.getByLabel('Admin key').fill(key);
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Log in' }).click()]);
    await page.waitForLoadState();
    return response.status();
  }

  describe('login and logout', () => {
    it('a page asked for without a session leads to the login form, which opens it with the admin key', async () => {
      const { page, context, errors } = await world.newPage();
      const feed = `/console/feeds/${world.feeds.blocklist.fid}`;
      await page.goto(feed);
      assert.equal(pathOf(page), '/console/login');
      await page.getByLabel('Admin key').fill(world.adminKey);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(`**${feed}`);
      assert.equal(await page.locator('h1').innerText(), 'Feed Blocklist');
      const [cookie, ...more] = await context.cookies();
      assert.deepEqual(more, []);
      assert.deepEqual({ httpOnly: cookie?.httpOnly, sameSite: cookie?.sameSite }, { httpOnly: true, sameSite: 'Strict' });
      assert.ok(cookie!.expires > Date.now() / 1000, 'the session cookie expires');
      assert.ok(!cookie!.value.includes(world.adminKey), 'the cookie does not carry the key');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('Log out ends the session: the cookie it had, sent again, opens no page', async () => {
      const { page, context, errors } = await signedIn();
      const cookies = await context.cookies();
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.waitForURL('**/console/login');
      assert.deepEqual(await context.cookies(), []);
      // A copy of the old cookie (kept by another tab, or stolen) is no session any more.
      const replay = await world.browser.newContext({ baseURL: world.base });
      await replay.addCookies(cookies);
      const again = await replay.newPage();
      await again.goto('/console/');
      assert.equal(pathOf(again), '/console/login');
      await replay.close();
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a wrong key is refused with 401 and its reason, and opens no session', async () => {
      const { page, context } = await world.newPage();
      assert.equal(await refusedLogin(page, 'tg_0000000000000000000000000000000000'), 401);
      assert.equal(pathOf(page), '/console/login');
      assert.match(await page.locator('#login-problem').innerText(), /\S/);
      assert.deepEqual(await context.cookies(), []);
      await page.goto('/console/');
      assert.equal(pathOf(page), '/console/login');
      await context.close();
    });

    it('a plan key is refused with 403: the console opens only with an admin key', async () => {
      const { page, context } = await world.newPage();
      assert.equal(await refusedLogin(page, world.planKey), 403);
      assert.match(await page.locator('#login-problem').innerText(), /only with an admin key/);
      assert.deepEqual(await context.cookies(), []);
      await context.close();
    });
  });

  describe('Feeds page', () => {
    it('shows every feed with its state badge; the failing one as failing, with its error', async () => {
      const { page, context, errors } = await signedIn();
      assert.equal(await page.locator('h1').innerText(), 'Feeds');
      const card = (fid: number) => page.locator(`#feed-${fid}`);
      for (const feed of Object.values(world.feeds)) assert.equal(await card(feed.fid).getByRole('link', { name: feed.name }).count(), 1, feed.name);
      const { blocklist, drop, broken } = world.feeds;
      assert.equal(await card(blocklist.fid).locator('[data-state]').innerText(), 'ok');
      assert.equal(await card(drop.fid).locator('[data-state]').innerText(), 'ok');
      assert.equal(await card(broken.fid).locator('[data-state]').innerText(), 'failing');
      assert.equal(await card(broken.fid).locator('.error-text').innerText(), world.brokenError);
      assert.equal(await card(blocklist.fid).locator('.error-text').count(), 0);
      // blocklist-de.txt lists four addresses, all new in its one run.
      const facts = await card(blocklist.fid).locator('dl').innerText();
      assert.match(facts, /Values listed\s+4\b/);
      assert.match(facts, /New in last run\s+4\b/);
      assert.match(await card(broken.fid).locator('dl').innerText(), /Last good pull\s+never/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('Feed page', () => {
    it('shows the source definition, the health and the runs of a good feed', async () => {
      const { page, context, errors } = await signedIn();
      await page.getByRole('link', { name: world.feeds.blocklist.name }).click();
      await page.waitForURL(`**/console/feeds/${world.feeds.blocklist.fid}`);
      assert.match(await page.locator('pre').innerText(), new RegExp(`${world.feedServer.base}/blocklist-de.txt`.replace(/[.]/g, '\\.')));
      const rows = page.locator('table.runs tbody tr');
      assert.equal(await rows.count(), 1);
      assert.equal(await rows.first().getAttribute('data-outcome'), 'ok');
      assert.match(await rows.first().innerText(), /\bcommand\b/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it("shows the failing feed's failed run with its error", async () => {
      const { page, context, errors } = await signedIn();
      await page.goto(`/console/feeds/${world.feeds.broken.fid}`);
      const row = page.locator('table.runs tbody tr').first();
      assert.equal(await row.getAttribute('data-outcome'), 'failed');
      assert.equal(await row.locator('td.error-text').innerText(), world.brokenError);
      assert.equal(await page.locator('[data-state]').innerText(), 'failing');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('Pull now pulls the source and shows the run it added, trigger console', async () => {
      const { page, context, errors } = await signedIn();
      const { fid } = world.feeds.blocklist;
      await page.goto(`/console/feeds/${fid}`);
      const before = await runNumbers(page);
      const asked = world.feedServer.requestsFor('/blocklist-de.txt').length;
      await page.getByRole('button', { name: 'Pull now' }).click();
      await page.locator('.notice').waitFor();
      assert.equal(world.feedServer.requestsFor('/blocklist-de.txt').length, asked + 1, 'the source was asked once');
      const after = await runNumbers(page);
      assert.equal(after.length, before.length + 1);
      const added = after[0]!;
      assert.ok(!before.includes(added));
      assert.match(await page.locator('.notice').innerText(), new RegExp(`Pulled now: run ${added}\\b`));
      const row = page.locator(`table.runs tbody tr[data-run="${added}"]`);
      assert.match(await row.innerText(), /\bconsole\b/);
      // The page shown after the pull is a GET (post/redirect/get) or the post's answer; either way a reload adds nothing.
      await page.goto(`/console/feeds/${fid}`);
      assert.deepEqual(await runNumbers(page), after);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('charts', () => {
    it('every chart on the Feeds page and a feed page is an svg with a drawn path, and a line once a feed has two runs', async () => {
      const { page, context, errors } = await signedIn();
      for (const path of ['/console/', `/console/feeds/${world.feeds.blocklist.fid}`, `/console/feeds/${world.feeds.broken.fid}`]) {
        await page.goto(path);
        const charts = page.locator('figure.chart > svg[role="img"]');
        const n = await charts.count();
        assert.ok(n > 0, `${path} has a chart`);
        for (let i = 0; i < n; i++) {
          const svg = charts.nth(i);
          const box = await svg.boundingBox();
          assert.ok(box !== null && box.width > 50 && box.height > 50, `chart ${i} of ${path} is laid out: ${JSON.stringify(box)}`);
          assert.match(await svg.locator('title').textContent() ?? '', /\S/, `chart ${i} of ${path} has a title`);
          const drawn = await svg.locator('path').evaluateAll((paths) => paths.map((p) => p.getAttribute('d') ?? '').filter((d) => /^M[-\d.]/.test(d)));
          assert.ok(drawn.length > 0, `chart ${i} of ${path} draws a path`);
        }
      }
      // Pull now gave the Blocklist its second run: its chart joins them with a line.
      await page.goto('/console/');
      const line = await page.locator(`#feed-${world.feeds.blocklist.fid} svg path.series-0`).getAttribute('d');
      assert.match(line ?? '', /^M[-\d.]+,[-\d.]+L[-\d.]+,[-\d.]+/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('Value page', () => {
    it('a searched value shows the feeds that list it and the feed its risk comes from', async () => {
      const { page, context, errors } = await signedIn();
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Value' }).click();
      await page.getByLabel('Value', { exact: true }).fill('198.51.100.7');
      await page.getByRole('button', { name: 'Explain' }).click();
      await page.waitForURL('**/console/value?value=198.51.100.7');
      assert.equal(await page.locator('h1').innerText(), 'Value 198.51.100.7');
      const feeds = page.locator('#value-feeds');
      assert.equal(await feeds.locator('tbody tr').count(), 1);
      assert.equal(await feeds.locator('tbody tr th a').innerText(), world.feeds.blocklist.name);
      assert.match(await page.locator('#value-risk-from').innerText(), /Its risk \(high\) comes from Blocklist/);
      assert.match(await page.locator('#value-indicator').innerText(), /Retired\s+No/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a value nothing knows is said to be unknown', async () => {
      const { page, context, errors } = await signedIn();
      await page.goto('/console/value?value=unknown.example.net');
      assert.match(await page.locator('#value-unknown').innerText(), /Nothing knows this value/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('Allowlist page', () => {
    it("shows the config's entries read-only and none added at run time yet", async () => {
      const { page, context, errors } = await signedIn();
      await page.goto('/console/allowlist');
      assert.ok((await page.locator('#allowlist-config li').count()) > 0);
      assert.equal(await page.locator('#allowlist-config form, #allowlist-config button').count(), 0, 'config entries cannot be changed here');
      assert.match(await page.locator('#allowlist-runtime-empty').innerText(), /No entry/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('the dry run retires nothing and counts exactly what applying the entry then retires', async () => {
      const { page, context, errors } = await signedIn();
      const listed = await world.exportLines();
      await page.goto('/console/allowlist');
      await page.getByLabel('Entry', { exact: true }).fill('192.0.2.0/24');
      await page.getByLabel('Reason', { exact: true }).fill('documentation range, not a threat');
      await page.getByRole('button', { name: 'Preview' }).click();
      const counted = /would retire (\d+) stored indicators?/.exec(await page.locator('#preview-count').innerText());
      assert.ok(counted, await page.locator('#preview-count').innerText());
      const count = Number(counted[1]);
      const sample = await page.locator('#preview-sample tbody th').allInnerTexts();
      assert.ok(count > 0);
      assert.deepEqual(await world.exportLines(), listed, 'the dry run changed nothing');
      assert.deepEqual(await seriousAxeFindings(page), [], 'the preview page has no serious accessibility finding');

      await page.getByRole('button', { name: 'Apply: add 192.0.2.0/24' }).click();
      await page.waitForURL('**/console/allowlist?**');
      assert.match(await page.locator('#allowlist-message').innerText(), new RegExp(`Added 192\\.0\\.2\\.0/24: it retired ${count} stored indicator`));
      const now = await world.exportLines();
      const gone = listed.filter((line) => !now.includes(line));
      assert.equal(gone.length, count, `applying retired exactly the ${count} the dry run counted: ${gone.join(', ')}`);
      if (sample.length === count) assert.deepEqual([...gone].sort(), [...sample].sort());
      const entry = page.locator('#allowlist-runtime tbody tr');
      assert.equal(await entry.count(), 1);
      assert.match(await entry.innerText(), /192\.0\.2\.0\/24[\s\S]*documentation range, not a threat/);

      // The value page now says why the value is off the lists.
      await page.goto('/console/value?value=192.0.2.10');
      assert.match(await page.locator('#value-indicator').innerText(), /Retired\s+Yes[\s\S]*allowlisted/);
      assert.match(await page.locator('#value-allowlist').innerText(), /192\.0\.2\.0\/24/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('Exports page', () => {
    it("describes the list a device polls: its lines against a limit, the lines the limit keeps, and a URL that serves them", async () => {
      const { page, context, errors } = await signedIn();
      const listed = await world.exportLines();
      assert.ok(listed.length > 3);
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Exports' }).click();
      await page.waitForURL('**/console/exports');
      await page.getByLabel('Collection').selectOption({ label: 'Indicators (indicators)' });
      await page.getByLabel('Or a limit of your own (lines)').fill('3');
      await page.getByRole('button', { name: 'Describe the list' }).click();
      await page.waitForURL('**/console/exports?**');
      assert.equal(await page.locator('#export-total').innerText(), String(listed.length));
      assert.equal(await page.locator('#export-kept').innerText(), '3');
      assert.equal(await page.locator('#export-omitted').innerText(), String(listed.length - 3));
      assert.match(await page.locator('#export-fits').innerText(), /does not fit/);
      const shown = (await page.locator('#export-first-lines').innerText()).split('\n').filter((line) => line !== '');
      assert.equal(shown.length, 3);
      for (const line of shown) assert.ok(listed.includes(line), `${line} is on the list`);
      // The URL the page gives, polled as a firewall would with a plan key, serves exactly those lines.
      const url = await page.locator('#export-url').inputValue();
      assert.ok(url.startsWith(`${world.base}/export/`), url);
      const polled = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`taxii2:${world.planKey}`).toString('base64')}` } });
      assert.equal(polled.status, 200);
      assert.deepEqual((await polled.text()).split('\n').filter((line) => line !== ''), shown);

      // A device from the list instead: its limit, which the list fits.
      await page.getByLabel('Or a limit of your own (lines)').fill('');
      await page.getByLabel('Device').selectOption('panos-50k');
      await page.getByRole('button', { name: 'Describe the list' }).click();
      await page.waitForURL((u) => u.searchParams.get('device') === 'panos-50k');
      assert.match(await page.locator('#export-limit').innerText(), /^50,000 lines \(PAN-OS/);
      assert.match(await page.locator('#export-fits').innerText(), new RegExp(`It fits: ${listed.length} lines against a limit of 50,000`));
      assert.equal(await page.locator('#export-omitted').innerText(), '0');
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('CSRF', () => {
    it('a form posted without its CSRF token, or with another session\'s, is refused with 403 and changes nothing', async () => {
      const { page, context } = await signedIn();
      const other = await signedIn();
      const othersToken = await other.page.locator('input[name="_csrf"]').first().inputValue();
      const { drop } = world.feeds;
      const listed = await world.exportLines();
      const asked = world.feedServer.requestsFor('/drop.txt').length;
      // Sent from the console's own origin, as the browser would: only the token is missing or wrong.
      const post = (path: string, form: Record<string, string>) => page.request.post(path, { form, headers: { origin: world.base }, maxRedirects: 0 });
      for (const token of [undefined, othersToken]) {
        const extra: Record<string, string> = token === undefined ? {} : { _csrf: token };
        const pull = await post(`/console/feeds/${drop.fid}/pull`, extra);
        assert.equal(pull.status(), 403);
        assert.match(await pull.text(), /CSRF token/);
        const add = await post('/console/allowlist/apply', { entry: '198.51.100.0/25', reason: 'forged', ...extra });
        assert.equal(add.status(), 403);
      }
      assert.equal(world.feedServer.requestsFor('/drop.txt').length, asked, 'no pull was made');
      assert.deepEqual(await world.exportLines(), listed, 'nothing was retired');
      await page.goto('/console/allowlist');
      assert.doesNotMatch(await page.locator('main').innerText(), /198\.51\.100\.0\/25/);
      // With the page's own token the same post is taken: the refusals were for the token alone.
      const token = await page.locator('input[name="_csrf"]').first().inputValue();
      const good = await post(`/console/feeds/${drop.fid}/pull`, { _csrf: token });
      assert.ok(good.status() < 400, `status ${good.status()}`);
      assert.equal(world.feedServer.requestsFor('/drop.txt').length, asked + 1);
      await other.context.close();
      await context.close();
    });
  });

  describe('by keyboard alone', () => {
    it('logs in, opens a feed, pulls it now and searches a value with Tab and Enter', async () => {
      const { page, context, errors } = await world.newPage();
      await page.goto('/console/login');
      await page.keyboard.press('Tab');
      assert.equal(await page.locator(':focus').innerText(), 'Skip to content', 'the first Tab stop skips to the content');
      await tabTo(page, page.getByLabel('Admin key'));
      await page.keyboard.type(world.adminKey);
      await page.keyboard.press('Enter');
      await page.waitForURL('**/console/');

      const { drop } = world.feeds;
      await tabTo(page, page.locator(`#feed-${drop.fid} h2 a`));
      await page.keyboard.press('Enter');
      await page.waitForURL(`**/console/feeds/${drop.fid}`);
      const before = await runNumbers(page);
      await tabTo(page, page.getByRole('button', { name: 'Pull now' }));
      await page.keyboard.press('Enter');
      await page.locator('.notice').waitFor();
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
      `/console/feeds/${world.feeds.blocklist.fid}`,
      `/console/feeds/${world.feeds.broken.fid}`,
      '/console/value',
      '/console/value?value=192.0.2.10',
      '/console/value?value=198.51.100.7',
      '/console/allowlist',
      '/console/exports',
      '/console/exports?collection=indicators&type=ip&type=cidr&format=txt&device=panos-50k&max=2',
    ];

    it('logs no error to the browser console and has no serious or critical axe-core finding', async () => {
      const { page, context, errors } = await signedIn();
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
      const anonymous = await world.newPage();
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
});
