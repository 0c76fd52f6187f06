// `threatgate export COLLECTION` through the built CLI: the bytes of GET /export/..., and clear errors with exit 1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { writeFileAtomically } from '../../src/cli/export-command.js';
import { CLI } from '../helpers/cli-process.js';
import { storeBackends } from '../helpers/store-backends.js';
import { basicAuth } from '../taxii/taxii-request.js';
import { ALL_COLLECTION, createExportContext, EXTRA_COLLECTIONS, TEST_COLLECTION, type ExportContext } from './export-context.js';

describe('threatgate export (the built CLI)', () => {
  const backend = storeBackends()[0]!;
  let ctx: ExportContext;
  let dir: string;
  let configFile: string;
  before(async () => {
    ctx = await createExportContext(backend);
    dir = mkdtempSync(join(tmpdir(), 'threatgate-export-'));
    configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify(EXTRA_COLLECTIONS));
  });
  after(async () => {
    await ctx?.store.close();
    await backend.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'export', ...args, '--db', ctx.location, '--config', configFile], { encoding: 'buffer' });
  const served = async (path: string) => (await request(ctx.app).get(path).set('Authorization', basicAuth(ctx.keys.pro!)).set('Accept-Encoding', 'identity').expect(200)).text;

  for (const [args, path] of [
    [[ALL_COLLECTION], `/export/${ALL_COLLECTION}.txt`],
    [['indicators', '--format', 'csv'], `/export/${ALL_COLLECTION}.csv`],
    [['test', '--type', 'ip,domain'], `/export/${TEST_COLLECTION}.txt?type=ip,domain`],
    [[ALL_COLLECTION, '--type', 'url', '--style', 'panos'], `/export/${ALL_COLLECTION}.txt?type=url&style=panos`],
    [[ALL_COLLECTION, '--type', 'url', '--format', 'csv'], `/export/${ALL_COLLECTION}.csv?type=url`],
  ] as const) {
    it(`export ${args.join(' ')} › writes to stdout the bytes GET ${path} sends`, async () => {
      const result = run(...args);
      assert.equal(result.status, 0, result.stderr.toString());
      assert.equal(result.stdout.toString('utf8'), await served(path));
      assert.ok(result.stdout.length > 0);
    });
  }

  it('export --format csv --output FILE › writes the file, and nothing else, with nothing on stdout', async () => {
    const out = join(dir, 'list.csv');
    writeFileSync(out, 'the previous list\n');
    const result = run(ALL_COLLECTION, '--format', 'csv', '--output', out);
    assert.equal(result.status, 0, result.stderr.toString());
    assert.equal(result.stdout.length, 0);
    assert.equal(readFileSync(out, 'utf8'), await served(`/export/${ALL_COLLECTION}.csv`));
    assert.deepEqual(readdirSync(dir).sort(), ['config.json', 'list.csv']);
  });

  for (const [what, args, message] of [
    ['an unknown collection', ['nope'], /^threatgate: export: no collection "nope"; configured: 981c4916-ebb2-4567-aece-54ae970c4230 \(test\), /],
    ['no collection', [], /^threatgate: export: give a COLLECTION/],
    ['an unknown type', [ALL_COLLECTION, '--type', 'ip,colour'], /^threatgate: --type: "colour" is not an indicator type/],
    ['an unknown format', [ALL_COLLECTION, '--format', 'xml'], /^threatgate: --format: "xml" is not a format; use txt or csv/],
    ['an unknown style', [ALL_COLLECTION, '--style', 'fortigate'], /^threatgate: --style: "fortigate" is not a style/],
  ] as const) {
    it(`export with ${what} › exits 1 with one line naming it, and writes no file`, () => {
      const out = join(dir, `failed-${what.replace(/ /g, '-')}.txt`);
      const result = run(...args, '--output', out);
      assert.equal(result.status, 1);
      assert.match(result.stderr.toString(), message);
      assert.equal(result.stderr.toString().trim().split('\n').length, 1);
      assert.equal(existsSync(out), false);
    });
  }

  for (const [what, target, code] of [
    ['a directory that does not exist', () => join(dir, 'missing', 'list.txt'), 'ENOENT'],
    ['a path that is a directory', () => dir, 'EISDIR'],
  ] as const) {
    it(`export --output into ${what} › exits 1 with one line naming the path and the reason`, () => {
      const result = run(ALL_COLLECTION, '--output', target());
      assert.equal(result.status, 1);
      assert.equal(result.stderr.toString().trim(), `threatgate: --output: cannot write ${target()} (${code})`);
      assert.equal(result.stdout.length, 0);
      assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
    });
  }

  it('writeFileAtomically › a failure part-way leaves the earlier file and no temporary one', async () => {
    const out = join(dir, 'kept.txt');
    writeFileSync(out, 'the previous list\n');
    async function* failing() {
      yield 'half of a list\n';
      throw new Error('the store went away');
    }
    await assert.rejects(writeFileAtomically(failing(), out), /the store went away/);
    assert.equal(readFileSync(out, 'utf8'), 'the previous list\n');
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('kept')), ['kept.txt']);
  });
});
