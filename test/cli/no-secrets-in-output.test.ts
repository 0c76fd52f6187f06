// The built command line never prints a key, whole or cut short, nor its hash, except where it must (docs/interface.md section 7).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, startCli } from '../helpers/cli-process.js';
import { buildFixture, toNdjson } from '../helpers/fixture.js';

/** Written out, not imported from src: the stored form of a key is SHA-256, hex (docs/interface.md section 7). */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** What would give a key away: the key, its hash in hex or base64, or the first 16 characters of either. */
function tellTales(key: string): string[] {
  const hash = sha256(key);
  const forms = [key, hash.toString('hex'), hash.toString('base64'), hash.toString('base64url')];
  return [...forms, ...forms.map((form) => form.slice(0, 16))];
}

function assertNoSecret(output: string, keys: string[], what: string): void {
  for (const key of keys) {
    for (const tale of tellTales(key)) assert.equal(output.includes(tale), false, `${what} shows "${tale}" of a key:\n${output}`);
  }
}

function run(args: string[]) {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'debug' } });
  return { status: res.status, output: `${res.stdout}${res.stderr}`, stdout: res.stdout };
}

describe('the threatgate command line (built) › what it prints', () => {
  let dir: string;
  let db: string;
  let keys: string[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-secrets-'));
    db = join(dir, 'secrets.sqlite');
    // keys refuses a store that does not exist (docs/interface.md section 10, "Every command"): an import creates it, as it would for a user.
    writeFileSync(join(dir, 'empty.json'), JSON.stringify({ threats: [], feeds: [], indicators: [], links: [] }));
    const createdStore = run(['import', join(dir, 'empty.json'), '--db', db]);
    assert.equal(createdStore.status, 0, createdStore.output);
    keys = ['pro', 'feed', 'free'].map((plan) => {
      const created = run(['keys', 'create', '--plan', plan, '--label', `label ${plan}`, '--db', db]);
      assert.equal(created.status, 0, created.output);
      return created.stdout.trim();
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('keys create', () => {
    it('prints the new key alone on stdout, by design', () => {
      const created = run(['keys', 'create', '--plan', 'pro', '--db', db]);
      assert.match(created.stdout, /^[A-Za-z0-9_-]{43}\n$/);
      keys.push(created.stdout.trim());
    });
  });

  describe('keys list › after keys create', () => {
    it('shows each key by id, plan, state and label, and neither the key nor its hash', () => {
      const listed = run(['keys', 'list', '--db', db]);
      assert.equal(listed.status, 0, listed.output);
      assert.equal(listed.stdout.trim().split('\n').length, keys.length);
      assert.match(listed.stdout, /^k_[0-9a-f]{12}\tfeed\tactive\tcreated [^\t]+\tlabel feed$/m);
      assertNoSecret(listed.output, keys, 'keys list');
    });
  });

  describe('keys revoke › given the key itself', () => {
    it('names the revoked key by id only, and keys list then shows neither key nor hash', () => {
      const revoked = run(['keys', 'revoke', keys[1]!, '--db', db]);
      assert.equal(revoked.status, 0, revoked.output);
      assert.match(revoked.stdout, /^revoked k_[0-9a-f]{12}\n$/);
      assertNoSecret(revoked.output, keys, 'keys revoke');
      const again = run(['keys', 'revoke', keys[1]!, '--db', db]);
      assert.equal(again.status, 1);
      assertNoSecret(again.output, keys, 'keys revoke of a revoked key');
      assertNoSecret(run(['keys', 'list', '--db', db]).output, keys, 'keys list after revoke');
    });
  });

  describe('import', () => {
    it('reports what it read, and no key', () => {
      const file = join(dir, 'fixture.ndjson');
      writeFileSync(file, toNdjson(buildFixture()));
      const imported = run(['import', file, '--db', db]);
      assert.equal(imported.status, 0, imported.output);
      assertNoSecret(imported.output, keys, 'import');
    });
  });

  describe('demo', () => {
    it('prints one key per plan on stdout, by design, and none of them (nor another key) on stderr', () => {
      const demoDb = join(dir, 'demo.sqlite');
      const demo = spawnSync(process.execPath, [CLI, 'demo', '--db', demoDb], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'debug' } });
      assert.equal(demo.status, 0, demo.stderr);
      const demoKeys = demo.stdout.trim().split('\n').map((line) => /^\w+ +([A-Za-z0-9_-]{43})$/.exec(line)?.[1]);
      assert.ok(demoKeys.length >= 5 && demoKeys.every((key) => key !== undefined), demo.stdout);
      assertNoSecret(demo.stderr, [...keys, ...(demoKeys as string[])], 'demo (stderr)');
      assertNoSecret(run(['keys', 'list', '--db', demoDb]).output, demoKeys as string[], 'keys list after demo');
    });
  });

  describe('serve › at start-up, serving requests with keys, and stopping', () => {
    it('logs no key, no hash and no Redis password', async () => {
      // Redis is unreachable: serve starts without it, and says so naming the host only.
      const server = startCli(['serve', '--port', '0', '--workers', '1', '--db', db], { LOG_LEVEL: 'debug', REDIS_URL: 'redis://tg:redis-password-1@127.0.0.1:1' });
      const url = await server.ready;
      await fetch(`${url}/api/threat.php?tid=1&key=${keys[0]}`);
      await fetch(`${url}/taxii2/`, { headers: { Authorization: `Basic ${Buffer.from(`taxii2:${keys[2]}`).toString('base64')}`, Accept: 'application/taxii+json;version=2.1' } });
      await server.waitForLog((entry) => entry.msg === 'request' && String(entry.url).startsWith('/taxii2/'));
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      const output = `${server.stdout()}${server.stderr()}`;
      assert.match(output, /"url":"\/api\/threat\.php\?tid=1&key=\[redacted\]"/);
      assert.match(output, /redis:\/\/127\.0\.0\.1:1/);
      assert.equal(output.includes('redis-password-1'), false, output);
      assertNoSecret(output, keys, 'serve');
    });
  });
});
