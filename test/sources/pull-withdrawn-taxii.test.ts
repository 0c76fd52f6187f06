// A TAXII mirror of a threatgate whose lifecycle ages values out (docs/interface.md section 10, "Withdrawn values"): the upstream's new
// version of an aged-out indicator (valid_until past) retires ours when only the mirror listed it, and leaves the
// risk of a local list that also lists it; each value comes with the risk its indicator's confidence gives, not
// the source's; an indicator already expired upstream makes nothing. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startAgingUpstream, type AgingUpstream } from '../helpers/aging-upstream.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { indicatorsByPattern, openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { collectionPath, INDICATORS_COLLECTION } from '../taxii/taxii-request.js';
import { dbOf } from '../helpers/store-db.js';

const KEPT = ['198.51.100.31', 'kept.example.com'];
/** Listed by the mirror alone, then aged out upstream. */
const ALONE = '198.51.100.34';
/** Listed by the mirror and by a local list at medium, then aged out upstream. */
const SHARED = 'shared.example.com';
/** Aged out upstream before the mirror's first pull. */
const EARLY = '198.51.100.39';

const counts = (outcome: PullOutcome) => (outcome.ok ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, withdrawn: outcome.withdrawn } : { ok: false, reason: outcome.reason });

for (const backend of storeBackends()) {
  describe(`a TAXII mirror of an upstream that ages indicators out (${backend.name})`, () => {
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
      mirror = await world.addSource('Upstream TAXII mirror', {
        url: `${aging.upstream.base}${collectionPath(INDICATORS_COLLECTION)}objects/`, format: 'taxii', username: 'taxii2', password: aging.upstream.proKey,
      });
      aging.catchUp(world.clock);
      first = await world.pull(mirror);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await aging?.close();
      await backend.cleanup();
    });

    describe('the first walk', () => {
      it('brings the valid indicators\' values and withdraws the expired one', () => {
        assert.deepEqual(counts(first), { ok: true, values: 4, newIndicators: 3, withdrawn: 1 });
      });

      it('makes nothing of the indicator that expired upstream', async () => {
        assert.equal((await risks())[EARLY], undefined);
      });

      it('gives each value the risk its indicator\'s confidence (85) stands for, not the source\'s (unknown)', async () => {
        const now = await risks();
        for (const value of [...KEPT, ALONE, SHARED]) assert.equal(now[value], 'high', value);
      });
    });

    describe('the next walk, after the upstream ages out a value only the mirror lists and one a local list also lists', () => {
      let second: PullOutcome;
      before(async () => {
        await aging.list(KEPT);
        assert.equal(await aging.ageOut(), 2);
        aging.catchUp(world.clock);
        second = await world.pull(mirror);
      });

      it('reads the two new versions, whose valid_until is past, as withdrawn', () => {
        assert.deepEqual(counts(second), { ok: true, values: 0, newIndicators: 0, withdrawn: 2 });
      });

      it('retires ours for the value only the mirror listed, and gives the other the local list\'s risk', async () => {
        const now = await risks();
        assert.deepEqual([now[ALONE], now[SHARED]], ['retired', 'medium']);
        for (const value of KEPT) assert.equal(now[value], 'high', value);
        assert.deepEqual(await mirrorListing(), [...KEPT].sort());
      });

      it('our own TAXII publishes the retired one\'s new version, expired, and keeps the other valid', async () => {
        const byPattern = indicatorsByPattern((await world.taxii()).objects);
        const alone = byPattern.get(`[ipv4-addr:value = '${ALONE}']`);
        const shared = byPattern.get(`[domain-name:value = '${SHARED}']`);
        assert.equal(alone?.valid_until, alone?.modified);
        assert.equal(shared?.valid_until, undefined);
      });
    });
  });
}
