// What the console's browser specs do again and again: sign in through the form, have a login refused, Tab to a control, read a feed page's runs.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { ConsoleWorld, WatchedPage } from './console-world.js';

/** A new browser context signed in through the login form with the admin key, on the Feeds page. */
export async function signedIn(world: ConsoleWorld): Promise<WatchedPage> {
  const watched = await world.newPage();
  await watched.page.goto('/console/login');
  await watched.page.getByLabel('Admin key').fill(world.adminKey);
  await watched.page.getByRole('button', { name: 'Log in' }).click();
  await watched.page.waitForURL('**/console/');
  return watched;
}

/** Submits the login form with `key` and gives the answer's status (the page stays on the form). */
export async function refusedLogin(page: Page, key: string): Promise<number> {
  await page.goto('/console/login');
  await page.getByLabel('Admin key').fill(key);
  const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Log in' }).click()]);
  await page.waitForLoadState();
  return response.status();
}

/** Presses Tab until `target` has the focus; fails naming what had it after `max` presses. */
export async function tabTo(page: Page, target: Locator, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    if ((await target.and(page.locator(':focus')).count()) > 0) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`${max} presses of Tab never reached ${target}; the focus is on ${await page.evaluate('document.activeElement?.outerHTML')}`);
}

export const pathOf = (page: Page) => new URL(page.url()).pathname;

/** The run numbers of a feed page's run table, newest first. */
export const runNumbers = async (page: Page) => (await page.locator('table.runs tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-run'))))) as number[];
