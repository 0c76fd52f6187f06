// The temporary folders a pull keeps its bodies and batches in, named after the process that made
// them, so that a later start can remove those of a process that died mid-pull (docs/security.md).
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'threatgate-pull-';

/** A new folder `threatgate-pull-PID-XXXXXX` in the system's temporary directory. */
export function makePullDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the pull folders of processes that no longer run (a crash, a kill -9 mid-pull): each can
 * hold up to a source's `maxMegabytes`. Folders of running processes, this one's included, are
 * left alone, as are folders of the older unnamed form (`threatgate-pull-XXXXXX`), which cannot
 * be told apart from a running older process's. Returns how many were removed.
 */
export async function removeStalePullDirs(directory = tmpdir()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(directory).catch(() => [] as string[])) {
    const pid = /^threatgate-pull-(\d+)-[A-Za-z0-9]{6}$/.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isRunning(Number(pid))) continue;
    await rm(join(directory, name), { recursive: true, force: true }).then(() => removed++, () => undefined);
  }
  return removed;
}
