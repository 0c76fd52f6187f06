// The console's Explore page in chromium: a query typed and sent by keyboard, its rows, a value followed to its provenance, the
// next page, a refused query's error beside the box and announced, and the page free of serious axe-core findings in each state.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousAxeFindings, type ConsoleWorld } from './console-world.js';
import { signedIn, tabTo } from './console-steps.js';

/** More names under one parent than a page of 100 holds, imported with iids of their own past what the pulls gave: newest first, n130 leads. */
const NAMES = 130;
const FIRST_IID = 900_001;
const nameOf = (n: number) => `n${n}.paging.example`;

/** The imported records: the names, and a threat linked to the last ten, as `threatgate import` reads them (NDJSON). */
function pagingRecords(): string {
  const stamp = '2026-01-02 03:04:05';
  const records: object[] = [
    {
      record: 'threat', tid: 900_001, threat: 'Paging Kit', category: 'phishing', risk: 'high', othernames: [], description: 'names under paging.example', notes: null,
      wikisummary: null, wikireference: null, retired: false, stamp_added: stamp, stamp_updated: stamp, stamp_seen: stamp, stamp_retired: null,
      attributes: {}, ttps: [], news: [], comments: [], related: [],
    },
  ];
  for (let n = 1; n <= NAMES; n++) {
    records.push({ record: 'indicator', iid: FIRST_IID + n - 1, indicator: nameOf(n), type: 'domain', risk: 'medium', stamp_added: stamp, stamp_updated: stamp, stamp_seen: stamp, retired: null, attributes: {}, properties: {} });
  }
  for (let n = NAMES - 9; n <= NAMES; n++) records.push({ record: 'link', iid: FIRST_IID + n - 1, tid: 900_001, stamp_linked: stamp });
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

const rowValues = (page: Page) => page.locator('#explore-indicators tbody th a').allInnerTexts();

/** Run in order, after the specs before them in console.test.ts, on the world it opened; the names it imports change no page the others check. */
export function exploreSpecs(world: () => ConsoleWorld): void {
  describe('Explore page', () => {
    before(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'threatgate-explore-'));
      try {
        const file = join(dir, 'paging.ndjson');
        writeFileSync(file, pagingRecords());
        const run = await world().cli(['import', file]);
        assert.equal(run.status, 0, run.stderr);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a query typed and sent by keyboard shows its rows; a value leads to its provenance; the next page holds the rest', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Explore' }).click();
      await page.waitForURL('**/console/explore');
      await tabTo(page, page.getByLabel('Query', { exact: true }));
      await page.keyboard.type('ioc=*.paging.example and type=domain');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => url.pathname === '/console/explore' && url.searchParams.get('q') === 'ioc=*.paging.example and type=domain');
      assert.equal(await page.getByLabel('Query', { exact: true }).inputValue(), 'ioc=*.paging.example and type=domain', 'the query stays in the box');
      assert.equal(await page.getByRole('heading', { name: 'Results' }).count(), 1);
      const first = await rowValues(page);
      assert.deepEqual(first, Array.from({ length: 100 }, (_, i) => nameOf(NAMES - i)));
      assert.match(await page.locator('#explore-range').innerText(), /Indicators 1 to 100, more follow/);
      assert.match(await page.locator('#explore-indicators tbody tr').first().innerText(), /Paging Kit/);
      assert.deepEqual(await seriousAxeFindings(page), [], 'the results have no serious accessibility finding');

      await page.getByRole('link', { name: 'Next 100' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '1');
      assert.deepEqual(await rowValues(page), Array.from({ length: NAMES - 100 }, (_, i) => nameOf(NAMES - 100 - i)));
      assert.equal(await page.getByRole('link', { name: 'Next 100' }).count(), 0, 'the last page links to no next one');
      await page.getByRole('link', { name: 'Previous 100' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === null && url.searchParams.get('q') !== null);
      assert.deepEqual(await rowValues(page), first);

      await page.getByRole('link', { name: nameOf(NAMES), exact: true }).click();
      await page.waitForURL(`**/console/value?value=${nameOf(NAMES)}`);
      assert.equal(await page.locator('h1').innerText(), `Value ${nameOf(NAMES)}`);
      assert.match(await page.locator('#value-threats').innerText(), /Paging Kit/);
      await page.goBack();
      await page.waitForURL('**/console/explore?**');
      assert.deepEqual(await rowValues(page), first, 'the back button shows the query again');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('a refused query comes back with its error beside the box, announced and in the box\u2019s description, and the box focused', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto('/console/explore');
      await page.getByLabel('Query', { exact: true }).fill('risk>=hgih');
      const [response] = await Promise.all([page.waitForResponse((r) => new URL(r.url()).pathname === '/console/explore'), page.getByLabel('Query', { exact: true }).press('Enter')]);
      await page.waitForLoadState();
      assert.equal(response.status(), 400);
      const box = page.getByLabel('Query', { exact: true });
      assert.equal(await box.inputValue(), 'risk>=hgih', 'the query is kept to be corrected');
      assert.equal(await box.getAttribute('aria-invalid'), 'true');
      const alert = page.getByRole('alert');
      assert.match(await alert.innerText(), /At character 1: risk "hgih" is not one of none, unknown, low, medium, high, critical, retired/);
      const description = await box.evaluate((input) => (input.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '));
      assert.match(description, /risk "hgih" is not one of/);
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'explore-q', 'the box has the focus, so a screen reader reads its error');
      assert.deepEqual(await seriousAxeFindings(page), [], 'the error page has no serious accessibility finding');

      // Corrected in place and sent again: the rows, the error gone.
      await box.fill('risk>=high and ioc=*.paging.example');
      await box.press('Enter');
      await page.waitForURL((url) => url.searchParams.get('q') === 'risk>=high and ioc=*.paging.example');
      assert.equal(await page.getByRole('alert').count(), 0);
      assert.equal(await box.getAttribute('aria-invalid'), null);
      assert.match(await page.locator('#explore-none').innerText(), /No indicator matches this query/);
      // The browser logs the 400 document as a failed load; nothing else may be logged.
      assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
      await context.close();
    });

    it('the syntax at hand, the threats mode and an example query have no serious axe-core finding', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto('/console/explore');
      await page.locator('#explore-syntax summary').click();
      assert.ok(await page.locator('#explore-examples').isVisible());
      assert.deepEqual(await seriousAxeFindings(page), [], 'the open help');
      await page.getByLabel('Threats', { exact: true }).check();
      await page.getByLabel('Query', { exact: true }).fill('paging');
      await page.getByRole('button', { name: 'Explore' }).click();
      await page.waitForURL((url) => url.searchParams.get('type') === 'threats');
      const row = page.locator('#explore-threats tbody tr');
      assert.equal(await row.count(), 1);
      assert.match(await row.innerText(), /900001\s+Paging Kit\s+phishing\s+high\s+10/);
      assert.deepEqual(await seriousAxeFindings(page), [], 'the threats table');
      await page.locator('#explore-syntax summary').click();
      await page.locator('#explore-examples a').first().click();
      await page.waitForURL((url) => url.searchParams.get('q') === 'category=malware and risk>=high');
      assert.deepEqual(await seriousAxeFindings(page), [], 'an example query');
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}
