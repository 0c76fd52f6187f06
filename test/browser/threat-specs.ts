// The console's threat page in chromium: a threat found in Explore and opened by its name, its record, risk counts and ATT&CK
// techniques, its linked indicators paged newest first and a value followed to its provenance, "Seen" pressed and refused, Retire
// and Reactivate, each state free of serious axe-core findings.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { seriousAxeFindings, type ConsoleWorld } from './console-world.js';
import { signedIn } from './console-steps.js';

/** More linked names than a page of 100 holds, with iids of their own past what the pulls and the other specs' imports gave. */
const NAMES = 150;
const TID = 950_001;
const FIRST_IID = 950_001;
const NAME = 'Threat Page Kit';
const nameOf = (n: number) => `t${n}.threat-page.example`;

/** The threat and its names, as `threatgate import` reads them (NDJSON). */
function threatRecords(): string {
  const stamp = '2026-01-02 03:04:05';
  const records: object[] = [
    {
      record: 'threat', tid: TID, threat: NAME, category: 'malware', risk: 'high', othernames: ['TPK'], description: 'names under threat-page.example', notes: null,
      wikisummary: null, wikireference: null, retired: false, stamp_added: stamp, stamp_updated: stamp, stamp_seen: stamp, stamp_retired: null,
      attributes: {}, ttps: [{ id: 'T1071.001', name: 'Web Protocols', tactic: 'Command and Control' }], news: [], comments: [], related: [],
    },
  ];
  for (let n = 1; n <= NAMES; n++) {
    records.push({ record: 'indicator', iid: FIRST_IID + n - 1, indicator: nameOf(n), type: 'domain', risk: 'medium', stamp_added: stamp, stamp_updated: stamp, stamp_seen: stamp, retired: null, attributes: {}, properties: {} });
    records.push({ record: 'link', iid: FIRST_IID + n - 1, tid: TID, stamp_linked: stamp });
  }
  return `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

const linkedValues = (page: Page) => page.locator('#threat-links-table tbody th a').allInnerTexts();

/** Run in order, after the specs before them in console.test.ts, on the world it opened; the names it imports change no page the others check. */
export function threatSpecs(world: () => ConsoleWorld): void {
  describe('Threat page', () => {
    before(async () => {
      const dir = mkdtempSync(join(tmpdir(), 'threatgate-threat-'));
      try {
        const file = join(dir, 'threat.ndjson');
        writeFileSync(file, threatRecords());
        const run = await world().cli(['import', file]);
        assert.equal(run.status, 0, run.stderr);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a threat opened from Explore shows its record, risk counts and techniques, and pages its indicators newest first', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto('/console/explore');
      await page.getByLabel('Threats', { exact: true }).check();
      await page.getByLabel('Query', { exact: true }).fill(`threat="${NAME}"`);
      await page.getByRole('button', { name: 'Explore' }).click();
      await page.waitForURL((url) => url.searchParams.get('type') === 'threats');
      await page.locator('#explore-threats').getByRole('link', { name: NAME }).click();
      await page.waitForURL(`**/console/threats/${TID}`);
      assert.equal(await page.locator('h1').innerText(), `Threat ${NAME}`);
      assert.match(await page.locator('#threat-record').innerText(), /Other names\s+TPK[\s\S]*Retired\s+No: it is active/);
      assert.match(await page.locator('#threat-risk tr[data-risk="medium"]').innerText(), /medium\s+150/);
      assert.match(await page.locator('#threat-risk tr[data-risk="total"]').innerText(), /total\s+150/);
      assert.match(await page.locator('#threat-techniques tbody tr').innerText(), /T1071\.001\s+Web Protocols\s+command-and-control/);
      assert.equal(await page.locator('#threat-techniques a').getAttribute('href'), 'https://attack.mitre.org/techniques/T1071/001');

      assert.match(await page.locator('#threat-links-range').innerText(), /Indicators 1 to 100 of 150, newest first \(page 1 of 2\)/);
      assert.deepEqual(await linkedValues(page), Array.from({ length: 100 }, (_, i) => nameOf(NAMES - i)));
      assert.deepEqual(await seriousAxeFindings(page), [], 'the threat page has no serious accessibility finding');

      await page.getByRole('navigation', { name: 'Pages of linked indicators' }).getByRole('link', { name: 'Page 2' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '1');
      assert.deepEqual(await linkedValues(page), Array.from({ length: NAMES - 100 }, (_, i) => nameOf(NAMES - 100 - i)));
      assert.equal(await page.getByRole('link', { name: 'Older 100' }).count(), 0, 'the last page links to no older one');
      await page.getByRole('link', { name: 'Newer 100' }).click();
      await page.waitForURL((url) => url.pathname === `/console/threats/${TID}` && url.search === '');

      await page.getByRole('link', { name: nameOf(NAMES), exact: true }).click();
      await page.waitForURL(`**/console/value?value=${nameOf(NAMES)}`);
      await page.locator('#value-threats').getByRole('link', { name: NAME }).click();
      await page.waitForURL(`**/console/threats/${TID}`);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it('Seen records a sighting as the session\u2019s key: the count goes up and the sighting is listed; a refused time is shown beside its field', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto(`/console/threats/${TID}`);
      assert.equal(await page.locator('#threat-sightings-summary').innerText(), 'No one has reported seeing it.');
      await page.getByLabel('Count', { exact: true }).fill('3');
      await page.getByLabel('Note (optional)', { exact: true }).fill('seen in case 7');
      await page.getByRole('button', { name: 'Seen' }).click();
      await page.waitForURL((url) => url.searchParams.get('seen') !== null);
      assert.match(await page.locator('#threat-message').innerText(), /Recorded a sighting: seen 3 times at .* UTC, reported by browser tests \(key k_/);
      assert.match(await page.locator('#threat-sightings-summary').innerText(), /^Seen 3 times in all reported sightings/);
      assert.match(await page.locator('#threat-sightings-table tbody tr').first().innerText(), /3\s+browser tests \(key k_\S+\)\s+seen in case 7/);
      assert.deepEqual(await seriousAxeFindings(page), [], 'the page after Seen');

      const first = new URL(page.url()).searchParams.get('seen');
      await page.getByLabel('Count', { exact: true }).fill('2');
      await page.getByRole('button', { name: 'Seen' }).click();
      await page.waitForURL((url) => url.searchParams.get('seen') !== null && url.searchParams.get('seen') !== first);
      assert.match(await page.locator('#threat-sightings-summary').innerText(), /^Seen 5 times in all reported sightings/);
      assert.equal(await page.locator('#threat-sightings-table tbody tr').count(), 2);

      // The browser keeps a count below 1 from being sent (min 1); a time in no known form is the server's to refuse.
      await page.getByLabel('When (optional)', { exact: true }).fill('last tuesday');
      const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Seen' }).click()]);
      await page.waitForLoadState();
      assert.equal(response.status(), 400);
      assert.match(await page.locator('#threat-seen-at-error').innerText(), /When must be a timestamp/);
      assert.equal(await page.getByLabel('When (optional)', { exact: true }).inputValue(), 'last tuesday');
      assert.equal(await page.getByLabel('When (optional)', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.match(await page.locator('#threat-sightings-summary').innerText(), /^Seen 5 times/, 'nothing was recorded');
      assert.deepEqual(await seriousAxeFindings(page), [], 'the refused form');
      assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
      await context.close();
    });

    it('Retire and Reactivate change the threat and say so', async () => {
      const { page, context, errors } = await signedIn(world());
      await page.goto(`/console/threats/${TID}`);
      await page.getByRole('button', { name: 'Retire' }).click();
      await page.waitForURL((url) => url.searchParams.get('state') === 'retired');
      assert.match(await page.locator('#threat-message').innerText(), new RegExp(`Retired ${NAME}\\.`));
      assert.match(await page.locator('#threat-retired').innerText(), /^Yes, since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      assert.deepEqual(await seriousAxeFindings(page), [], 'the page after Retire');

      await page.getByRole('button', { name: 'Reactivate' }).click();
      await page.waitForURL((url) => url.searchParams.get('state') === 'reactivated');
      assert.match(await page.locator('#threat-message').innerText(), /it is active again/);
      assert.match(await page.locator('#threat-retired').innerText(), /No: it is active/);
      assert.equal(await page.getByRole('button', { name: 'Retire' }).count(), 1);
      assert.deepEqual(errors, []);
      await context.close();
    });
  });
}
