// Only serve, import, demo and feeds add create an SQLite store (docs/interface.md section 10, "Every command"): every other command, run where
// the file is not, says where it looked and how to point elsewhere, exits 1, and leaves nothing behind.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { CLI, startCli } from '../helpers/cli-process.js';
import { DEFAULT_COLLECTIONS } from '../helpers/store-backends.js';
import { dbOf, openTestStore } from '../helpers/store-db.js';

const INDICATORS_COLLECTION = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';

/** The built CLI in `cwd`, with nothing in the environment pointing at a store or a config. */
function run(cwd: string, args: string[], env: Record<string, string> = {}) {
  const { DATABASE_URL: _db, THREATGATE_CONFIG: _config, ...base } = process.env;
  const res = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...base, LOG_LEVEL: 'warn', ...env } });
  return { status: res.status, stdout: res.stdout, stderr: res.stderr };
}

const refusal = (setting: string, file: string) =>
  `threatgate: ${setting}: no store at ${file} (the file does not exist); point --db or DATABASE_URL at the store to use, ` +
  'or create one with serve, import, demo or feeds add\n';

/** Every command that only reads or changes a store, with arguments it would accept. */
const NON_CREATING: string[][] = [
  ['keys', 'list'],
  ['keys', 'create', '--plan', 'pro'],
  ['keys', 'revoke', 'k_0123456789ab'],
  ['feeds', 'list'],
  ['feeds', 'pull', '--all'],
  ['feeds', 'pull', '1'],
  ['feeds', 'remove', '1'],
  ['threats', 'retire', '1'],
  ['threats', 'reactivate', '1'],
  ['lifecycle'],
  ['export', INDICATORS_COLLECTION],
];

describe('the threatgate command line (built) › in a folder without a store', () => {
  let root: string;
  /** A new, empty folder for each case. */
  const folder = () => mkdtempSync(join(root, 'cwd-'));
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'threatgate-must-exist-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  for (const args of NON_CREATING) {
    it(`${args.join(' ')} › refuses with one line naming ./data/threatgate.sqlite, exit 1, and creates nothing`, () => {
      const cwd = folder();
      const res = run(cwd, args);
      assert.equal(res.status, 1, res.stdout);
      assert.equal(res.stderr, refusal('--db', join(cwd, 'data', 'threatgate.sqlite')));
      assert.equal(res.stdout, '');
      assert.deepEqual(readdirSync(cwd), []);
    });
  }

  it('keys list --db FILE › names the file given, resolved', () => {
    const cwd = folder();
    const res = run(cwd, ['keys', 'list', '--db', 'elsewhere/store.sqlite']);
    assert.equal(res.status, 1);
    assert.equal(res.stderr, refusal('--db', join(cwd, 'elsewhere', 'store.sqlite')));
    assert.deepEqual(readdirSync(cwd), []);
  });

  it('keys list with DATABASE_URL=sqlite:FILE › names the variable and the file', () => {
    const cwd = folder();
    const res = run(cwd, ['keys', 'list'], { DATABASE_URL: 'sqlite:other.sqlite' });
    assert.equal(res.status, 1);
    assert.equal(res.stderr, refusal('DATABASE_URL', join(cwd, 'other.sqlite')));
    assert.deepEqual(readdirSync(cwd), []);
  });

  it('a mistyped command › is named as unknown, and creates nothing', () => {
    const cwd = folder();
    const res = run(cwd, ['kyes', 'list']);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^threatgate: unknown command "kyes"$/m);
    assert.deepEqual(readdirSync(cwd), []);
  });

  describe('the commands that create it', () => {
    const created = (cwd: string) => existsSync(join(cwd, 'data', 'threatgate.sqlite'));

    it('import FILE › creates ./data/threatgate.sqlite, which keys list then reads', () => {
      const cwd = folder();
      writeFileSync(join(cwd, 'empty.json'), JSON.stringify({ threats: [], feeds: [], indicators: [], links: [] }));
      const res = run(cwd, ['import', 'empty.json']);
      assert.equal(res.status, 0, res.stderr);
      assert.ok(created(cwd));
      const listed = run(cwd, ['keys', 'list']);
      assert.equal(listed.status, 0, listed.stderr);
    });

    it('feeds add › creates it', () => {
      const cwd = folder();
      mkdirSync(join(cwd, 'feeds'));
      writeFileSync(join(cwd, 'feeds', 'list.txt'), '192.0.2.1\n');
      const source = { url: pathToFileURL(join(cwd, 'feeds', 'list.txt')).href, format: 'text' };
      const res = run(cwd, ['feeds', 'add', '--feed', 'Local', '--organization', 'Here', '--source', JSON.stringify(source)]);
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, '1\n');
      assert.ok(created(cwd));
    });

    it('demo › creates it', () => {
      const cwd = folder();
      const res = run(cwd, ['demo']);
      assert.equal(res.status, 0, res.stderr);
      assert.ok(created(cwd));
    });

    it('serve › creates it and serves', async () => {
      const cwd = folder();
      const server = startCli(['serve', '--port', '0', '--workers', '1', '--no-pull', '--db', join(cwd, 'data', 'threatgate.sqlite')]);
      try {
        await server.ready;
        assert.ok(created(cwd));
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    });
  });

  const postgres = process.env.TEST_DATABASE_URL;
  it('a postgres:// store › is not refused: keys list works on a schema no one made yet', { skip: postgres ? false : 'TEST_DATABASE_URL is not set' }, async () => {
    const schema = `tg_test_must_exist_${randomBytes(4).toString('hex')}`;
    const url = new URL(postgres!);
    url.searchParams.set('schema', schema);
    try {
      const res = run(folder(), ['keys', 'list', '--db', url.toString()]);
      assert.equal(res.status, 0, res.stderr);
    } finally {
      const store = await openTestStore(postgres!, { collections: DEFAULT_COLLECTIONS });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(dbOf(store));
      await store.close();
    }
  });
});
