// What a SIEM polling TAXII sees when a threat retires and comes back (docs/stix-mapping.md,
// "Retirement and reactivation"), on SQLite and PostgreSQL: revocation is final, so the threat
// returns as a new object, derived from the revoked one, with new relationships.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { setThreatRetired } from '../../src/lifecycle/run-lifecycle.js';
import { openPullWorld, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

for (const backend of storeBackends()) {
  describe(`a retired threat that comes back, as TAXII shows it (${backend.name})`, () => {
    let world: PullWorld;
    let cursor: string;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(
        world.store,
        {
          threats: [{ tid: 7, threat: 'Boomerang', category: 'botnet', risk: 'high', stamp_added: '2026-01-01 00:00:00' }],
          feeds: [],
          indicators: [{ iid: 70, indicator: 'boomerang.example.net', type: 'domain', risk: 'high' }],
          links: [{ iid: 70, tid: 7, stamp_linked: '2026-01-02 00:00:00' }],
        },
        world.clock,
      );
      cursor = (await world.taxii()).last!;
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    /** The objects added after the cursor (by TAXII date_added), and the cursor moved past them. */
    async function since(): Promise<StixObject[]> {
      const { objects, last } = await world.taxii(`&added_after=${encodeURIComponent(cursor)}`);
      if (last !== undefined) cursor = last;
      return objects;
    }
    const threatsOf = (objects: StixObject[]) => objects.filter((o) => o.type === 'malware');
    const relationshipsOf = (objects: StixObject[], type: string) => objects.filter((o) => o.type === 'relationship' && o.relationship_type === type);
    let first: StixObject;
    let firstLink: StixObject;

    it('before: one malware object and its indicates relationship', async () => {
      const all = (await world.taxii()).objects;
      [first] = threatsOf(all) as [StixObject];
      [firstLink] = relationshipsOf(all, 'indicates') as [StixObject];
      assert.equal(first.x_threatgate_tid, 7);
      assert.equal(firstLink.target_ref, first.id);
    });

    it('retired: a new version of the same object, revoked', async () => {
      world.clock.advance(60_000);
      await setThreatRetired(world.store, 7, true, world.clock);
      const delta = await since();
      assert.deepEqual(delta.map((o) => o.id), [first.id]);
      assert.equal(delta[0]!.revoked, true);
    });

    let second: StixObject;
    it('reactivated: a new object (not a version of the revoked one), derived from it, with a new relationship; the old relationship is revoked', async () => {
      world.clock.advance(60_000);
      await setThreatRetired(world.store, 7, false, world.clock);
      const delta = await since();
      const threats = threatsOf(delta);
      assert.equal(threats.length, 1);
      second = threats[0]!;
      assert.notEqual(second.id, first.id);
      assert.equal(second.revoked, undefined);
      assert.equal(second.name, 'Boomerang');
      assert.equal(second.x_threatgate_tid, 7);
      const [derived] = relationshipsOf(delta, 'derived-from');
      assert.equal(derived?.source_ref, second.id);
      assert.equal(derived?.target_ref, first.id);
      const indicates = relationshipsOf(delta, 'indicates');
      const revoked = indicates.filter((r) => r.revoked === true);
      const live = indicates.filter((r) => r.revoked !== true);
      assert.deepEqual(revoked.map((r) => r.id), [firstLink.id]);
      assert.equal(live.length, 1);
      assert.equal(live[0]!.target_ref, second.id);
      assert.notEqual(live[0]!.id, firstLink.id);
      // The revoked object is never published again.
      assert.equal(delta.some((o) => o.id === first.id), false);
      // The whole collection: the revoked first object, the live second, each relationship once.
      const all = (await world.taxii()).objects;
      assert.deepEqual(threatsOf(all).map((o) => [o.id, o.revoked ?? false]).sort(), [[first.id, true], [second.id, false]].sort());
    });

    it('retired and reactivated again: a third object derived from the second', async () => {
      world.clock.advance(60_000);
      await setThreatRetired(world.store, 7, true, world.clock);
      assert.deepEqual((await since()).map((o) => [o.id, o.revoked]), [[second.id, true]]);
      world.clock.advance(60_000);
      await setThreatRetired(world.store, 7, false, world.clock);
      const delta = await since();
      const [third] = threatsOf(delta);
      assert.ok(third && third.id !== first.id && third.id !== second.id);
      const [derived] = relationshipsOf(delta, 'derived-from');
      assert.deepEqual([derived?.source_ref, derived?.target_ref], [third.id, second.id]);
      const indicates = relationshipsOf(delta, 'indicates');
      assert.equal(indicates.filter((r) => r.revoked === true).length, 1);
      assert.deepEqual(indicates.filter((r) => r.revoked !== true).map((r) => r.target_ref), [third.id]);
      // The lookup API knows nothing of generations: the same threat, active.
      const threat = (await world.api('threat.php', { tid: 7 })) as { retired: boolean | null; threat: string };
      assert.notEqual(threat.retired, true);
    });
  });
}
