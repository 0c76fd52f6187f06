// Secrets of a source are never printed (docs/security.md): a token given as ${env:FEED_TOKEN} in a header, in
// the URL's query string and as the password reaches the feed server, and appears in no output or log line of the
// real command line (feeds add, list and pull, good and failed), in no stored row and in no lookup API answer, not
// even when the server echoes it back. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, runCli, snapshotStore, type CliRun, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const TOKEN = 'Zq8xVw3rKp2mTn6yHc4d';
const USER = 'reader';

/**
 * What would give the token away: itself, its URL-encoded and Basic forms, and any 8 characters of it in
 * a row (an error that quotes part of a body that echoed the token still leaks it).
 */
const TELLTALES = [
  TOKEN,
  Buffer.from(`${USER}:${TOKEN}`).toString('base64'),
  ...Array.from({ length: TOKEN.length - 7 }, (_, i) => TOKEN.slice(i, i + 8)),
];

function assertNoSecret(text: string, what: string): void {
  for (const tale of TELLTALES) assert.equal(text.includes(tale), false, `${what} shows "${tale}" of the token:\n${text}`);
}

const SOURCE = (base: string, path: string, extra: Record<string, unknown> = {}) => ({
  url: `${base}${path}?token=\${env:FEED_TOKEN}&list=full`,
  format: 'text',
  headers: { 'X-Api-Key': '${env:FEED_TOKEN}' },
  username: USER,
  password: '${env:FEED_TOKEN}',
  timeoutSeconds: 10,
  ...extra,
});

