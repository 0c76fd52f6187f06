// The `pull` log line counts what a pull left unread: `skipped` (STIX objects it cannot read, rows
// without a value) beside `rejected` and `allowlisted`, so README's "skipped and counted" has a count.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const indicator = (n: number, pattern: string) => ({
  type: 'indicator',
  spec_version: '2.1',
  id: `indicator--00000000-0000-4000-8000-00000000000${n}`,
  created: '2026-01-01T00:00:00.000Z',
  modified: '2026-01-01T00:00:00.000Z',
  pattern,
  pattern_type: 'stix',
  valid_from: '2026-01-01T00:00:00.000Z',
});

/** Two indicators read, one an AND of two comparisons (outside the subset a pull reads), one a Snort rule. */
const BUNDLE = {
  type: 'bundle',
  id: 'bundle--00000000-0000-4000-8000-000000000000',
  objects: [
    indicator(1, "[ipv4-addr:value = '198.51.100.5']"),
    indicator(2, "[domain-name:value = 'counted.example.com']"),
    indicator(3, "[ipv4-addr:value = '198.51.100.6' AND domain-name:value = 'both.example.com']"),
    { ...indicator(4, 'alert tcp any any -> any any (msg:"x";)'), pattern_type: 'snort' },
  ],
};

describe('the pull log line', () => {
  const backend = storeBackends()[0]!;
  let world: PullWorld;
  let dir: string;
  before(async () => {
    world = await openPullWorld(backend);
    dir = mkdtempSync(join(tmpdir(), 'threatgate-pull-log-'));
  });
  after(async () => {
    await world?.close();
    rmSync(dir, { recursive: true, force: true });
    await backend.cleanup();
  });

  it('of a STIX bundle with objects the pull cannot read › says how many it skipped', async () => {
    const file = join(dir, 'bundle.json');
    writeFileSync(file, JSON.stringify(BUNDLE));
    const fid = await world.addSource('Counted bundle', { url: pathToFileURL(file).href, format: 'stix' });
    const outcome = await world.pull(fid);
    assert.equal(outcome.ok, true);
    const line = world.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).findLast((e) => e.msg === 'pull' && e.fid === fid);
    assert.equal(line?.values, 2);
    assert.equal(line?.skipped, 2);
  });

  it('of a list with nothing to skip › says 0 skipped', async () => {
    const file = join(dir, 'list.txt');
    writeFileSync(file, '198.51.100.9\n');
    const fid = await world.addSource('Plain list', { url: pathToFileURL(file).href, format: 'text' });
    assert.equal((await world.pull(fid)).ok, true);
    const line = world.logLines.map((l) => JSON.parse(l) as Record<string, unknown>).findLast((e) => e.msg === 'pull' && e.fid === fid);
    assert.equal(line?.skipped, 0);
  });
});
