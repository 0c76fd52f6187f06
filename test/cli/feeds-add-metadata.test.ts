// `threatgate feeds add ... --category C --description D --website URL --pricing P` as the real command line
// (docs/sources.md, "Feed metadata and deleting a feed"): the feed's descriptive fields in /api/feed.php and in
// its threats' summaries, a flag left out keeping its value, --source needed only for a new feed, and each bad
// value refused naming its flag, nothing changed. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { feedMetadataFlags } from '../../src/cli/feed-metadata.js';
import { UsageError } from '../../src/errors.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, runCli, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

type FeedBody = { fid: number; category: string; description: string; website: string; pricing: string; accesslink: string; schedule: string; stamp_updated: string };

const DESCRIPTION = 'Botnet command and control servers, one address a line, updated every five minutes.';

describe('feedMetadataFlags', () => {
  it('keeps the flags given, trimmed, and only those; an empty value clears', () => {
    assert.deepEqual(feedMetadataFlags({ category: ' Botnet C2 ', website: '', pricing: undefined }), { category: 'Botnet C2', website: '' });
  });
  it('takes an http or https website, and the longest of each field', () => {
    for (const website of ['http://feeds.example.org', 'https://feeds.example.org/list?format=csv']) assert.equal(feedMetadataFlags({ website }).website, website);
    const longest = { category: 'c'.repeat(200), description: 'd'.repeat(10_000), pricing: 'p'.repeat(200), website: `https://example.org/${'w'.repeat(1980)}` };
    assert.deepEqual(feedMetadataFlags(longest), longest);
  });
  const refusals: [string, Parameters<typeof feedMetadataFlags>[0], RegExp][] = [
    ['an ftp website', { website: 'ftp://feeds.example.org/feodo/' }, /^feeds add: --website: must be an http:\/\/ or https:\/\/ URL, not ftp:$/],
    ['a website that is no URL', { website: 'feeds.example.org' }, /^feeds add: --website: must be an absolute http:\/\/ or https:\/\/ URL$/],
    ['a website with a user name', { website: 'https://reader@feeds.example.org/' }, /^feeds add: --website: must not carry a user name or password$/],
    ['a description on two lines', { description: 'first line\nsecond line' }, /^feeds add: --description: must not hold control characters/],
    ['a pricing with a tab', { pricing: 'free\tforever' }, /^feeds add: --pricing: must not hold control characters/],
    ['a description too long', { description: 'd'.repeat(10_001) }, /^feeds add: --description: at most 10000 characters, not 10001$/],
    ['a category too long', { category: 'c'.repeat(201) }, /^feeds add: --category: at most 200 characters, not 201$/],
    ['a website too long', { website: `https://example.org/${'w'.repeat(1981)}` }, /^feeds add: --website: at most 2000 characters, not 2001$/],
  ];
  for (const [what, flags, message] of refusals) {
    it(`refuses ${what}, naming the flag`, () => assert.throws(() => feedMetadataFlags(flags), (error: unknown) => error instanceof UsageError && message.test(error.message)));
  }
});

