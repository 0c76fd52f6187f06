// Takes docs/console-feeds.png, the Feeds page the README and docs/console-and-operations.md show: the browser suite's world (fixture
// pulls, one feed failing) with a few more runs so that the charts have lines. Run on demand, not in CI:
//   node --import tsx test/browser/screenshot.ts
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { addressLines, fixtureFeed } from '../helpers/feed-server.js';
import { openConsoleWorld } from './console-world.js';

const OUTPUT = fileURLToPath(new URL('../../docs/console-feeds.png', import.meta.url));

const world = await openConsoleWorld();
try {
  // Each later pull of the Blocklist finds more on it, and the DROP list answers 304, so the charts have something to show.
  for (const extra of [40, 90]) {
    world.feedServer.publish('/blocklist-de.txt', fixtureFeed('blocklist-de.txt') + addressLines(0, extra));
    const pulled = await world.cli(['feeds', 'pull', '--all']);
    assert.equal(pulled.status, 1, pulled.stderr);
  }
  const { page, errors } = await world.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/console/login');
  await page.getByLabel('Admin key').fill(world.adminKey);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL('**/console/');
  await page.screenshot({ path: OUTPUT, fullPage: true });
  assert.deepEqual(errors, []);
  console.log(`wrote ${OUTPUT}`);
} finally {
  await world.close();
}
