// The console's Value, Allowlist and Exports pages in chromium, each checked against what the server serves: a value's feeds,
// an allowlist dry run against what applying it retires from the export, an export's description against the list it gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seriousAxeFindings, type ConsoleWorld } from './console-world.js';
import { signedIn } from './console-steps.js';

/** Run in order, after the specs before them in console.test.ts, on the world it opened. */
export function dataSpecs(world: () => ConsoleWorld): void {
  describe('Value page', () => {
    it('a searched value shows the feeds that list it and the feed its risk comes from', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Value' }).click();
      await page.getByLabel('Value', { exact: true }).fill('198.51.100.7');
      await page.getByRole('button', { name: 'Explain' }).click();
      await page.waitForURL('**/console/value?value=198.51.100.7');
      assert.equal(await page.locator('h1').innerText(), 'Value 198.51.100.7');
      const feeds = page.locator('#value-feeds');
      assert.equal(await feeds.locator('tbody tr').count(), 1);
      assert.equal(await feeds.locator('tbody tr th a').innerText(), world().feeds.blocklist.name);
      assert.match(await page.locator('#value-risk-from').innerText(), /Its risk \(high\) comes from Blocklist/);
      assert.match(await page.locator('#value-indicator').innerText(), /Retired\s+No/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a value nothing knows is said to be unknown', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto('/console/value?value=unknown.example.net');
      assert.match(await page.locator('#value-unknown').innerText(), /Nothing knows this value/);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });

  describe('Allowlist page', () => {
    it("shows the config's entries read-only and none added at run time yet", async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto('/console/allowlist');
      assert.ok((await page.locator('#allowlist-config li').count()) > 0);
      assert.equal(await page.locator('#allowlist-config form, #allowlist-config button').count(), 0, 'config entries cannot be changed here');
      assert.match(await page.locator('#allowlist-runtime-empty').innerText(), /No entry/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('the dry run retires nothing and counts exactly what applying the entry then retires', async () => {
      const { page, context, errors } = await signedIn(world());
      const listed = await world().exportLines();
      await page.goto('/console/allowlist');
      await page.getByLabel('Entry', { exact: true }).fill('192.0.2.0/24');
      await page.getByLabel('Reason', { exact: true }).fill('documentation range, not a threat');
      await page.getByRole('button', { name: 'Preview' }).click();
      const counted = /would retire (\d+) stored indicators?/.exec(await page.locator('#preview-count').innerText());
      assert.ok(counted, await page.locator('#preview-count').innerText());
      const count = Number(counted[1]);
      const sample = await page.locator('#preview-sample tbody th').allInnerTexts();
      assert.ok(count > 0);
      assert.deepEqual(await world().exportLines(), listed, 'the dry run changed nothing');
      assert.deepEqual(await seriousAxeFindings(page), [], 'the preview page has no serious accessibility finding');

      await page.getByRole('button', { name: 'Apply: add 192.0.2.0/24' }).click();
      await page.waitForURL('**/console/allowlist?**');
      assert.match(await page.locator('#allowlist-message').innerText(), new RegExp(`Added 192\\.0\\.2\\.0/24: it retired ${count} stored indicator`));
      const now = await world().exportLines();
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
      const { page, context, errors } = await signedIn(world());
      const listed = await world().exportLines();
      assert.ok(listed.length > 3);
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Exports' }).click();
      await page.waitForURL('**/console/exports');
      // The form opens on the collection of every indicator, not the test collection the config lists first.
      assert.equal(await page.locator('#export-collection option:checked').innerText(), 'Indicators (indicators)');
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
      assert.ok(url.startsWith(`${world().base}/export/`), url);
      const polled = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`taxii2:${world().planKey}`).toString('base64')}` } });
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
}
