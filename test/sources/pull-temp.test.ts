// The temporary folders of pulls (docs/security.md): those of a process that died mid-pull are removed at the next start;
// those of running processes are not.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makePullDir, removeStalePullDirs } from '../../src/sources/pull-temp.js';

describe('removeStalePullDirs', () => {
  const directory = mkdtempSync(join(tmpdir(), 'threatgate-temp-test-'));
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('removes the folders of a process that no longer runs, body and all, and keeps those of running processes', async () => {
    // A pid that was alive a moment ago and is not now: a child that has exited.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const folders = {
      dead: `threatgate-pull-${dead}-aB3dE9`,
      mine: `threatgate-pull-${process.pid}-Zz0Yy1`,
      parent: `threatgate-pull-${process.ppid}-Qq1Ww2`,
      older: 'threatgate-pull-Xx9Vv8',
      other: 'unrelated-folder',
    };
    for (const name of Object.values(folders)) {
      mkdirSync(join(directory, name));
      writeFileSync(join(directory, name, 'body'), '198.18.0.1\n'.repeat(1000));
    }
    assert.equal(await removeStalePullDirs(directory), 1);
    assert.deepEqual(readdirSync(directory).sort(), [folders.mine, folders.parent, folders.older, folders.other].sort());
  });

  it('names the folders it makes after this process, so that a later start can tell whose they are', async () => {
    const made = await makePullDir();
    try {
      assert.match(made, new RegExp(`threatgate-pull-${process.pid}-[A-Za-z0-9]{6}$`));
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });
});
