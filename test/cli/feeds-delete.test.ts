// `threatgate feeds delete FID [--yes]` as the real command line (docs/sources.md, "Feed metadata and deleting
// a feed"): off a terminal it says what goes and refuses (exit 2), an unknown fid is exit 1, a feed being
// pulled exit 75, and with --yes the feed goes; the result read through the lookup API and TAXII. SQLite and
// PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import type { FeedServer } from '../helpers/feed-server.js';
import { twoFeedsPulled } from '../helpers/feed-delete-world.js';
import { runCli, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const ONLY_DOOMED = '192.0.2.35';

for (const backend of storeBackends()) {
  describe(`threatgate feeds delete (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let doomed = 0;
    let kept = 0;
    const cli = (...args: string[]) => runCli(['feeds', 'delete', ...args, '--db', world.location]);
    const feedStatus = async (fid: number) => ((await world.api('feed.php', { fid }, (await world.store.findFeed(fid)) ? 200 : 404)) as { fid?: number }).fid;

    before(async () => {
      ({ server, world, doomed, kept } = await twoFeedsPulled(backend));
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('without --yes off a terminal › says what goes, refuses with exit 2 and deletes nothing', async () => {
      const res = await cli(String(doomed));
      assert.equal(res.status, 2, res.stderr);
      assert.equal(res.stdout, '');
      assert.deepEqual(res.stderr.trimEnd().split('\n'), [
        `feed ${doomed} Doomed C2 list of Doomed Labs: 3 links, its source, 1 run on record`,
        '2 indicators only this feed gives: retired (reason feed-deleted), revoked in TAXII',
        'feeds delete: not deleted: give --yes to delete without being asked (stdin is not a terminal to ask on)',
      ]);
      assert.equal(await feedStatus(doomed), doomed);
    });

    for (const [what, args, message] of [
      ['a fid no feed has', ['99', '--yes'], /^threatgate: feeds delete: no feed has fid 99\n$/],
      ['a malformed fid', ['first', '--yes'], /^threatgate: feeds delete: give one FID, a positive whole number, not "first"\n$/],
      ['two fids', [String(1), String(2), '--yes'], /^threatgate: feeds delete: give one FID\n$/],
    ] as const) {
      it(`of ${what} › exit 1 naming it`, async () => {
        const res = await cli(...args);
        assert.equal(res.status, 1, res.stderr);
        assert.match(res.stderr, message);
      });
    }

    it('while a pull holds the feed\'s lease › exit 75 naming the holder, nothing deleted', async () => {
      const holder = 'feeds pull on elsewhere pid 7';
      assert.equal(await world.store.claimPullLease(doomed, holder, Date.now(), Date.now() + 60_000), true);
      try {
        const res = await cli(String(doomed), '--yes');
        assert.equal(res.status, 75, res.stderr);
        assert.match(res.stderr, new RegExp(`^feeds delete: fid ${doomed} is being pulled by ${holder} since \\S+ \\S+; not deleted, ask again when that pull has finished\\n$`));
        assert.equal(await feedStatus(doomed), doomed);
      } finally {
        await world.store.releasePullLease(doomed, holder);
      }
    });

    it('with --yes › deletes the feed under its lease and prints what went', async () => {
      const cursor = (await world.taxii()).last!;
      const res = await cli(String(doomed), '--yes');
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, `deleted feed ${doomed} Doomed C2 list: 3 links, 2 indicators retired\n`);
      assert.equal(await feedStatus(doomed), undefined);
      const found = (await world.api('indicator.php', { indicator: ONLY_DOOMED })) as { retired: number; retired_reason: string };
      assert.deepEqual([found.retired, found.retired_reason], [1, 'feed-deleted']);
      const { objects } = await world.taxii(`&added_after=${encodeURIComponent(cursor)}`);
      const revoked = objects.find((o) => o.type === 'indicator' && o.pattern === `[ipv4-addr:value = '${ONLY_DOOMED}']`);
      assert.equal(revoked?.revoked, true);
      assert.equal(await world.store.findPullLease(doomed), undefined, 'no lease is left behind');
      assert.equal(await feedStatus(kept), kept);
    });

    it('of a feed with no source (an import\'s) › deleted with --yes, no lease needed', async () => {
      world.clock.advance(60_000);
      await importDataset(world.store, { threats: [], feeds: [{ fid: 40, feed: 'Imported list', organization: 'Import Labs' }], indicators: [], links: [] }, world.clock);
      const res = await cli('40', '--yes');
      assert.equal(res.status, 0, res.stderr);
      assert.equal(res.stdout, 'deleted feed 40 Imported list: 0 links, 0 indicators retired\n');
      assert.equal(await feedStatus(40), undefined);
    });
  });
}
