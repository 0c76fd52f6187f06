// Smoke test of the built command line: import, keys, serve on a spare port, SIGTERM.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { CLI, startCli } from '../helpers/cli-process.js';
import { buildFixture, toNdjson } from '../helpers/fixture.js';


function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'warn', ...env } });
}

describe('the threatgate command line (built)', () => {
  let dir: string;
  let db: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-cli-'));
    db = join(dir, 'cli.sqlite');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports an NDJSON file and reports what it read', () => {
    const file = join(dir, 'fixture.ndjson');
    writeFileSync(file, toNdjson(buildFixture()));
    const res = run(['import', file, '--db', db]);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /read 3 threats, 3 feeds, 30 indicators, 43 links/);
  });

  it('stops with exit code 1 and one line naming the position of a bad record', () => {
    const file = join(dir, 'bad.ndjson');
    writeFileSync(file, '{"record":"threat","tid":1,"threat":"X","category":"malware","risk":"severe"}\n');
    const res = run(['import', file, '--db', db]);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^threatgate: line 1: threat risk: /);
  });

  it('creates a key, printing only the key, and lists it without the secret', () => {
    const created = run(['keys', 'create', '--plan', 'pro', '--label', 'smoke', '--db', db]);
    assert.equal(created.status, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^[A-Za-z0-9_-]{43}$/);
    const listed = run(['keys', 'list', '--db', db]);
    assert.match(listed.stdout, /^k_[0-9a-f]{12}\tpro\tactive\tcreated .*\tsmoke$/m);
    assert.equal(listed.stdout.includes(key), false);
  });

  it('refuses an unknown plan and a bad config with a clear line and exit code 1', () => {
    const plan = run(['keys', 'create', '--plan', 'gold', '--db', db]);
    assert.equal(plan.status, 1);
    assert.match(plan.stderr, /--plan: unknown plan "gold"/);
    const configFile = join(dir, 'bad-config.json');
    writeFileSync(configFile, '{"linksPageSize": -5}');
    const config = run(['keys', 'list', '--db', db], { THREATGATE_CONFIG: configFile });
    assert.equal(config.status, 1);
    assert.match(config.stderr, /^threatgate: THREATGATE_CONFIG .*: linksPageSize /);
    const port = run(['serve', '--db', db], { PORT: 'eighty' });
    assert.match(port.stderr, /PORT: "eighty" is not a port number/);
  });

  it('serves the lookup API on a spare port, then exits 0 on SIGTERM', async () => {
    const key = run(['keys', 'create', '--plan', 'business', '--db', db]).stdout.trim();
    // The secrets of TAXII next tokens and console sessions, made by serve before its first request (a
    // serving process then only reads them: test/http/reads-during-writes.test.ts).
    const secrets = () => {
      const read = new BetterSqlite3(db, { readonly: true });
      try {
        return read.prepare("select key from meta where key in ('taxii_next_secret', 'console_secret') order by key").all();
      } finally {
        read.close();
      }
    };
    assert.deepEqual(secrets(), []);
    const server = startCli(['serve', '--port', '0', '--db', db], { LOG_LEVEL: 'warn' });
    const url = await server.ready;
    assert.deepEqual(secrets(), [{ key: 'console_secret' }, { key: 'taxii_next_secret' }]);
    const res = await fetch(`${url}/api/feed.php?fid=1&get=links&key=${key}`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { page_current: number; results: unknown[] };
    assert.equal(body.results.length, 23);
    const threat = await fetch(`${url}/api/threat.php?threat=Zbot`);
    assert.equal(((await threat.json()) as { tid: number }).tid, 1);
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });
});
