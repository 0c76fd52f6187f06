// The question `feeds delete` asks on a terminal (docs/sources.md, "Feed metadata and deleting a feed"): what
// answers delete, on streams the test writes and reads as a terminal would; the command asking it in this
// process; and the real command line on a pseudo-terminal (util-linux script(1), skipped without it).
// feeds-delete.test.ts runs it off a terminal. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { askYesNo, confirmOnTerminal } from '../../src/cli/feed-delete-command.js';
import { feedsCommand } from '../../src/cli/feeds-command.js';
import { createAllowlist } from '../../src/sources/allowlist.js';
import { createLogger } from '../../src/logger.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, SOURCE_LOADER, SOURCE_MAIN, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

/** Asks on fresh streams with `typed` already entered (then the end of input); the answer and what was shown. */
async function ask(typed: string | null): Promise<{ answer: boolean; shown: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  const answer = askYesNo('Delete feed 3 Example? [y/N] ', input, output);
  if (typed !== null) input.write(typed);
  input.end();
  return { answer: await answer, shown };
}

describe('askYesNo', () => {
  for (const typed of ['y\n', 'Y\n', 'yes\n', ' YES \r\n']) {
    it(`${JSON.stringify(typed)} › yes`, async () => assert.equal((await ask(typed)).answer, true));
  }
  for (const typed of ['n\n', '\n', 'no\n', 'yess\n', 'sure\n', null]) {
    it(`${JSON.stringify(typed)} › no`, async () => assert.equal((await ask(typed)).answer, false));
  }
  it('shows the question on the output', async () => assert.equal((await ask('n\n')).shown, 'Delete feed 3 Example? [y/N] '));
});

describe('confirmOnTerminal', () => {
  const stream = (isTTY: boolean) => Object.assign(new PassThrough(), { isTTY });
  it('asks when both input and output are terminals', () => assert.equal(typeof confirmOnTerminal(stream(true), stream(true)), 'function'));
  it('gives no way to ask when either is not one', () => {
    assert.equal(confirmOnTerminal(stream(false), stream(true)), undefined);
    assert.equal(confirmOnTerminal(stream(true), stream(false)), undefined);
  });
});

/** util-linux script(1) runs a command on a pseudo-terminal of its own; other systems' script takes other options. */
const SCRIPT_PTY = /util-linux/.test(spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout ?? '');

const shellQuoted = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * `threatgate ARGS` on a pseudo-terminal (script -q -e -c), typing `typed` once the question shows;
 * its exit code and what the terminal showed.
 */
function onTerminal(args: string[], typed: string): Promise<{ status: number | null; shown: string }> {
  const { DATABASE_URL: _db, THREATGATE_CONFIG: _config, ...base } = process.env;
  const command = [process.execPath, ...SOURCE_LOADER, SOURCE_MAIN, ...args].map(shellQuoted).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: { ...base, LOG_LEVEL: 'warn' } });
  let shown = '';
  let answered = false;
  child.stdout.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    if (!answered && shown.includes('[y/N] ')) {
      answered = true;
      child.stdin.write(typed);
    }
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, shown }));
  });
}

for (const backend of storeBackends()) {
  describe(`feeds delete asking on a terminal (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    /** `feeds delete FID` in this process, answering `typed` to its question. */
    const deleteAnswering = async (typed: string) => {
      const input = new PassThrough();
      const output = new PassThrough();
      let shown = '';
      output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
      input.write(typed);
      const out: string[] = [];
      const err: string[] = [];
      const code = await feedsCommand(['delete', String(fid)], {}, {
        store: world.store, clock: world.clock, env: {}, allowlist: createAllowlist(undefined), logger: createLogger('error', () => undefined),
        out: (line) => out.push(line), err: (line) => err.push(line), confirm: (question) => askYesNo(question, input, output),
      });
      return { code, out, err, shown };
    };

    before(async () => {
      server = await startFeedServer();
      server.publishFixture('feed-delete-overlap.txt');
      world = await openPullWorld(backend);
      fid = await addFeedSource(world.store, { feed: 'Asked list', organization: 'Asked Labs', source: { url: `${server.base}/feed-delete-overlap.txt`, format: 'text' } }, world.clock, {});
      assert.equal((await world.pull(fid)).ok, true);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('answered n › not deleted, exit 1', async () => {
      const { code, out, err, shown } = await deleteAnswering('n\n');
      assert.equal(code, 1);
      assert.deepEqual(out, []);
      assert.equal(shown, `Delete feed ${fid} Asked list? [y/N] `);
      assert.deepEqual(err, [
        `feed ${fid} Asked list of Asked Labs: 2 links, its source, 1 run on record`,
        '2 indicators only this feed gives: retired (reason feed-deleted), revoked in TAXII',
        'feeds delete: not deleted',
      ]);
      assert.notEqual(await world.store.findFeed(fid), undefined);
    });

    it('on a real terminal, answered n then y › kept, then deleted (its values are the other feed\'s too: none retired)', { skip: SCRIPT_PTY ? false : 'needs util-linux script(1) for a pseudo-terminal' }, async () => {
      const other = await addFeedSource(world.store, { feed: 'Typed list', organization: 'Asked Labs', source: { url: `${server.base}/feed-delete-overlap.txt`, format: 'text' } }, world.clock, {});
      assert.equal((await world.pull(other)).ok, true);
      const no = await onTerminal(['feeds', 'delete', String(other), '--db', world.location], 'n\r');
      assert.equal(no.status, 1, no.shown);
      assert.match(no.shown, new RegExp(`Delete feed ${other} Typed list\\? \\[y/N\\] n\\r?\\nfeeds delete: not deleted`));
      assert.notEqual(await world.store.findFeed(other), undefined);
      const yes = await onTerminal(['feeds', 'delete', String(other), '--db', world.location], 'y\r');
      assert.equal(yes.status, 0, yes.shown);
      assert.match(yes.shown, new RegExp(`deleted feed ${other} Typed list: 2 links, 0 indicators retired`));
      assert.equal(await world.store.findFeed(other), undefined);
    });

    it('answered y › deleted, exit 0', async () => {
      const { code, out } = await deleteAnswering('y\n');
      assert.equal(code, 0);
      assert.deepEqual(out, [`deleted feed ${fid} Asked list: 2 links, 2 indicators retired`]);
      assert.equal(await world.store.findFeed(fid), undefined);
    });
  });
}