for (const backend of storeBackends()) {
  describe(`threatgate feeds add with descriptive fields (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let source = '';
    const add = (...args: string[]) => runCli(['feeds', 'add', ...args, '--db', world.location]);
    const feed = () => world.api('feed.php', { fid: 1 }) as Promise<FeedBody>;

    before(async () => {
      server = await startFeedServer();
      server.publishFixture('feodo-ipblocklist.csv');
      world = await openPullWorld(backend);
      source = JSON.stringify({ url: `${server.base}/feodo-ipblocklist.csv`, format: 'csv', csv: { header: 'comment', value: 'dst_ip', threat: 'malware' } });
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('with --source and every descriptive flag › prints the new fid alone; the lookup API shows them', async () => {
      const res = await add('--feed', 'Example Feodo', '--organization', 'Example Labs', '--source', source,
        '--category', 'Botnet C2', '--description', DESCRIPTION, '--website', 'https://feeds.example.org/feodo/', '--pricing', 'free');
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, '1\n');
      const body = await feed();
      assert.deepEqual([body.category, body.description, body.website, body.pricing], ['Botnet C2', DESCRIPTION, 'https://feeds.example.org/feodo/', 'free']);
      assert.equal(body.accesslink, `${server.base}/feodo-ipblocklist.csv`);
    });

    it('without --source on an existing feed › sets the flags given; its source and the other fields stay; stamp_updated moves', async () => {
      assert.equal((await world.pull(1)).ok, true);
      const before_ = await feed();
      // Stamps are to the second: the change is made in the next one, so that its stamp can move.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
      const res = await add('--feed', 'example feodo', '--organization', 'EXAMPLE LABS', '--category', ' Botnet ', '--pricing', 'freemium');
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, '1\n');
      const after_ = await feed();
      assert.deepEqual(
        [after_.category, after_.pricing, after_.description, after_.website, after_.accesslink, after_.schedule],
        ['Botnet', 'freemium', before_.description, before_.website, before_.accesslink, before_.schedule],
      );
      assert.ok(after_.stamp_updated > before_.stamp_updated, `${after_.stamp_updated} after ${before_.stamp_updated}`);
      assert.equal((await world.store.findFeedSource(1))?.definition, source, 'the source is kept');
    });

    it('the feed\'s threats list it with its new category and pricing', async () => {
      const found = (await world.api('indicator.php', { indicator: '192.0.2.35' })) as { threats: { tid: number }[] };
      const threat = (await world.api('threat.php', { tid: found.threats[0]!.tid })) as { summary: { feeds: { fid: number; category: string; pricing: string }[] } };
      assert.deepEqual(threat.summary.feeds.map((f) => [f.fid, f.category, f.pricing]), [[1, 'Botnet', 'freemium']]);
    });

    it('the same flags again › change nothing, stamp_updated included', async () => {
      const before_ = await feed();
      const res = await add('--feed', 'Example Feodo', '--organization', 'Example Labs', '--category', 'Botnet');
      assert.equal(res.status, 0, res.stderr);
      assert.deepEqual(await feed(), before_);
    });

    it('an empty value › clears the field', async () => {
      const res = await add('--feed', 'Example Feodo', '--organization', 'Example Labs', '--website', '');
      assert.equal(res.status, 0, res.stderr);
      assert.equal((await feed()).website, '');
    });

    // Every refusal is in the table of feedMetadataFlags above; these go through the command line's exit.
    const refusals: [string, string[], RegExp][] = [
      ['a website with a password', ['--website', 'https://reader:s3cret-pw@feeds.example.org/'], /^threatgate: feeds add: --website: must not carry a user name or password\n$/],
      ['a category with an escape sequence', ['--category', 'Bot\x1b[31mnet'], /^threatgate: feeds add: --category: must not hold control characters/],
    ];
    for (const [what, flags, message] of refusals) {
      it(`with ${what} › exit 1 naming the flag, nothing changed`, async () => {
        const before_ = await feed();
        const res = await add('--feed', 'Example Feodo', '--organization', 'Example Labs', ...flags);
        assert.equal(res.status, 1);
        assert.equal(res.stdout, '');
        assert.match(res.stderr, message);
        assert.equal(res.stderr.includes('s3cret-pw'), false);
        assert.deepEqual(await feed(), before_);
      });
    }

    it('a new feed without --source › exit 1: a new feed needs one', async () => {
      const res = await add('--feed', 'Another list', '--organization', 'Example Labs', '--category', 'Spam');
      assert.equal(res.status, 1);
      assert.match(res.stderr, /^threatgate: feeds add: --source is required for a new feed \(no feed "Another list" of "Example Labs" yet\)\n$/);
      assert.equal(await world.store.findFeedByName('Another list', 'Example Labs'), undefined);
    });

    it('neither --source nor a descriptive flag › exit 1: --source is required', async () => {
      const res = await add('--feed', 'Example Feodo', '--organization', 'Example Labs');
      assert.equal(res.status, 1);
      assert.match(res.stderr, /^threatgate: feeds add: --source is required\n$/);
    });
  });
}
