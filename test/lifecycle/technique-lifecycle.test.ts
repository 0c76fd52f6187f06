// A threat's ATT&CK technique relationships through retirement and reactivation, as TAXII shows them, on SQLite
// and PostgreSQL (docs/stix-mapping.md, "ATT&CK techniques"): they follow the threat's object as its indicates
// relationships do.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { setThreatRetired } from '../../src/lifecycle/run-lifecycle.js';
import { stixIdForAttackPattern } from '../../src/stix/index.js';
import { openPullWorld, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const TTPS = [
  { id: 'T1566.001', tactic: 'initial-access', name: 'Phishing: Spearphishing Attachment' },
  { id: 'T1105', tactic: 'command-and-control', name: 'Ingress Tool Transfer' },
];

for (const backend of storeBackends()) {
  describe(`a retired threat's techniques, as TAXII shows them (${backend.name})`, () => {
    let world: PullWorld;
    let cursor: string;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(
        world.store,
        {
          threats: [{ tid: 7, threat: 'Boomerang', category: 'botnet', risk: 'high', stamp_added: '2026-01-01 00:00:00', ttps: TTPS }],
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

    async function since(): Promise<StixObject[]> {
      const { objects, last } = await world.taxii(`&added_after=${encodeURIComponent(cursor)}`);
      if (last !== undefined) cursor = last;
      return objects;
    }
    const techniqueLinks = (objects: StixObject[]) =>
      objects.filter((o) => o.type === 'relationship' && String(o.target_ref).startsWith('attack-pattern--'));
    let first: StixObject;
    let firstUses: StixObject[];

    it('before: the malware object uses both techniques', async () => {
      const all = (await world.taxii()).objects;
      first = all.find((o) => o.type === 'malware')!;
      firstUses = techniqueLinks(all);
      assert.deepEqual(firstUses.map((r) => [r.relationship_type, r.source_ref]), [['uses', first.id], ['uses', first.id]]);
      assert.deepEqual(firstUses.map((r) => r.target_ref).sort(), [stixIdForAttackPattern('T1105'), stixIdForAttackPattern('T1566.001')].sort());
    });

    it('retired: only the threat object gets a new, revoked version; its technique relationships stay as they were', async () => {
      world.clock.advance(60_000);
      await setThreatRetired(world.store, 7, true, world.clock);
      assert.deepEqual((await since()).map((o) => [o.id, o.revoked]), [[first.id, true]]);
    });

    it('reactivated: new relationships from the new object to the same attack-patterns; the old ones revoked; the attack-patterns untouched', async () => {
      world.clock.advance(60_000);
      await setThreatRetired(world.store, 7, false, world.clock);
      const delta = await since();
      const second = delta.find((o) => o.type === 'malware')!;
      assert.notEqual(second.id, first.id);
      const links = techniqueLinks(delta);
      const revoked = links.filter((r) => r.revoked === true);
      const live = links.filter((r) => r.revoked !== true);
      assert.deepEqual(revoked.map((r) => r.id).sort(), firstUses.map((r) => r.id).sort());
      assert.deepEqual(live.map((r) => [r.relationship_type, r.source_ref]), [['uses', second.id], ['uses', second.id]]);
      assert.deepEqual(live.map((r) => r.target_ref).sort(), firstUses.map((r) => r.target_ref).sort());
      assert.equal(live.some((r) => firstUses.some((f) => f.id === r.id)), false, 'new ids: the revoked ones are final');
      assert.equal(delta.some((o) => o.type === 'attack-pattern'), false);
    });

    it('after all that: every live technique relationship points at the live object', async () => {
      const all = (await world.taxii()).objects;
      const current = all.filter((o) => o.type === 'malware' && o.revoked !== true);
      assert.equal(current.length, 1);
      const live = techniqueLinks(all).filter((r) => r.revoked !== true);
      assert.equal(live.length, 2);
      for (const r of live) assert.equal(r.source_ref, current[0]!.id);
    });
  });
}
