// The STIX sync of imports: new versions when a record changes, and revoked objects when one leaves the export (both stores).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { stixIdForIndicator, stixIdForThreat } from '../../src/stix/index.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import {
  actualView,
  ALL,
  expectedView,
  FEED_1,
  FEED_3,
  HIGH,
  maxDate,
  type Member,
  members,
  minute,
  only,
  SAMPLE,
  snapshot,
  storeWithViews,
  THREAT_2,
  VIEWS,
} from './stix-sync-views.js';

for (const backend of storeBackends()) {
  describe(`STIX sync (${backend.name})`, () => {
    after(() => backend.cleanup());

    describe('new versions on change', () => {
      let store: Store;
      let data: Dataset;
      before(async () => {
        ({ store, data } = await storeWithViews(backend));
      });
      after(() => store.close());

      it('re-importing the same data changes no version and no date_added', async () => {
        const before = await Promise.all(VIEWS.map((v) => snapshot(store, v.id)));
        await importDataset(store, buildFixture(), minute(1));
        assert.deepEqual(await Promise.all(VIEWS.map((v) => snapshot(store, v.id))), before);
      });

      it('a changed indicator gets a later modified and a date_added after everything else, in every view holding it', async () => {
        const id = stixIdForIndicator(3);
        const before = await Promise.all([ALL, SAMPLE, FEED_1, HIGH, THREAT_2].map((c) => members(store, c)));
        const indicator = { ...buildFixture().indicators[2]!, risk: 'high' as const };
        assert.equal(buildFixture().indicators[2]!.risk, 'critical');
        await importDataset(store, only({ indicators: [indicator] }), minute(2));
        for (const [i, collection] of [ALL, SAMPLE, FEED_1, HIGH, THREAT_2].entries()) {
          const old = before[i]!;
          const now = await members(store, collection);
          const changed = now.find((m) => m.id === id)!;
          assert.ok(changed.modified > old.find((m) => m.id === id)!.modified, `${collection}: modified ${changed.modified} did not move on`);
          assert.ok(changed.dateAdded > maxDate(old), `${collection}: not after the previous newest`);
          assert.equal(changed.object.modified, changed.modified);
          const untouched = (list: Member[]) => list.filter((m) => m.id !== id).map((m) => `${m.id} ${m.modified} ${m.dateAdded}`);
          assert.deepEqual(untouched(now), untouched(old));
        }
      });

      it('an indicator whose risk rises joins a minRisk view; one whose risk falls leaves it', async () => {
        const old = await members(store, HIGH);
        const [one, two] = [buildFixture().indicators[0]!, buildFixture().indicators[1]!];
        assert.equal(one.risk, 'medium');
        assert.equal(two.risk, 'high');
        await importDataset(store, only({ indicators: [{ ...one, risk: 'critical' }, { ...two, risk: 'low' }] }), minute(3));
        const now = await members(store, HIGH);
        const ids = new Set(now.map((m) => m.id));
        assert.ok(ids.has(stixIdForIndicator(1)), 'indicator 1 did not join');
        assert.ok(!ids.has(stixIdForIndicator(2)), 'indicator 2 did not leave');
        assert.ok(now.find((m) => m.id === stixIdForIndicator(1))!.dateAdded > maxDate(old), 'indicator 1 joined with an old date_added');
        assert.ok((await members(store, ALL)).some((m) => m.id === stixIdForIndicator(2)), 'still in the unfiltered view');
      });

      it('an unchanged indicator that joins a feed view gets a fresh date_added there only', async () => {
        // Indicator 24 is in feed 2 (Sinkhole Org); a link to feed 3 keeps its created_by_ref, so no new version.
        const allBefore = await snapshot(store, ALL);
        const feedBefore = await members(store, FEED_3);
        await importDataset(store, only({ links: [{ iid: 24, fid: 3, stamp_linked: '2025-12-01 00:00:00' }] }), minute(4));
        const feedNow = await members(store, FEED_3);
        const joined = feedNow.filter((m) => !feedBefore.some((b) => b.id === m.id));
        assert.deepEqual(actualView(joined), expectedView(data, [24]));
        for (const m of joined) assert.ok(m.dateAdded > maxDate(feedBefore), `${m.id} joined with an old date_added`);
        assert.equal(new Set(feedNow.map((m) => m.dateAdded)).size, feedNow.length, 'two members share a date_added');
        assert.deepEqual(await snapshot(store, ALL), allBefore);
      });
    });

    describe('stale objects', () => {
      let store: Store;
      let data: Dataset;
      before(async () => {
        ({ store, data } = await storeWithViews(backend));
      });
      after(() => store.close());

      /** The list without the objects that left the export (a retired threat is revoked too, and stays). */
      const live = (list: Member[], gone: Iterable<string>) => list.filter((m) => !new Set(gone).has(m.id));
      const revokedIds = (list: Member[]) => new Set(list.filter((m) => m.object.revoked === (true as unknown as string)).map((m) => m.id));

      it('a threat whose category changes its STIX type is a new object; the old one and its relationships are revoked in every view', async () => {
        const zeus = buildFixture().threats[0]!;
        const oldId = stixIdForThreat(zeus);
        const group: Threat = { ...zeus, category: 'apt' };
        const newId = stixIdForThreat(group);
        assert.ok(oldId.startsWith('malware--') && newId.startsWith('intrusion-set--'), `${oldId} -> ${newId}`);
        const oldRelationships = (await members(store, ALL)).filter((m) => m.object.target_ref === oldId).map((m) => m.id);
        assert.equal(oldRelationships.length, 12);
        await importDataset(store, only({ threats: [group] }), minute(1));
        const changed = { ...data, threats: data.threats.map((t) => (t.tid === 1 ? group : t)) };
        for (const [collection, iids, relationships] of [
          [ALL, data.indicators.map((i) => i.iid), 12],
          [SAMPLE, [1, 2, 3, 4, 5], 5],
        ] as const) {
          const list = await members(store, collection);
          const revoked = revokedIds(list);
          assert.ok(revoked.has(oldId), 'the malware object is revoked');
          assert.equal(oldRelationships.filter((r) => revoked.has(r)).length, relationships, 'its relationships are revoked');
          assert.equal(list.find((m) => m.id === newId)?.object.name, 'Zeus');
          assert.deepEqual(actualView(live(list, [oldId, ...oldRelationships])), expectedView(changed, [...iids], undefined, collection === ALL));
        }
      });

      it('an indicator whose value no pattern of its new type holds is revoked, with its relationships', async () => {
        const three = { ...buildFixture().indicators[2]!, type: 'md5', indicator: 'Global\\zeus-mutex' };
        await importDataset(store, only({ indicators: [three] }), minute(2));
        for (const collection of [ALL, SAMPLE, THREAT_2]) {
          const list = await members(store, collection);
          const revoked = revokedIds(list);
          assert.ok(revoked.has(stixIdForIndicator(3)), `${collection}: indicator 3 is not revoked`);
          const relationships = list.filter((m) => m.object.source_ref === stixIdForIndicator(3));
          assert.ok(relationships.length > 0 && relationships.every((m) => revoked.has(m.id)), `${collection}: a relationship of indicator 3 is not revoked`);
          assert.ok(!live(list, revoked).some((m) => m.object.source_ref === stixIdForIndicator(3) || m.id === stixIdForIndicator(3)));
        }
      });
    });
  });
}
