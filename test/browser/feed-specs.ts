// The console's Feeds page and a feed's page in chromium, on pulled data: states and errors, the runs, Pull now, the charts drawn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsoleWorld } from './console-world.js';
import { runNumbers, signedIn } from './console-steps.js';

/** Run in order, after the specs before them in console.test.ts, on the world it opened. */
export function feedSpecs(world: () => ConsoleWorld): void {
  describe('Feeds page', () => {
    it('shows every feed with its state badge; the failing one as failing, with its error', async () => {
      const { page, context, errors } = await signedIn(world());
      assert.equal(await page.locator('h1').innerText(), 'Feeds');
      const card = (fid: number) => page.locator(`#feed-${fid}`);
      for (const feed of Object.values(world().feeds)) assert.equal(await card(feed.fid).getByRole('link', { name: feed.name }).count(), 1, feed.name);
      const { blocklist, drop, broken } = world().feeds;
      assert.equal(await card(blocklist.fid).locator('[data-state]').innerText(), 'ok');
      assert.equal(await card(drop.fid).locator('[data-state]').innerText(), 'ok');
      assert.equal(await card(broken.fid).locator('[data-state]').innerText(), 'failing');
      assert.equal(await card(broken.fid).locator('.error-text').innerText(), world().brokenError);
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
      const { page, context, errors } = await signedIn(world());
      await page.getByRole('link', { name: world().feeds.blocklist.name }).click();
      await page.waitForURL(`**/console/feeds/${world().feeds.blocklist.fid}`);
      assert.match(await page.locator('pre').innerText(), new RegExp(`${world().feedServer.base}/blocklist-de.txt`.replace(/[.]/g, '\\.')));
      const rows = page.locator('table.runs tbody tr');
      assert.equal(await rows.count(), 1);
      assert.equal(await rows.first().getAttribute('data-outcome'), 'ok');
      assert.match(await rows.first().innerText(), /\bcommand\b/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it("shows the failing feed's failed run with its error", async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto(`/console/feeds/${world().feeds.broken.fid}`);
      const row = page.locator('table.runs tbody tr').first();
      assert.equal(await row.getAttribute('data-outcome'), 'failed');
      assert.equal(await row.locator('td.error-text').innerText(), world().brokenError);
      assert.equal(await page.locator('[data-state]').innerText(), 'failing');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('Pull now hands the pull to the puller; the page waits for it, then shows the run it added, trigger console', async () => {
      const { page, context, errors } = await signedIn(world());
      const { fid } = world().feeds.blocklist;
      await page.goto(`/console/feeds/${fid}`);
      const before = await runNumbers(page);
      const asked = world().feedServer.requestsFor('/blocklist-de.txt').length;
      await page.getByRole('button', { name: 'Pull now' }).click();
      // The page reloads itself while the request waits or runs, until the run is recorded.
      await page.locator('.notice', { hasText: 'Pulled now' }).waitFor({ timeout: 30_000 });
      assert.equal(world().feedServer.requestsFor('/blocklist-de.txt').length, asked + 1, 'the source was asked once');
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
      const { page, context, errors } = await signedIn(world());
      for (const path of ['/console/', `/console/feeds/${world().feeds.blocklist.fid}`, `/console/feeds/${world().feeds.broken.fid}`]) {
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
      const line = await page.locator(`#feed-${world().feeds.blocklist.fid} svg path.series-0`).getAttribute('d');
      assert.match(line ?? '', /^M[-\d.]+,[-\d.]+L[-\d.]+,[-\d.]+/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('no two axis labels overlap, as drawn, on a card with many runs and on its feed page', async () => {
      const { page, context, errors } = await signedIn(world());
      const { blocklist } = world().feeds;
      // The Blocklist pulled 12 times more by `threatgate feeds pull`, two at a time (the second waits for the feed's lease):
      // enough runs that labels between the first and the latest fit, and would overlap unthinned. (Example DROP keeps its
      // few runs: a later spec counts the rows of its run table.)
      for (let i = 0; i < 6; i++) {
        for (const run of await Promise.all([1, 2].map(() => world().cli(['feeds', 'pull', String(blocklist.fid)])))) assert.equal(run.status, 0, run.stderr);
      }
      for (const [path, chart] of [['/console/', `#feed-${blocklist.fid} figure.chart > svg`], [`/console/feeds/${blocklist.fid}?limit=100`, 'figure.chart > svg']] as const) {
        await page.goto(path);
        const svg = page.locator(chart);
        const frame = (await svg.boundingBox())!;
        const boxes = await svg.locator('.axis text').evaluateAll((texts) =>
          texts.map((t) => {
            const r = t.getBoundingClientRect();
            return { text: t.textContent ?? '', run: t.getAttribute('data-run'), left: r.left, right: r.right, top: r.top, bottom: r.bottom };
          }),
        );
        const runLabels = boxes.filter((b) => b.run !== null);
        assert.ok(runLabels.length >= 3, `${path}: the first and latest runs are labelled, and one between: ${JSON.stringify(runLabels)}`);
        for (const [i, a] of boxes.entries()) {
          assert.ok(a.left >= frame.x - 0.5 && a.right <= frame.x + frame.width + 0.5, `${path}: "${a.text}" is inside the chart`);
          for (const b of boxes.slice(i + 1)) {
            const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
            assert.ok(!overlap, `${path}: "${a.text}" ${JSON.stringify(a)} and "${b.text}" ${JSON.stringify(b)} overlap`);
          }
        }
      }
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}
