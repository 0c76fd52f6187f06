// The built command line's usage text: every command and serve option the README documents is listed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { CLI } from '../helpers/cli-process.js';

function run(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

describe('threatgate --help', () => {
  it('prints the usage on stdout and exits 0', () => {
    const res = run(['--help']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /^Usage: threatgate <command> \[options\]/);
  });

  it('lists every command, and each option of serve', () => {
    const { stdout } = run(['--help']);
    for (const command of ['serve', 'import FILE', 'keys create --plan PLAN', 'keys list', 'keys revoke KEY_OR_ID', 'feeds add --feed NAME --organization ORG --source FILE_OR_JSON', 'feeds list', 'feeds remove FID', 'demo']) {
      assert.ok(stdout.includes(`  ${command}`), `missing command: ${command}`);
    }
    assert.match(stdout, /serve \[--port N\] \[--host H\] \[--workers N\] \[--demo-if-empty\]/);
    assert.match(stdout, /--demo-if-empty: when the store is empty, first load the demo\s+data set/);
  });

  it('without a command › prints the usage on stderr and exits 1', () => {
    const res = run([]);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^Usage: threatgate/);
  });
});
