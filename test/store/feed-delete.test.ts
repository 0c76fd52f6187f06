// Deleting a feed (the store's `feed-delete` write, docs/sources.md): two feeds pulled over HTTP from fixture files,
// one of them deleted; what only it gave is retired and revoked in TAXII, what others give stays, its rows
// go, and a delete that cannot hold the feed's pull lease changes nothing. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import { stixIdForIdentity, THREATGATE_IDENTITY } from '../../src/stix/index.js';
import { FeedDeleteRefused, type FeedDeletePlan } from '../../src/store/contract/commands.js';
import type { WriteBatch } from '../../src/store/contract/write-batch.js';
import type { FeedServer } from '../helpers/feed-server.js';
import { twoFeedsPulled } from '../helpers/feed-delete-world.js';
import { assertSameStore, snapshotStore, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { collectionPath, TEST_COLLECTION, walk } from '../taxii/taxii-request.js';

const ipPattern = (value: string) => `[ipv4-addr:value = '${value}']`;

/** Only the deleted feed lists it, with the threat its own pull linked (Dridex). */
const ONLY_DOOMED = '192.0.2.35';
/** Both feeds list it: the doomed one gave it `critical`, the kept one `low`. */
const SHARED = '198.51.100.44';
/** Only the deleted feed lists it, but an import linked it to a threat: another source's word. */
const IMPORT_LINKED = '203.0.113.5';

async function* noBatches(): AsyncGenerator<WriteBatch> {}

type Indicator = { iid: number; risk: string; retired: number; retired_reason: string | null; feeds: { fid: number }[]; threats: { tid: number; name: string }[] };

for (const backend of storeBackends()) {
  describe(`feed delete (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let doomed = 0;
    let kept = 0;
    let cursor: string | undefined;
    let before_: StixObject[] = [];
    const deletePlan = (fid: number, leaseOwner: string | null): FeedDeletePlan => ({ fid, at: world.clock.stamp(), leaseOwner });
    const deleteFeed = (plan: FeedDeletePlan) => world.store.applyWrite({ kind: 'feed-delete', plan }, noBatches(), world.clock);
    const indicator = (value: string) => world.api('indicator.php', { indicator: value }) as Promise<Indicator>;
    const byId = (objects: StixObject[]) => new Map(objects.map((o) => [o.id, o]));
    const indicatorOf = (objects: StixObject[], value: string) => objects.find((o) => o.type === 'indicator' && o.pattern === ipPattern(value));

    before(async () => {
      ({ server, world, doomed, kept } = await twoFeedsPulled(backend));
      const linked = await indicator(IMPORT_LINKED);
      world.clock.advance(60_000);
      await importDataset(
        world.store,
        { threats: [{ tid: 900, threat: 'Imported Campaign', category: 'campaign', risk: 'medium' }], feeds: [], indicators: [], links: [{ iid: linked.iid, tid: 900, stamp_linked: world.clock.stamp() }] },
        world.clock,
      );
      ({ objects: before_, last: cursor } = await world.taxii());
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('refused', () => {
      it('while another holder has the feed\'s pull lease › changes nothing and names the holder', async () => {
        const snapshot = await snapshotStore(world.store);
        const now = world.clock.now();
        assert.equal(await world.store.claimPullLease(doomed, 'feeds pull on elsewhere pid 7', now, now + 60_000), true);
        await assert.rejects(deleteFeed(deletePlan(doomed, 'feeds delete here')), (error: unknown) => {
          assert.ok(error instanceof FeedDeleteRefused);
          assert.match(error.message, /^feed \d+ is being pulled by feeds pull on elsewhere pid 7; ask again/);
          return true;
        });
        await world.store.releasePullLease(doomed, 'feeds pull on elsewhere pid 7');
        const unleased = (rows: Record<string, string[]>) => ({ ...rows, feed_sources: rows.feed_sources!.map((r) => r.replace(/"lease_[a-z]+",[^\]]*\]/g, '')) });
        assertSameStore(unleased(await snapshotStore(world.store)), unleased(snapshot), 'a refused delete');
      });

      it('of a fid no feed has › FeedDeleteRefused', async () => {
        await assert.rejects(deleteFeed(deletePlan(99, null)), (error: unknown) => error instanceof FeedDeleteRefused && /^no feed has fid 99$/.test(error.message));
      });
    });

    describe('of the feed that gave one value alone', () => {
      before(async () => {
        world.clock.advance(60_000);
        const now = world.clock.now();
        assert.equal(await world.store.claimPullLease(doomed, 'feeds delete here', now, now + 60_000), true);
        const result = await deleteFeed(deletePlan(doomed, 'feeds delete here'));
        assert.deepEqual(result.feedDeleted, { feed: 'Doomed C2 list', organization: 'Doomed Labs', links: 3, retired: 1 });
      });

      it('the feed is gone from the lookup API; the other stays', async () => {
        await world.api('feed.php', { fid: doomed }, 404);
        const other = (await world.api('feed.php', { fid: kept })) as { feed: string };
        assert.equal(other.feed, 'Kept blocklist');
      });

      it('what only it gave stays in the lookup, retired with the reason feed-deleted', async () => {
        const found = await indicator(ONLY_DOOMED);
        assert.deepEqual([found.risk, found.retired, found.retired_reason, found.feeds], ['retired', 1, 'feed-deleted', []]);
        // Its threat link stays: the threat's record.
        assert.deepEqual(found.threats.map((t) => t.name), ['Dridex']);
      });

      it('a value another feed lists keeps it, with the risk that feed gives', async () => {
        const found = await indicator(SHARED);
        assert.deepEqual([found.risk, found.retired, found.feeds.map((f) => f.fid)], ['low', 0, [kept]]);
      });

      it('a value an import linked to a threat is not its alone: active, its risk kept', async () => {
        const found = await indicator(IMPORT_LINKED);
        assert.deepEqual([found.risk, found.retired, found.feeds], ['critical', 0, []]);
      });

      it('the threats\' summaries no longer list the feed, and count the retired indicator', async () => {
        for (const [value, feeds] of [[ONLY_DOOMED, []], [SHARED, [kept]]] as const) {
          const { tid } = (await indicator(value)).threats[0]!;
          const threat = (await world.api('threat.php', { tid })) as { summary: { feeds: { fid: number }[]; risk: Record<string, number> } };
          assert.deepEqual(threat.summary.feeds.map((f) => f.fid), feeds, value);
          assert.equal(threat.summary.risk.retired ?? 0, value === ONLY_DOOMED ? 1 : 0, value);
        }
      });

      it('TAXII: its indicator and relationship are revoked, as clients held them, after the poller\'s cursor', async () => {
        const { objects } = await world.taxii(`&added_after=${encodeURIComponent(cursor!)}`);
        const held = indicatorOf(before_, ONLY_DOOMED)!;
        const revoked = indicatorOf(objects, ONLY_DOOMED)!;
        assert.equal(revoked.revoked, true);
        assert.equal(revoked.id, held.id);
        assert.equal(revoked.created_by_ref, stixIdForIdentity('Doomed Labs'));
        const { modified: _was, ...heldRest } = held;
        const { modified, revoked: _flag, ...revokedRest } = revoked;
        assert.deepEqual(revokedRest, heldRest, 'the revoked version repeats the one clients hold');
        assert.ok(modified > held.modified);
        const relationships = objects.filter((o) => o.type === 'relationship' && o.source_ref === held.id);
        assert.equal(relationships.length, 1);
        assert.equal(relationships[0]!.revoked, true);
      });

      it('TAXII: the values others give get a new version naming their next feed\'s organization, not revoked', async () => {
        const { objects } = await world.taxii(`&added_after=${encodeURIComponent(cursor!)}`);
        assert.equal(indicatorOf(objects, SHARED)?.created_by_ref, stixIdForIdentity('Kept Labs'));
        assert.equal(indicatorOf(objects, IMPORT_LINKED)?.created_by_ref, THREATGATE_IDENTITY.id);
        for (const value of [SHARED, IMPORT_LINKED]) assert.equal(indicatorOf(objects, value)?.revoked, undefined, value);
        // The relationship of the shared value to its threat stays live.
        const all = byId((await world.taxii()).objects);
        const shared = indicatorOf([...all.values()], SHARED)!;
        const links = [...all.values()].filter((o) => o.type === 'relationship' && o.source_ref === shared.id);
        assert.deepEqual(links.map((o) => o.revoked), [undefined]);
      });

      it('TAXII: a saved view that held the indicator gets its revoked version too', async () => {
        const pages = await walk(world.app, world.key, `${collectionPath(TEST_COLLECTION)}objects/?limit=50&added_after=${encodeURIComponent(cursor!)}`);
        const objects = pages.flatMap((p) => (p.body.objects ?? []) as StixObject[]);
        assert.equal(indicatorOf(objects, ONLY_DOOMED)?.revoked, true);
      });

      it('no row of the feed is left: links, listings, history, provenance, runs, rejections, counts, source', async () => {
        const db = dbOf(world.store);
        for (const table of ['feeds', 'feed_links', 'source_listings', 'past_listings', 'threat_link_sources', 'feed_runs', 'pull_rejections', 'feed_sources']) {
          const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where fid = ${doomed}`.execute(db);
          assert.equal(Number(rows[0]!.n), 0, table);
        }
        const { rows } = await sql<{ n: number }>`select count(*) as n from owner_value_counts where kind = 0 and owner = ${doomed}`.execute(db);
        assert.equal(Number(rows[0]!.n), 0, 'owner_value_counts');
      });

      it('the kept feed still pulls, and a value it lists again stays revoked in TAXII', async () => {
        server.publish('/feed-delete-overlap.txt', `${ONLY_DOOMED}\n${SHARED}\n`);
        const outcome = await world.pull(kept);
        assert.equal(outcome.ok, true);
        const found = await indicator(ONLY_DOOMED);
        assert.deepEqual([found.risk, found.retired_reason], ['low', null]);
        const all = (await world.taxii()).objects;
        assert.equal(indicatorOf(all, ONLY_DOOMED)?.revoked, true, 'revocation is final (STIX 2.1 section 3.2)');
      });
    });

    it('of a feed with no links and no source › deleted, and the data version moves on (the lookup caches with it)', async () => {
      world.clock.advance(60_000);
      await importDataset(world.store, { threats: [], feeds: [{ fid: 50, feed: 'Empty list', organization: 'Empty Labs' }], indicators: [], links: [] }, world.clock);
      const version = await world.store.dataVersion();
      await world.api('feed.php', { fid: 50 });
      world.clock.advance(60_000);
      const result = await deleteFeed(deletePlan(50, null));
      assert.deepEqual(result.feedDeleted, { feed: 'Empty list', organization: 'Empty Labs', links: 0, retired: 0 });
      assert.notEqual(await world.store.dataVersion(), version);
      await world.api('feed.php', { fid: 50 }, 404);
    });
  });
}
