// `serve --workers N` (built CLI): one port served by several processes over one SQLite file, one budget, restarts, SIGTERM.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { getOnNewConnection as get, startCli, type CliProcess } from '../helpers/cli-process.js';
import { seedDatabase } from '../helpers/gateway-instances.js';
import { storeBackends, type Backend } from '../helpers/store-backends.js';

/** The anonymous day budget is small so that its end is reachable; keyed plans stay out of the way. */
const PLANS = {
  plans: {
    anonymous: { perSecond: 1000, perDay: 4, perMonth: 1000 },
    pro: { perSecond: 1000, perDay: 100000, perMonth: 1000000 },
  },
};

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('threatgate serve --workers 2 (built)', () => {
  let dir: string;
  let backend: Backend;
  let keys: Record<string, string>;
  let server: CliProcess;
  let base: string;
  let taken: Server;
  let portTaken: CliProcess;
  let badWorkers: CliProcess;

  const servedBy = (path: string) =>
    new Set(
      server
        .logs()
        .filter((e) => e.msg === 'request' && typeof e.url === 'string' && e.url.startsWith(path))
        .map((e) => e.pid),
    );

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-workers-'));
    backend = storeBackends()[0]!;
    const seeded = await seedDatabase(backend, loadConfig({ overrides: PLANS }));
    keys = seeded.keys;
    const configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(PLANS));
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as { port: number }).port;
    // The three start together: process start-up dominates this file's run time.
    server = startCli(['serve', '--workers', '2', '--port', '0', '--db', seeded.location, '--config', configFile]);
    portTaken = startCli(['serve', '--workers', '2', '--port', String(takenPort), '--db', seeded.location]);
    badWorkers = startCli(['serve', '--workers', '0', '--db', seeded.location]);
    base = await server.ready;
  });

  after(async () => {
    for (const cli of [server, portTaken, badWorkers]) if (cli && cli.child.exitCode === null) cli.child.kill('SIGKILL');
    taken?.close();
    await backend.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints one ready line, from the primary, once both workers listen', () => {
    assert.deepEqual(server.stdout().trim().split('\n'), [`listening on ${base}`]);
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(base.endsWith(':0'), true);
  });

  it('serves requests from more than one process, none of them the primary', async () => {
    for (let i = 0; i < 10; i++) assert.equal((await get(base, `/api/threat.php?tid=1&key=${keys.pro}`)).status, 200);
    const pids = servedBy('/api/threat.php?tid=1&key=');
    assert.ok(pids.size >= 2, `served by ${[...pids].join(', ')}`);
    assert.equal(pids.has(server.child.pid!), false);
  });

  it('counts one budget per key across the workers: the fifth anonymous request of the day is refused', async () => {
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await get(base, `/api/threat.php?tid=2&n=${i}`));
    assert.deepEqual(
      results.map((r) => [r.status, r.headers['x-requests-remaining-day']]),
      [[200, '3'], [200, '2'], [200, '1'], [200, '0'], [429, '0']],
    );
    assert.ok(servedBy('/api/threat.php?tid=2').size >= 2, 'the counted requests were spread over both workers');
  });

  it('replaces a worker that dies, and keeps serving', async () => {
    const [victim] = servedBy('/api/threat.php?tid=1');
    process.kill(victim!, 'SIGKILL');
    // A new worker starts as slowly as the machine is busy (other test files run beside this one): a minute, not the default 15 s.
    await server.waitForLog((e) => e.msg === 'worker exited unexpectedly; starting a new one' && e.worker === victim, 60_000);
    const replacement = await server.waitForLog((e) => e.msg === 'worker listening', 60_000);
    assert.notEqual(replacement.worker, victim);
    for (let i = 0; i < 6; i++) assert.equal((await get(base, `/api/feed.php?fid=1&key=${keys.pro}`)).status, 200);
    assert.ok(servedBy('/api/feed.php').has(replacement.worker as number), 'the new worker serves too');
  });

  it('on SIGTERM stops every worker and exits 0', async () => {
    const workers = [...servedBy('/api/feed.php')];
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0, server.stderr());
    assert.equal(server.logs().filter((e) => e.msg === 'stopped').length, 2);
    for (const pid of workers) assert.equal(isAlive(pid), false, `worker ${pid} is gone`);
  });

  it('with a port already in use, stops with one line naming --port and exit code 1', async () => {
    assert.equal(await portTaken.exited, 1);
    const lines = portTaken.stderr().split('\n').filter((line) => line.startsWith('threatgate:'));
    assert.equal(lines.length, 1, portTaken.stderr());
    assert.match(lines[0]!, /^threatgate: --port: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)$/);
  });

  it('with --workers 0, stops with one line naming --workers and exit code 1', async () => {
    assert.equal(await badWorkers.exited, 1);
    assert.equal(badWorkers.stderr().trim(), 'threatgate: --workers: "0" is not a whole number from 1 to 999');
  });
});
