// `threatgate feeds add|list|remove` on the built command line: the fid alone, no secret in any output, errors naming the field.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI } from '../helpers/cli-process.js';

const TOKEN = 'tok-7d41e09b';
const PASSWORD = 'pa55-w0rd-91';
const SOURCE = {
  url: `https://reader:${PASSWORD}@feeds.example.org/drop.txt`,
  format: 'text',
  schedule: 'every 6h',
  headers: { Authorization: 'Bearer ${env:FEED_TOKEN}' },
};

function run(args: string[], env: Record<string, string> = {}) {
  const { FEED_TOKEN: _unset, ...base } = process.env;
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...base, LOG_LEVEL: 'warn', ...env } });
}

describe('threatgate feeds (built)', () => {
  let dir: string;
  let db: string;
  const feeds = (args: string[], env: Record<string, string> = { FEED_TOKEN: TOKEN }) => run(['feeds', ...args, '--db', db], env);
  const add = (source: unknown, env?: Record<string, string>) =>
    feeds(['add', '--feed', 'Example DROP', '--organization', 'Example Intel', '--source', JSON.stringify(source)], env);
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'threatgate-feeds-'));
    db = join(dir, 'feeds.sqlite');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('feeds add', () => {
    it('with inline JSON › prints the new feed\'s fid alone', () => {
      const res = add(SOURCE);
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, '1\n');
    });

    it('with a file › updates the same feed and prints its fid again', () => {
      const file = join(dir, 'source.json');
      writeFileSync(file, JSON.stringify({ ...SOURCE, schedule: 'daily' }));
      const res = feeds(['add', '--feed', 'example drop', '--organization', 'EXAMPLE INTEL', '--source', file]);
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, '1\n');
    });

    const refusals: [string, unknown, RegExp][] = [
      ['an unknown format', { ...SOURCE, format: 'xml' }, /^threatgate: feeds add: source\.format: must be one of text, csv, json/],
      ['an ftp URL', { ...SOURCE, url: 'ftp://feeds.example.org/drop.txt' }, /^threatgate: feeds add: source\.url: scheme "ftp" is not supported/],
      ['a header naming an unset variable', SOURCE, /^threatgate: feeds add: source\.headers\.Authorization: environment variable FEED_TOKEN is not set/],
    ];
    for (const [what, source, message] of refusals) {
      it(`with ${what} › exits 1 with one line naming the field`, () => {
        const res = add(source, what.includes('unset') ? {} : { FEED_TOKEN: TOKEN });
        assert.equal(res.status, 1);
        assert.equal(res.stdout, '');
        assert.match(res.stderr, message);
        assert.equal(res.stderr.includes(PASSWORD), false);
      });
    }

    it('with text that is not JSON › exits 1 without echoing it', () => {
      const res = feeds(['add', '--feed', 'X', '--organization', 'Y', '--source', `{"url": "https://u:${PASSWORD}@x.example"`]);
      assert.equal(res.status, 1);
      assert.match(res.stderr, /^threatgate: --source: the value is not valid JSON/);
      assert.equal(res.stderr.includes(PASSWORD), false);
    });
  });

  describe('feeds list', () => {
    it('prints a header and one tab-separated line per source, with no secret', () => {
      const res = feeds(['list']);
      assert.equal(res.status, 0, res.stderr);
      const lines = res.stdout.trimEnd().split('\n');
      assert.deepEqual(lines, [
        'fid\tfeed\torganization\tformat\tschedule\tstamp_pulled\tindicators\turl\tlast_error\tlease',
        '1\tExample DROP\tExample Intel\ttext\tdaily\t-\t0\thttps://feeds.example.org/drop.txt\t-\t-',
      ]);
      assert.equal(res.stdout.includes(PASSWORD) || res.stdout.includes(TOKEN), false);
    });
  });

  describe('feeds remove', () => {
    it('prints "removed FID", and the feed is no longer listed', () => {
      const res = feeds(['remove', '1']);
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, 'removed 1\n');
      assert.equal(feeds(['list']).stdout.trimEnd().split('\n').length, 1);
    });

    for (const [what, fid, message] of [
      ['a feed without a source', '1', /^threatgate: feeds remove: feed 1 has no source/],
      ['a malformed fid', 'one', /^threatgate: feeds remove: give one FID, a positive whole number, not "one"/],
    ] as const) {
      it(`of ${what} › exits 1 naming it`, () => {
        const res = feeds(['remove', fid]);
        assert.equal(res.status, 1);
        assert.match(res.stderr, message);
      });
    }
  });
});
