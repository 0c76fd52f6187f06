// A credential written into a source URL itself (docs/interface.md section 2.2, `accesslink`): a token as a query value, as a bare query, as the
// userinfo's user or password, or in the fragment reaches no public field and no output. feeds list and the feed's
// accesslink (GET /api/feed.php, which anonymous callers read) show the URL with each query value as `***`, without
// userinfo and fragment; pull lines, log lines and TAXII objects carry none of it; an accesslink stored with a token
// before (by an older version, or imported as typed) is masked when read. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, runCli, type CliRun, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

/** One secret per place a URL can carry one, each distinct, so a failure names the place that leaked. */
const SECRETS = {
  query: 'QueryTok3nVq8xW2',
  bare: 'BareTok3nRz7mK4',
  user: 'UserTok3nHc4dP9',
  password: 'PassTok3nNp2sL6',
  fragment: 'FragTok3nYt5gB1',
  stored: 'OldTok3nKw3eJ8',
};

function assertNoSecret(text: string, what: string): void {
  for (const [place, secret] of Object.entries(SECRETS)) {
    // Any 8 characters in a row of it: a message that quotes part of the URL still leaks it.
    for (let i = 0; i + 8 <= secret.length; i++) {
      assert.equal(text.includes(secret.slice(i, i + 8)), false, `${what} shows the ${place} secret:\n${text}`);
    }
  }
}

