// An indicator's seen stamps kept per feed (docs/feeds.md, "When a value was seen"): a pull that
// reads its source's whole list stamps the feed's listing, not each listed row, and every read of
// stamp_seen (the lookup, explore, the CSV export and its `max` order) takes the latest stamp of the
// feeds listing the value. A value a feed stops listing keeps that feed's last stamp, and so does one
// whose feed is deleted, that is allowlisted, or whose source becomes an incremental one; a store from before migration
// 0025 keeps its stamps. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { noBatches } from '../../src/store/contract/write-batch.js';
import { addEntry } from '../../src/sources/runtime-allowlist.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, migrateRewound, rewindListingStamps } from '../helpers/store-db.js';
import { feedRecord, indicatorRecord, startUpstream, type UpstreamThreatgate } from '../helpers/upstream-threatgate.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION } from '../taxii/taxii-request.js';

const [A, B, C, D, E] = ['198.51.100.10', '198.51.100.11', '198.51.100.12', '198.51.100.13', '198.51.100.14'];

for (const backend of storeBackends()) {
  describe(`seen stamps kept per feed (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    let fid = 0;
    /** The stamps of the pulls below, in order. */
    const at: string[] = [];

    const iidOf = async (value: string) => Number((await dbOf(world.store).selectFrom('indicators').select('iid').where('value', '=', value).executeTakeFirstOrThrow()).iid);
    /** stamp_seen as the indicator lookup answers it. */
    const seen = async (value: string) => ((await world.api('indicator.php', { indicator: value })) as { stamp_seen: string | null }).stamp_seen;
    /** The row's own columns, which a pull of an unchanged listing leaves as they are. */
    const stored = async (value: string) =>
      dbOf(world.store).selectFrom('indicators').select(['stamp_seen', 'stamp_listed']).where('value', '=', value).executeTakeFirstOrThrow();
    const list = (name: string, values: string[]) => {
      const path = join(dir, name);
      writeFileSync(path, `${values.join('\n')}\n`);
      return pathToFileURL(path).href;
    };
    const pull = async (feed: number) => {
      const outcome = await world.pull(feed);
      assert.equal(outcome.ok, true, JSON.stringify(outcome));
      at.push(world.clock.stamp());
      return world.clock.stamp();
    };

    before(async () => {
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-listing-stamps-'));
      fid = await world.addSource('Stamped list', { url: list('first.txt', [A, B, C]), format: 'text', risk: 'high' });
    });
    after(async () => {
      await world?.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    it('a first pull stamps its new values', async () => {
      const first = await pull(fid);
      for (const value of [A, B, C]) assert.equal(await seen(value), first, value);
    });

    it('the same list again: every value is seen at the new pull, and no row is written', async () => {
      const second = await pull(fid);
      for (const value of [A, B, C]) {
        assert.equal(await seen(value), second, value);
        assert.deepEqual(await stored(value), { stamp_seen: at[0], stamp_listed: at[0] }, value);
      }
    });

    it('a value the list drops keeps the last pull that listed it, and ages from then', async () => {
      writeFileSync(join(dir, 'first.txt'), `${A}\n${B}\n`);
      const third = await pull(fid);
      assert.deepEqual([await seen(A), await seen(B), await seen(C)], [third, third, at[1]]);
      assert.deepEqual(await stored(C), { stamp_seen: at[1], stamp_listed: at[1] });
      const clock = await dbOf(world.store).selectFrom('unlisted_indicators').select('stamp_unlisted').where('iid', '=', await iidOf(C)).executeTakeFirstOrThrow();
      assert.equal(clock.stamp_unlisted, at[1]);
    });

    it('explore reads the same stamps: seen after a moment, and the rows it answers', async () => {
      const body = (await world.api('explore.php', { q: `seen>"${at[1]}"` })) as { results: { indicator: string; stamp_seen: string }[] };
      assert.deepEqual(body.results.map((r) => [r.indicator, r.stamp_seen]).sort(), [[A, at[2]], [B, at[2]]]);
      const older = (await world.api('explore.php', { q: `seen<"${at[2]}"` })) as { results: { indicator: string; stamp_seen: string }[] };
      assert.deepEqual(older.results.map((r) => [r.indicator, r.stamp_seen]), [[C, at[1]]]);
    });

    it('a sighting later than every listing is the value\'s stamp_seen; one earlier changes nothing', async () => {
      const sight = (iid: number, seenAt: string) =>
        world.store.applyWrite(
          { kind: 'sighting', plan: { target: { iid }, by: { keyId: null, label: 'command line' }, reportedAt: seenAt, seenAt, count: 1, note: null } },
          noBatches(),
          world.clock,
        );
      world.clock.advance(60_000);
      await sight(await iidOf(B), world.clock.stamp());
      await sight(await iidOf(A), at[0]!);
      assert.deepEqual([await seen(A), await seen(B)], [at[2], world.clock.stamp()]);
    });

    it('the CSV export gives each value its stamp_seen, and max keeps the most recently seen', async () => {
      const get = (path: string) => request(world.app).get(path).set('Authorization', basicAuth(world.key)).expect(200);
      const csv = (await get(`/export/${INDICATORS_COLLECTION}.csv`)).text.trim().split('\r\n');
      assert.deepEqual(csv.slice(1).sort(), [`${A},ip,high,${at[2]},`, `${B},ip,high,${world.clock.stamp()},`, `${C},ip,high,${at[1]},`]);
      // All three are high: the most recently seen go first.
      assert.deepEqual((await get(`/export/${INDICATORS_COLLECTION}.txt?max=2`)).text.trim().split('\n'), [B, A]);
    });

    it('a second feed listing a value: the later of the two feeds\' stamps', async () => {
      const other = await world.addSource('Second list', { url: list('second.txt', [A, D]), format: 'text', risk: 'low' });
      const fifth = await pull(other);
      assert.deepEqual([await seen(A), await seen(D)], [fifth, fifth]);
      const sixth = await pull(fid);
      assert.deepEqual([await seen(A), await seen(D)], [sixth, fifth]);
      const seventh = await pull(other);
      assert.deepEqual([await seen(A), await seen(D)], [seventh, seventh]);
      assert.deepEqual(await stored(D), { stamp_seen: fifth, stamp_listed: fifth });
    });

    it('a deleted feed\'s values keep the stamps it gave them', async () => {
      const before = [await seen(A), await seen(B), await seen(C), await seen(D)];
      const second = Number((await world.api('feed.php', { feed: 'Second list', organization: 'Pull Tests' })).fid);
      assert.equal((await world.feeds(['delete', String(second)], { yes: true })).ok, true);
      assert.deepEqual([await seen(A), await seen(B), await seen(C), await seen(D)], before);
      // D was new at the second feed's first pull and listed by it since: its row takes the feed's last stamp.
      assert.deepEqual(await stored(D), { stamp_seen: at.at(-1), stamp_listed: at.at(-1) });
    });

    it('a store from before the listing stamps: each value keeps its stamp, and the next pull stamps the listing', async () => {
      const values = [A, B, C, D];
      const before = await Promise.all(values.map(seen));
      await rewindListingStamps(world.store);
      await migrateRewound(world.store, world.location);
      assert.deepEqual(await Promise.all(values.map(seen)), before);
      const next = await pull(fid);
      assert.deepEqual(await Promise.all(values.map(seen)), [next, next, before[2], before[3]]);
    });

    describe('a source that becomes incremental', () => {
      let upstream: UpstreamThreatgate;
      before(async () => {
        upstream = await startUpstream(backend, { feeds: [feedRecord(1, 'Upstream IOC')], indicators: [indicatorRecord(1, '203.0.113.50', 'ip')], links: [{ iid: 1, fid: 1, stamp_linked: '2026-01-20 00:00:00' }] });
      });
      after(async () => {
        await upstream?.close();
      });

      it('its values keep the stamp of its last whole list; its pulls then stamp only what they list', async () => {
        // B is listed by this feed alone: its stamp is the feed's last whole list.
        const [lastA, lastWhole] = [await seen(A), await seen(B)];
        assert.equal(lastWhole, ((await world.api('feed.php', { fid })) as { stamp_pulled: string }).stamp_pulled);
        await world.addSource('Stamped list', {
          url: `${upstream.base}${collectionPath(INDICATORS_COLLECTION)}objects/`, format: 'taxii', username: 'taxii2', password: upstream.proKey,
        });
        const walk = await pull(fid);
        // The walk brought one value; the listing keeps what the list gave (an incremental source's listing grows).
        assert.deepEqual([await seen(A), await seen(B), await seen('203.0.113.50')], [lastA, lastWhole, walk]);
        assert.deepEqual(await stored(B), { stamp_seen: lastWhole, stamp_listed: lastWhole });
        assert.equal((await dbOf(world.store).selectFrom('listing_stamps').select('fid').where('fid', '=', fid).execute()).length, 0);
        // A walk with nothing new sees nothing again.
        await pull(fid);
        assert.deepEqual([await seen(A), await seen(B), await seen('203.0.113.50')], [lastA, lastWhole, walk]);
      });
    });

    it('an allowlisted value, retired, keeps the stamp of the last pull that listed it', async () => {
      const third = await world.addSource('Third list', { url: list('third.txt', [E]), format: 'text', risk: 'low' });
      const firstPull = await pull(third);
      const last = await pull(third);
      assert.deepEqual([await stored(E), await seen(E)], [{ stamp_seen: firstPull, stamp_listed: firstPull }, last]);
      world.clock.advance(60_000);
      const counts = await addEntry(world.store, { entry: E, reason: 'our own range', addedBy: 'test' }, world.clock);
      assert.equal(counts.retired, 1);
      assert.deepEqual([await stored(E), await seen(E)], [{ stamp_seen: last, stamp_listed: last }, last]);
    });
  });
}
