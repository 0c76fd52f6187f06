// The operator console (docs/interface.md section 14) in a real browser: Debian's chromium driven by playwright-core
// against a real server whose store was filled by pulls of the fixture server, one feed failing. Login and
// logout, refused keys, every page with that data, Pull now, the charts, the allowlist's dry run against
// what applying it retires, a form without its CSRF token, the console errors of every page, the main flows
// by keyboard alone, an Explore query paged and refused, a threat's page paged, retired and reactivated, and an
// axe-core scan of every page. The specs run in this order on one store: Pull now adds the run the charts then
// draw a line through, and the allowlist retires what the value page then calls allowlisted.
import { after, before, describe } from 'node:test';
import { dataSpecs } from './data-specs.js';
import { exploreSpecs } from './explore-specs.js';
import { feedSpecs } from './feed-specs.js';
import { loginSpecs } from './login-specs.js';
import { openConsoleWorld, type ConsoleWorld } from './console-world.js';
import { safetySpecs } from './safety-specs.js';
import { threatSpecs } from './threat-specs.js';

describe('the operator console in chromium', () => {
  let world: ConsoleWorld | undefined;
  before(async () => {
    world = await openConsoleWorld();
  });
  after(async () => {
    await world?.close();
  });
  const opened = (): ConsoleWorld => {
    if (world === undefined) throw new Error('the console world did not open');
    return world;
  };

  loginSpecs(opened);
  feedSpecs(opened);
  dataSpecs(opened);
  safetySpecs(opened);
  exploreSpecs(opened);
  threatSpecs(opened);
});