for (const backend of storeBackends()) {
  describe(`secrets of a pulled source (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    const fids = { list: 0, moved: 0, json: 0 };
    const runs: [string, CliRun][] = [];
    const cli = async (what: string, args: string[], env: Record<string, string> = { FEED_TOKEN: TOKEN }) => {
      const run = await runCli(['feeds', ...args, '--db', world.location], { LOG_LEVEL: 'debug', ...env });
      runs.push([what, run]);
      return run;
    };

    before(async () => {
      server = await startFeedServer();
      server.publish('/list.txt', '192.0.2.44\n198.51.100.45\n');
      server.publish('/moved.txt', '203.0.113.46\n');
      server.publish('/list.json', '{"ip": "203.0.113.47"}\n');
      world = await openPullWorld(backend, { FEED_TOKEN: TOKEN });
      // Two of the three sources are added in this process (the same code path as feeds add); the first by the command line.
      fids.moved = await world.addSource('Moved feed', SOURCE(server.base, '/moved.txt'));
      fids.json = await world.addSource('Echoing JSON feed', SOURCE(server.base, '/list.json', { format: 'json', json: { value: 'ip' } }));
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('feeds add prints the fid alone', async () => {
      const run = await cli('feeds add', ['add', '--feed', 'Token feed', '--organization', 'Secret Org', '--source', JSON.stringify(SOURCE(server.base, '/list.txt'))]);
      assert.equal(run.status, 0, run.stderr);
      fids.list = Number(run.stdout.trim());
      assert.equal(run.stdout, `${fids.list}\n`);
    });

    it('feeds pull sends the token where the source puts it, and prints an ok line', async () => {
      const run = await cli('feeds pull (ok)', ['pull', String(fids.list)]);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, new RegExp(`^fid ${fids.list} Token feed: ok 2 values, 2 new indicators, 2 new links, 0 rejected, \\d+\\.\\d s\\n$`));
      // The control: the secret was really there to leak.
      const [request] = server.requestsFor('/list.txt');
      assert.equal(new URL(request!.url, server.base).searchParams.get('token'), TOKEN);
      assert.equal(request!.headers['x-api-key'], TOKEN);
      assert.equal(request!.headers.authorization, `Basic ${Buffer.from(`${USER}:${TOKEN}`).toString('base64')}`);
      assert.ok(run.stderr.includes('"msg":"pull"'), 'the pull logs its line');
    });

    it('failed pulls name the URL and the reason without the token, even when the server echoes it', async () => {
      const echo = `invalid key ${TOKEN} for ${server.base}/list.txt?token=${TOKEN}`;
      server.fail('/list.txt', { kind: 'status', status: 500, body: echo });
      // A redirect to a URL with the token in it, which then fails.
      server.fail('/moved.txt', { kind: 'status', status: 302, body: echo, location: `/gone.txt?token=${TOKEN}` });
      // A body that is not JSON and starts with the token, as an error page might: JSON.parse quotes its first characters.
      server.fail('/list.json', { kind: 'body', body: `${TOKEN} is not a valid key\n` });
      const run = await cli('feeds pull (failed)', ['pull', String(fids.list), String(fids.moved), String(fids.json)]);
      assert.equal(run.status, 1, run.stderr);
      const lines = run.stdout.trimEnd().split('\n');
      assert.equal(lines.length, 3, run.stdout);
      assert.match(lines[0]!, new RegExp(`^fid ${fids.list} Token feed: failed: http://127\\.0\\.0\\.1:\\d+/list\\.txt: HTTP status 500$`));
      assert.match(lines[1]!, new RegExp(`^fid ${fids.moved} Moved feed: failed: http://127\\.0\\.0\\.1:\\d+/moved\\.txt: HTTP status 404$`));
      assert.match(lines[2]!, new RegExp(`^fid ${fids.json} Echoing JSON feed: failed: .*not valid JSON`));
      assert.equal(server.requestsFor('/gone.txt').length, 1, 'the redirect was followed');
    });

    it('feeds list shows the URL with its placeholder, other query values masked and no credentials, and the errors', async () => {
      const run = await cli('feeds list', ['list']);
      assert.equal(run.status, 0, run.stderr);
      const lines = run.stdout.trimEnd().split('\n').slice(1).map((line) => line.split('\t'));
      const paths = new Map([[fids.list, '/list.txt'], [fids.moved, '/moved.txt'], [fids.json, '/list.json']]);
      assert.deepEqual(
        lines.map((cells) => [cells[0], cells[7]]),
        [...paths.keys()].sort((a, b) => a - b).map((fid) => [String(fid), `${server.base}${paths.get(fid)}?token=\${env:FEED_TOKEN}&list=***`]),
      );
      assert.ok(lines.every((cells) => cells[8] !== '-'), run.stdout);
    });

    it('feeds pull with the variable unset fails naming it (in this process: its log lines are kept)', async () => {
      const run = await world.feeds(['pull', String(fids.list)], {}, {});
      assert.equal(run.ok, false);
      assert.deepEqual(run.lines, [
        `fid ${fids.list} Token feed: failed: source.url: environment variable FEED_TOKEN is not set; ` +
          'source.headers.X-Api-Key: environment variable FEED_TOKEN is not set; source.password: environment variable FEED_TOKEN is not set',
      ]);
    });

    it('no command printed any part of the token, on stdout or in a log line', () => {
      assert.deepEqual(runs.map(([what]) => what), ['feeds add', 'feeds pull (ok)', 'feeds pull (failed)', 'feeds list']);
      for (const [what, run] of runs) {
        assertNoSecret(run.stdout, `${what}: stdout`);
        assertNoSecret(run.stderr, `${what}: stderr`);
      }
      // This process's pulls (by pullFeed, as serve's scheduler runs them) log to world.logLines.
      assert.ok(world.logLines.some((line) => line.includes('"outcome":"failed"')));
      assertNoSecret(world.logLines.join(''), 'the log of this process');
    });

    it('no row of any table holds it: definitions keep the placeholder, errors and accesslinks do not have it', async () => {
      const snapshot = JSON.stringify(await snapshotStore(world.store));
      assertNoSecret(snapshot, 'the store');
      const rows = await dbOf(world.store).selectFrom('feed_sources').select(['fid', 'definition', 'last_error']).orderBy('fid').execute();
      assert.ok(rows.every((r) => r.definition.includes('${env:FEED_TOKEN}') && r.last_error !== null), JSON.stringify(rows));
    });

    it('the lookup API shows each feed\'s accesslink without the token', async () => {
      for (const fid of Object.values(fids)) {
        const feed = (await world.api('feed.php', { fid })) as { accesslink: string };
        assert.match(feed.accesslink, /\?token=\$\{env:FEED_TOKEN\}&list=\*\*\*$/);
        assertNoSecret(JSON.stringify(feed), `feed.php?fid=${fid}`);
      }
    });
  });
}
