// `threatgate lifecycle` and `threatgate threats retire|reactivate TID` (docs/interface.md section 3): their lines and their errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { lifecycleCommand, threatsCommand } from '../../src/cli/lifecycle-command.js';
import { UsageError } from '../../src/errors.js';
import type { Clock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { CLI } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';

const clock: Clock = { now: () => Date.parse('2026-06-01T12:00:00Z') };
const config = loadConfig({});

for (const backend of storeBackends()) {
  describe(`lifecycle commands (${backend.name})`, () => {
    let store: Store;
    let location: string;
    before(async () => {
      ({ store, location } = await backend.create());
      await importDataset(
        store,
        {
          threats: [
            { tid: 1, threat: 'Quiet\tsince spring', category: 'malware', risk: 'high', stamp_added: '2026-01-01 00:00:00', stamp_seen: '2026-02-01 00:00:00' },
            { tid: 2, threat: 'Busy', category: 'malware', risk: 'high', stamp_added: '2026-01-01 00:00:00', stamp_seen: '2026-05-30 00:00:00' },
          ],
          feeds: [],
          indicators: [],
          links: [],
        },
        clock,
      );
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    const run = async (command: typeof lifecycleCommand, args: string[]) => {
      const lines: string[] = [];
      await command(args, { store, config, clock, out: (line) => lines.push(line) });
      return lines;
    };

    it('lifecycle prints each threat it retired, then the counts; a second run retires nothing', async () => {
      assert.deepEqual(await run(lifecycleCommand, []), ['retired threat 1 Quiet since spring', '1 threats retired, 0 indicators aged out']);
      assert.deepEqual(await run(lifecycleCommand, []), ['0 threats retired, 0 indicators aged out']);
      await assert.rejects(run(lifecycleCommand, ['now']), (e: unknown) => e instanceof UsageError && /lifecycle: unexpected argument "now"/.test(e.message));
    });

    it('threats retire and reactivate print what they did, or that nothing needed doing', async () => {
      assert.deepEqual(await run(threatsCommand, ['retire', '2']), ['retired threat 2 Busy']);
      assert.deepEqual(await run(threatsCommand, ['retire', '2']), ['threat 2 Busy was already retired']);
      assert.deepEqual(await run(threatsCommand, ['reactivate', '2']), ['reactivated threat 2 Busy']);
      assert.deepEqual(await run(threatsCommand, ['reactivate', '2']), ['threat 2 Busy was already active']);
    });

    it('refuses an unknown, malformed or missing tid, and an unknown action, by name', async () => {
      const cases: [string[], RegExp, new (...args: never[]) => Error][] = [
        [['retire', '77'], /^threats retire: no threat has tid 77$/, ConfigError],
        [['retire', 'abc'], /^threats retire: give one TID, a positive whole number, not "abc"$/, UsageError],
        [['reactivate', '0'], /^threats reactivate: give one TID, a positive whole number, not "0"$/, UsageError],
        [['retire'], /^threats retire: give one TID, a positive whole number$/, UsageError],
        [['retire', '1', '2'], /^threats retire: give one TID$/, UsageError],
        [['delete', '1'], /^threats: expected "retire TID" or "reactivate TID"$/, UsageError],
      ];
      for (const [args, message, kind] of cases) {
        await assert.rejects(run(threatsCommand, args), (e: unknown) => e instanceof kind && message.test((e as Error).message), args.join(' '));
      }
    });

    it('the built CLI exits 1 with one line for an unknown tid', () => {
      const result = spawnSync(process.execPath, [CLI, '--db', location, 'threats', 'retire', '424242'], { encoding: 'utf8' });
      assert.equal(result.status, 1);
      assert.equal(result.stderr, 'threatgate: threats retire: no threat has tid 424242\n');
      assert.equal(result.stdout, '');
    });
  });
}