for (const backend of storeBackends()) {
  describe(`credentials in a source URL (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let dir: string;
    let host: string;
    const fids = { query: 0, userinfo: 0, bare: 0, typed: 0 };
    const runs: [string, CliRun][] = [];
    const cli = async (what: string, args: string[]) => {
      const run = await runCli([...args, '--db', world.location], { LOG_LEVEL: 'debug' });
      runs.push([what, run]);
      assert.equal(run.status, 0, `${what}: ${run.stdout}${run.stderr}`);
      return run;
    };
    /** The URL each source is shown with: query values masked, no userinfo, no fragment. */
    const shown = () => ({
      [fids.query]: `${server.base}/query.txt?token=***&list=***`,
      [fids.userinfo]: `${server.base}/userinfo.txt`,
      [fids.bare]: `${server.base}/bare.txt?***`,
    });

    before(async () => {
      server = await startFeedServer();
      host = new URL(server.base).host;
      server.publish('/query.txt', '192.0.2.61\n');
      server.publish('/userinfo.txt', '192.0.2.62\n');
      server.publish('/bare.txt', '192.0.2.63\n');
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-url-credentials-'));
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('feeds add, an import and a pull take the URLs as given, and the pulls send the credentials', async () => {
      const query = { url: `${server.base}/query.txt?token=${SECRETS.query}&list=full`, format: 'text' };
      fids.query = Number((await cli('feeds add', ['feeds', 'add', '--feed', 'Query feed', '--organization', 'Tokens', '--source', JSON.stringify(query)])).stdout.trim());
      fids.userinfo = await world.addSource('Userinfo feed', { url: `http://${SECRETS.user}:${SECRETS.password}@${host}/userinfo.txt#${SECRETS.fragment}`, format: 'text' });
      // A source and an accesslink typed with a token, through an import file.
      const file = join(dir, 'feeds.json');
      const bare = { fid: 90, feed: 'Bare feed', organization: 'Tokens', source: { url: `${server.base}/bare.txt?${SECRETS.bare}`, format: 'text' } };
      const typed = { fid: 91, feed: 'Typed feed', organization: 'Tokens', accesslink: `https://old.example/feed?token=${SECRETS.stored}#${SECRETS.fragment}` };
      writeFileSync(file, JSON.stringify({ threats: [], feeds: [bare, typed], indicators: [], links: [] }));
      await cli('import', ['import', file]);
      [fids.bare, fids.typed] = [90, 91];

      const pulled = await cli('feeds pull', ['feeds', 'pull', String(fids.query), String(fids.userinfo), String(fids.bare)]);
      assert.equal(pulled.stdout.trimEnd().split('\n').filter((line) => / ok 1 values/.test(line)).length, 3, pulled.stdout);
      // The control: the secrets were really there to leak.
      assert.equal(new URL(server.requestsFor('/query.txt')[0]!.url, server.base).searchParams.get('token'), SECRETS.query);
      assert.equal(server.requestsFor('/userinfo.txt')[0]!.headers.authorization, `Basic ${Buffer.from(`${SECRETS.user}:${SECRETS.password}`).toString('base64')}`);
      assert.equal(server.requestsFor('/bare.txt')[0]!.url, `/bare.txt?${SECRETS.bare}`);
    });

    it('failed pulls name the URL without its query, userinfo or fragment', async () => {
      for (const path of ['/query.txt', '/userinfo.txt', '/bare.txt']) server.fail(path, { kind: 'status', status: 500 });
      const run = await runCli(['feeds', 'pull', String(fids.query), String(fids.userinfo), String(fids.bare), '--db', world.location], { LOG_LEVEL: 'debug' });
      runs.push(['feeds pull (failed)', run]);
      assert.equal(run.status, 1, run.stderr);
      assert.deepEqual(run.stdout.trimEnd().split('\n'), [
        `fid ${fids.query} Query feed: failed: ${server.base}/query.txt: HTTP status 500`,
        `fid ${fids.userinfo} Userinfo feed: failed: ${server.base}/userinfo.txt: HTTP status 500`,
        `fid ${fids.bare} Bare feed: failed: ${server.base}/bare.txt: HTTP status 500`,
      ]);
      // And in this process, as serve's scheduler pulls.
      assert.equal((await world.pull(fids.userinfo)).ok, false);
    });

    it('feeds list shows each URL with its query values masked, without userinfo or fragment', async () => {
      const run = await cli('feeds list', ['feeds', 'list']);
      const urls = run.stdout.trimEnd().split('\n').slice(1).map((line) => line.split('\t')).map((cells) => [Number(cells[0]), cells[7]]);
      assert.deepEqual(Object.fromEntries(urls), shown());
    });

    it("the accesslink is stored masked, and feed.php shows it masked, an older row's too", async () => {
      const stored = await dbOf(world.store).selectFrom('feeds').select(['fid', 'accesslink']).where('fid', 'in', [fids.query, fids.userinfo, fids.bare]).execute();
      assert.deepEqual(Object.fromEntries(stored.map((row) => [Number(row.fid), row.accesslink])), shown());
      // A row an older version wrote with the token in it: masked when read.
      await dbOf(world.store).updateTable('feeds').set({ accesslink: `${server.base}/query.txt?token=${SECRETS.query}&list=full#${SECRETS.fragment}` }).where('fid', '=', fids.query).execute();
      const expected = { ...shown(), [fids.typed]: 'https://old.example/feed?token=***' };
      for (const [fid, accesslink] of Object.entries(expected)) {
        const feed = (await world.api('feed.php', { fid })) as { accesslink: string };
        assert.equal(feed.accesslink, accesslink, `feed.php?fid=${fid}`);
        assertNoSecret(JSON.stringify(feed), `feed.php?fid=${fid}`);
      }
    });

    it('no TAXII object carries any of them', async () => {
      const { objects } = await world.taxii();
      assert.ok(objects.some((o) => o.type === 'identity' && o.name === 'Tokens'), 'the feeds\' organization is there');
      assertNoSecret(JSON.stringify(objects), 'the TAXII objects');
    });

    it('no command printed any of them, on stdout or in a log line, nor did this process log one', () => {
      assert.deepEqual(runs.map(([what]) => what), ['feeds add', 'import', 'feeds pull', 'feeds pull (failed)', 'feeds list']);
      for (const [what, run] of runs) assertNoSecret(`${run.stdout}${run.stderr}`, what);
      assert.ok(runs[2]![1].stderr.includes('"msg":"pull"'), 'the pull logs its line');
      assert.ok(world.logLines.some((line) => line.includes('"outcome":"failed"')));
      assertNoSecret(world.logLines.join(''), 'the log of this process');
    });
  });
}
