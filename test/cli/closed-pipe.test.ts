// The built command line when the reader of its output goes away early (`threatgate keys list | head -1`).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKey } from '../../src/cli/keys-command.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';
import { CLI } from '../helpers/cli-process.js';
import { buildFixture, toNdjson } from '../helpers/fixture.js';
import { fixedClock } from '../helpers/test-app.js';

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * Runs the CLI with the pipes named in `closed` closed by the reader before the CLI writes to them
 * (the read ends are closed at once; the CLI takes far longer to start than that).
 */
function runWithClosed(args: string[], closed: readonly ('stdout' | 'stderr')[]): Promise<Outcome> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
  let stderr = '';
  for (const name of closed) child[name].destroy();
  if (!closed.includes('stdout')) child.stdout.resume();
  if (!closed.includes('stderr')) child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stderr })));
}

function assertQuietExit(outcome: Outcome): void {
  assert.deepEqual([outcome.code, outcome.signal], [0, null], outcome.stderr);
  assert.doesNotMatch(outcome.stderr, /EPIPE|^\s+at /m);
}

describe('the threatgate command line (built) › when its output pipe closes early', () => {
  let dir: string;
  let db: string;
  let fixtureFile: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-pipe-'));
    db = join(dir, 'keys.sqlite');
    const config = loadConfig();
    const store = await openStore(db, { collections: config.collections });
    for (let i = 0; i < 20; i++) await createKey(store, config, fixedClock, 'pro', `key ${i}`);
    await store.close();
    fixtureFile = join(dir, 'fixture.ndjson');
    writeFileSync(fixtureFile, toNdjson(buildFixture()));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('keys list › with stdout closed (`| head -0`)', () => {
    it('exits 0 without a stack trace', async () => {
      assertQuietExit(await runWithClosed(['keys', 'list', '--db', db], ['stdout']));
    });
  });

  describe('keys list › with stdout and stderr closed (`2>&1 | head -0`)', () => {
    it('exits 0', async () => {
      const { code, signal } = await runWithClosed(['keys', 'list', '--db', db], ['stdout', 'stderr']);
      assert.deepEqual([code, signal], [0, null]);
    });
  });

  describe('demo › with stdout closed', () => {
    it('exits 0 without a stack trace, after its stderr line', async () => {
      const outcome = await runWithClosed(['demo', '--db', join(dir, 'demo.sqlite')], ['stdout']);
      assertQuietExit(outcome);
      assert.match(outcome.stderr, /^demo: loaded /m);
    });
  });

  describe('import › with stdout closed', () => {
    it('exits 0 without a stack trace', async () => {
      assertQuietExit(await runWithClosed(['import', fixtureFile, '--db', join(dir, 'import.sqlite')], ['stdout']));
    });
  });

  describe('--help › with stdout closed', () => {
    it('exits 0 without a stack trace', async () => {
      assertQuietExit(await runWithClosed(['--help'], ['stdout']));
    });
  });
});
