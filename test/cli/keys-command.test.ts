// `threatgate keys create --admin` and `keys list` (docs/interface.md section 7.4): an admin key has no plan, is listed as `(admin)`, and
// `--admin` with `--plan` is a usage error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey } from '../../src/auth/key-secret.js';
import { keysCommand } from '../../src/cli/keys-command.js';
import { loadConfig } from '../../src/config.js';
import { UsageError } from '../../src/errors.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';

const config = loadConfig({});

for (const backend of storeBackends()) {
  describe(`threatgate keys (${backend.name})`, () => {
    let store: Store;
    const run = async (args: string[], flags: { plan?: string; label?: string; admin?: boolean }) => {
      const lines: string[] = [];
      await keysCommand(args, flags, { store, config, clock: fixedClock, out: (line) => lines.push(line) });
      return lines;
    };
    before(async () => {
      ({ store } = await backend.create());
    });
    after(async () => {
      await store?.close();
      await backend.cleanup();
    });

    describe('keys create --admin', () => {
      it('prints the new key alone, stored as an admin key of no plan', async () => {
        const [key, ...rest] = await run(['create'], { admin: true, label: 'console' });
        assert.deepEqual(rest, []);
        assert.match(key!, /^[A-Za-z0-9_-]{43}$/);
        const row = await store.findKeyByHash(hashKey(key!));
        assert.equal(row?.admin, true);
        assert.equal(row?.plan, '');
        assert.equal(row?.label, 'console');
      });

      it('with --plan too › a usage error saying an admin key has no plan', async () => {
        await assert.rejects(run(['create'], { admin: true, plan: 'pro' }), (error: unknown) => error instanceof UsageError && /--plan PLAN or --admin, not both/.test(error.message));
      });

      it('with neither --plan nor --admin › a usage error naming both', async () => {
        await assert.rejects(run(['create'], {}), (error: unknown) => error instanceof UsageError && /--plan PLAN \(or --admin\) is required/.test(error.message));
      });
    });

    describe('keys list', () => {
      it('shows (admin) in the plan column of an admin key, and the plan of a plan key', async () => {
        await run(['create'], { plan: 'pro', label: 'a customer' });
        const lines = await run(['list'], {});
        // Both were created at the same instant, so listed in the order of their random ids.
        const columns = lines.map((line) => line.split('\t')).sort((a, b) => a[4]!.localeCompare(b[4]!));
        assert.deepEqual(columns.map(([, plan, state, , label]) => [plan, state, label]), [['pro', 'active', 'a customer'], ['(admin)', 'active', 'console']]);
      });
    });
  });
}
