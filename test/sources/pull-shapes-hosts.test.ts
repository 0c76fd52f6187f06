// A hosts-file source pulled end to end (docs/sources.md, "Feed shapes"): a StevenBlack-like unified hosts file served over HTTP, its names
// listed as domains and its preamble left out, through `feeds pull` and the lookup API; a full list, so the sanity gate
// holds a body that lost most of its names or turned into an HTML page. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const HOSTS = readFileSync(new URL('../fixtures/feeds-shapes/stevenblack-hosts.txt', import.meta.url), 'utf8');
const NAMES = ['ads.example.com', 'tracker.example.net', 'banners.example.org', 'banners-cdn.example.org', 'malware-drop.example.com', 'phish-login.example.net'];

for (const backend of storeBackends()) {
  describe(`a hosts file pulled end to end (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    let firstLines: string[] = [];

    before(async () => {
      server = await startFeedServer();
      server.publish('/hosts', HOSTS);
      world = await openPullWorld(backend);
      fid = await world.addSource('Example unified hosts', { url: `${server.base}/hosts`, format: 'hosts', risk: 'medium' });
      const first = await world.feeds(['pull', String(fid)]);
      assert.ok(first.ok, first.lines.join('\n'));
      firstLines = first.lines;
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('feeds pull reports six values, one name rejected, and nothing for the preamble', () => {
      assert.match(firstLines.at(-1) ?? '', new RegExp(`^fid ${fid} Example unified hosts: ok 6 values, 6 new indicators, 6 new links, 1 rejected, `));
    });

    it('lists every blocked name as a domain of the source\'s risk, normalized, and no sink address or local name', async () => {
      const links = await world.feedLinks(fid);
      assert.deepEqual(links.map((l) => [l.indicator, l.type, l.risk]), NAMES.map((name) => [name, 'domain', 'medium']));
    });

    it('finds a name through the lookup API as it is listed, its trailing dot and capitals gone', async () => {
      const found = (await world.api('indicator.php', { indicator: 'tracker.example.net' })) as { type: string; risk: string };
      assert.deepEqual([found.type, found.risk], ['domain', 'medium']);
    });

    describe('the sanity gate of a full list', () => {
      it('refuses a body that lost most of its names, keeping the listing', async () => {
        server.publish('/hosts', '# Title: Example/hosts\n0.0.0.0 ads.example.com\n');
        const outcome = await world.pull(fid);
        assert.equal(outcome.ok, false);
        assert.match(outcome.ok ? '' : outcome.reason, /listed 1 values where its last good pull listed 6, fewer than minRatio \(0\.5\)/);
        assert.equal((await world.feedLinks(fid)).length, 6);
      });

      it('refuses an HTML page where a hosts list was expected', async () => {
        server.publish('/hosts', '<!DOCTYPE html><html><body>moved</body></html>', { contentType: 'text/html' });
        const outcome = await world.pull(fid);
        assert.match(outcome.ok ? '' : outcome.reason, /the body is an HTML page \(text\/html\) where a hosts list was expected/);
      });

      it('refuses a first pull that reads no name from a body, saying what a hosts list holds', async () => {
        server.publish('/lines', 'example.com example.net\nexample.org example.com\n');
        const other = await world.addSource('Not a hosts file', { url: `${server.base}/lines`, format: 'hosts' });
        const outcome = await world.pull(other);
        assert.match(outcome.ok ? '' : outcome.reason, /the first pull read no values from a body of \d+ bytes \(0 rows rejected and 2 without a value\): expected host names on "ADDRESS NAME" lines or one a line/);
      });
    });
  });
}
