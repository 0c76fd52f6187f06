// `serve` pulls due source feeds in the background (built CLI): in the single process, only in the
// primary with --workers, never with --no-pull; while it pulls, requests are answered.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, startCli, type CliProcess } from '../helpers/cli-process.js';

describe('serve pulls source feeds (built)', () => {
  let dir: string;
  let config: string;
  let feeds: Server;
  let requests = 0;
  let db = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-serve-pulls-'));
    config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ pull: { checkSeconds: 1 } }));
    feeds = createServer((_req, res) => {
      requests++;
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('192.0.2.10\n198.51.100.20\nmalware.example.com\n');
    });
    await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => feeds.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new store with one feed due at once; returns its --db. */
  function storeWithSource(): string {
    const file = join(dir, `store-${++db}.sqlite`);
    const source = JSON.stringify({ url: `http://127.0.0.1:${(feeds.address() as AddressInfo).port}/list.txt`, format: 'text', schedule: 'hourly' });
    const added = spawnSync(process.execPath, [CLI, '--db', file, 'feeds', 'add', '--feed', 'Hourly', '--organization', 'Test', '--source', source], { encoding: 'utf8' });
    assert.equal(added.status, 0, added.stderr);
    assert.equal(added.stdout, '1\n');
    return file;
  }

  async function stop(server: CliProcess): Promise<void> {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }

  it('pulls a due feed once, in the one process, and serves what it pulled', async () => {
    const file = storeWithSource();
    const before = requests;
    const server = startCli(['--db', file, '--config', config, 'serve', '--port', '0', '--workers', '1']);
    try {
      const base = await server.ready;
      const pulled = await server.waitForLog((e) => e.msg === 'pull');
      assert.equal(pulled.outcome, 'ok');
      assert.equal(pulled.values, 3);
      assert.equal(pulled.newIndicators, 3);
      assert.equal(pulled.pid, server.child.pid);
      assert.equal(requests - before, 1);
      const response = await fetch(`${base}/api/feed.php?fid=1`);
      assert.equal(response.status, 200);
      const feed = (await response.json()) as { stamp_pulled: string | null; indicators: Record<string, number> };
      assert.notEqual(feed.stamp_pulled, null);
      // Checked every second, the feed is not due again for an hour.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(requests - before, 1);
    } finally {
      await stop(server);
    }
  });

  it('with --workers 2, pulls in the primary only', async () => {
    const file = storeWithSource();
    const before = requests;
    const server = startCli(['--db', file, '--config', config, 'serve', '--port', '0', '--workers', '2']);
    try {
      await server.ready;
      const pulled = await server.waitForLog((e) => e.msg === 'pull');
      assert.equal(pulled.pid, server.child.pid);
      assert.equal(requests - before, 1);
      assert.equal(server.logs().filter((e) => e.msg === 'pulling source feeds in the background').length, 1);
    } finally {
      await stop(server);
    }
  });

  it('with --no-pull, leaves a due feed alone', async () => {
    const file = storeWithSource();
    const before = requests;
    const server = startCli(['--db', file, '--config', config, 'serve', '--port', '0', '--workers', '1', '--no-pull']);
    try {
      await server.ready;
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(requests - before, 0);
      assert.equal(server.logs().some((e) => e.msg === 'pulling source feeds in the background' || e.msg === 'pull'), false);
    } finally {
      await stop(server);
    }
  });
});
