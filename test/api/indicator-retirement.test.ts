// An indicator's retirement as GET /api/indicator.php reports it (docs/interface.md section 2.5): `aged-out` when the lifecycle
// retires what no source listed for indicatorRetireDays, `upstream` when a pull's source withdraws it, each
// with its stamp_retired, both cleared when a pull lists the value again. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runLifecycle } from '../../src/lifecycle/run-lifecycle.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const DAY = 86_400_000;
const SETTINGS = { threatRetireDays: 90, indicatorRetireDays: 30 } as const;

const stixIndicator = (n: number, value: string, extra: Record<string, unknown> = {}) => ({
  type: 'indicator', spec_version: '2.1', id: `indicator--5d1c7a3e-2b4f-4e6a-8c9d-${String(n).padStart(12, '0')}`, created: '2026-01-01T00:00:00Z',
  modified: '2026-01-01T00:00:00Z', pattern: `[ipv4-addr:value = '${value}']`, pattern_type: 'stix', valid_from: '2026-01-01T00:00:00Z', ...extra,
});
const bundle = (objects: unknown[]) => JSON.stringify({ type: 'bundle', id: 'bundle--5d1c7a3e-2b4f-4e6a-8c9d-000000000000', objects });

interface Retirement {
  risk: string;
  retired: number;
  retired_reason: string | null;
  stamp_retired: string | null;
}

for (const backend of storeBackends()) {
  describe(`an indicator's retirement, as GET /api/indicator.php reports it (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    before(async () => {
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-indicator-retirement-'));
    });
    after(async () => {
      await world.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    const retirement = async (indicator: string): Promise<Retirement> => {
      const body = await world.api('indicator.php', { indicator });
      return { risk: body.risk, retired: body.retired, retired_reason: body.retired_reason, stamp_retired: body.stamp_retired };
    };

    it('is aged-out, stamped with the lifecycle run, once no source listed it for 30 days; listed again, it is active with neither', async () => {
      const list = join(dir, 'list.txt');
      writeFileSync(list, 'stays.example.com\nleaves.example.com\n');
      const fid = await world.addSource('Aging list', { url: pathToFileURL(list).href, format: 'text', risk: 'medium' });
      assert.equal((await world.pull(fid)).ok, true);
      writeFileSync(list, 'stays.example.com\n');
      assert.equal((await world.pull(fid)).ok, true);
      assert.deepEqual(await retirement('LEAVES.example.com.'), { risk: 'medium', retired: 0, retired_reason: null, stamp_retired: null });

      world.clock.advance(31 * DAY);
      assert.equal((await runLifecycle(world.store, SETTINGS, world.clock)).agedIndicators, 1);
      assert.deepEqual(await retirement('leaves.example.com'), { risk: 'retired', retired: 1, retired_reason: 'aged-out', stamp_retired: world.clock.stamp() });
      assert.deepEqual(await retirement('stays.example.com'), { risk: 'medium', retired: 0, retired_reason: null, stamp_retired: null });

      writeFileSync(list, 'stays.example.com\nleaves.example.com\n');
      assert.equal((await world.pull(fid)).ok, true);
      assert.deepEqual(await retirement('leaves.example.com'), { risk: 'medium', retired: 0, retired_reason: null, stamp_retired: null });
    });

    it('is upstream, stamped with the pull, when the source revokes its indicator; listed again, it is active with neither', async () => {
      const file = join(dir, 'bundle.json');
      writeFileSync(file, bundle([stixIndicator(1, '198.51.100.71'), stixIndicator(2, '198.51.100.72')]));
      const fid = await world.addSource('Withdrawing STIX', { url: pathToFileURL(file).href, format: 'stix', risk: 'high' });
      assert.equal((await world.pull(fid)).ok, true);

      writeFileSync(file, bundle([stixIndicator(1, '198.51.100.71'), stixIndicator(2, '198.51.100.72', { modified: '2026-02-01T00:00:00Z', revoked: true })]));
      const withdrawn = await world.pull(fid);
      assert.equal(withdrawn.ok && withdrawn.withdrawn, 1);
      assert.deepEqual(await retirement('198.51.100.72'), { risk: 'retired', retired: 1, retired_reason: 'upstream', stamp_retired: world.clock.stamp() });
      assert.deepEqual(await retirement('198.51.100.71'), { risk: 'high', retired: 0, retired_reason: null, stamp_retired: null });

      writeFileSync(file, bundle([stixIndicator(1, '198.51.100.71'), stixIndicator(3, '198.51.100.72')]));
      assert.equal((await world.pull(fid)).ok, true);
      assert.deepEqual(await retirement('198.51.100.72'), { risk: 'high', retired: 0, retired_reason: null, stamp_retired: null });
    });
  });
}
