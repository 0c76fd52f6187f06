// A lookup-api mirror of a threatgate whose lifecycle ages values out (docs/interface.md section 10, "Withdrawn values"): a value the
// upstream had retired before the first pull does not come in at all; one we had from the mirror only becomes
// retired when the upstream retires it, and one another source lists keeps that source's risk; every other row
// keeps the risk the upstream gave it. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startAgingUpstream, type AgingUpstream } from '../helpers/aging-upstream.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const KEPT = ['198.51.100.11', '198.51.100.12', 'kept.example.com'];
/** Listed by the mirror alone, then aged out upstream. */
const ALONE = '198.51.100.14';
/** Listed by the mirror and by a local list at medium, then aged out upstream. */
const SHARED = 'shared.example.com';
/** Aged out upstream before the mirror's first pull. */
const EARLY = '198.51.100.19';

const counts = (outcome: PullOutcome) => (outcome.ok ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, withdrawn: outcome.withdrawn } : { ok: false, reason: outcome.reason });

for (const backend of storeBackends()) {
  describe(`a lookup-api mirror of an upstream that retires values (${backend.name})`, () => {
    let aging: AgingUpstream;
    let server: FeedServer;
    let world: PullWorld;
    let mirror = 0;
    let first: PullOutcome;

    const risks = async () =>
      Object.fromEntries((await dbOf(world.store).selectFrom('indicators').select(['value', 'risk']).orderBy('value').execute()).map((r) => [r.value, r.risk]));
    const mirrorListing = async () =>
      (await dbOf(world.store).selectFrom('source_listings as l').innerJoin('indicators as i', 'i.iid', 'l.iid').select('i.value').where('l.fid', '=', mirror).execute())
        .map((r) => r.value)
        .sort();

    before(async () => {
      aging = await startAgingUpstream(backend, [...KEPT, ALONE, SHARED, EARLY]);
      await aging.list([...KEPT, ALONE, SHARED]);
      assert.equal(await aging.ageOut(), 1);
      server = await startFeedServer();
      server.publish('/local.txt', `${SHARED}\n`);
      world = await openPullWorld(backend);
      const local = await world.addSource('Local list', { url: `${server.base}/local.txt`, format: 'text', risk: 'medium' });
      assert.equal((await world.pull(local)).ok, true);
      mirror = await world.addSource('Upstream mirror', { url: `${aging.upstream.base}/`, format: 'lookup-api', fid: aging.fid, key: aging.upstream.proKey });
      first = await world.pull(mirror);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await aging?.close();
      await backend.cleanup();
    });

    describe('the first pull', () => {
      it('brings the active values and counts the one retired upstream as withdrawn', () => {
        assert.deepEqual(counts(first), { ok: true, values: 5, newIndicators: 4, withdrawn: 1 });
      });

      it('does not bring the value retired upstream, as an indicator or as a link', async () => {
        assert.equal((await risks())[EARLY], undefined);
        assert.ok(!(await world.feedLinks(mirror)).some((l) => l.indicator === EARLY));
      });

      it('keeps the upstream\'s risk of each row over the source\'s (unknown)', async () => {
        const now = await risks();
        for (const value of [...KEPT, ALONE, SHARED]) assert.equal(now[value], 'high', value);
      });
    });

    describe('once the upstream ages out a value only the mirror lists and one a local list also lists', () => {
      let second: PullOutcome;
      before(async () => {
        await aging.list(KEPT);
        assert.equal(await aging.ageOut(), 2);
        aging.catchUp(world.clock);
        second = await world.pull(mirror);
      });

      it('succeeds, withdrawing the three values the upstream lists as retired', () => {
        assert.deepEqual(counts(second), { ok: true, values: 3, newIndicators: 0, withdrawn: 3 });
      });

      it('retires ours for the value only the mirror listed, and gives the other the local list\'s risk', async () => {
        const now = await risks();
        assert.deepEqual([now[ALONE], now[SHARED]], ['retired', 'medium']);
        for (const value of KEPT) assert.equal(now[value], 'high', value);
        assert.deepEqual(await mirrorListing(), [...KEPT].sort());
      });

      it('keeps the links: the mirror\'s feed still names the retired value, at risk retired', async () => {
        const link = (await world.feedLinks(mirror)).find((l) => l.indicator === ALONE);
        assert.equal(link?.risk, 'retired');
      });
    });
  });
}
