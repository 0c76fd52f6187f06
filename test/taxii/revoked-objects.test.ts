// Objects that leave the export: a poller resuming after its cursor sees their final, revoked versions (both stores).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig, type CollectionConfig } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import { stixIdForIndicator, stixIdForIndicatorLink, stixIdForThreatRecord } from '../../src/stix/index.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { openInstance, seedDatabase, type Instance } from '../helpers/gateway-instances.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock, GENEROUS_PLANS } from '../helpers/test-app.js';
import { collectionPath, INDICATORS_COLLECTION, TEST_COLLECTION, taxiiGet, walk } from './taxii-request.js';

const EMOTET_VIEW = '4c6d8e0f-2a3b-4c5d-ae7f-8a9b0c1d2e3f';
const HIGH_VIEW = '3b5c7d9e-1f2a-4b4c-9d6e-7f8a9b0c1d2e';
const COLLECTIONS: CollectionConfig[] = [
  { id: TEST_COLLECTION, title: 'Test collection', free: true, filter: { sample: 5 } },
  { id: INDICATORS_COLLECTION, title: 'Indicators', free: false, filter: {} },
  { id: EMOTET_VIEW, title: 'Emotet', free: false, filter: { tid: 2 } },
  { id: HIGH_VIEW, title: 'High and critical', free: false, filter: { minRisk: 'high' } },
];
// Pages are cached per data version; the walks here re-read it on every request.
const config = loadConfig({ overrides: { ...GENEROUS_PLANS, collections: COLLECTIONS, cache: { versionCheckMs: 0 } } });

type StixObject = Record<string, unknown> & { id: string; modified: string };
const at = (minutes: number) => ({ now: () => fixedClock.now() + minutes * 60_000 });
const only = (part: Partial<Dataset>): Dataset => ({ threats: [], feeds: [], indicators: [], links: [], ...part });

/** Emotet (tid 2) is a botnet, so `malware`; as an APT it becomes an `intrusion-set`, a new object. */
const emotetAs = (category: string) => buildFixture().threats.map((t) => (t.tid === 2 ? { ...t, category } : t));
/** Indicator 24 (an address linked to Emotet) typed as an MD5 hash: no pattern can hold its value. */
const withoutPattern = () => buildFixture().indicators.map((i) => (i.iid === 24 ? { ...i, type: 'md5' } : i));
const EMOTET_IIDS = [3, 6, 24, 25, 27];

for (const backend of storeBackends()) {
  describe(`TAXII › objects that leave the export (${backend.name})`, () => {
    let instance: Instance;
    let key: string;
    before(async () => {
      const seeded = await seedDatabase(backend, config);
      key = seeded.keys.pro!;
      instance = await openInstance(seeded.location, config);
    });
    after(async () => {
      await instance.close();
      await backend.cleanup();
    });

    const objects = async (collection: string, query: string): Promise<{ objects: StixObject[]; last: string | undefined }> => {
      const pages = await walk(instance.app, key, `${collectionPath(collection)}objects/?limit=7${query}`);
      return { objects: pages.flatMap((p) => (p.body.objects ?? []) as StixObject[]), last: pages.findLast((p) => p.last)?.last };
    };
    const byId = (list: StixObject[]) => new Map(list.map((o) => [o.id, o]));

    describe('after an import that turns a threat into another SDO type and takes an indicator\'s pattern away', () => {
      const held = new Map<string, Map<string, StixObject>>();
      const resumed = new Map<string, Map<string, StixObject>>();
      before(async () => {
        const cursors = new Map<string, string>();
        for (const collection of [INDICATORS_COLLECTION, EMOTET_VIEW]) {
          const walked = await objects(collection, '');
          held.set(collection, byId(walked.objects));
          cursors.set(collection, walked.last!);
        }
        await importDataset(instance.store, { ...buildFixture(), threats: emotetAs('apt'), indicators: withoutPattern() }, at(1));
        for (const collection of [INDICATORS_COLLECTION, EMOTET_VIEW]) {
          resumed.set(collection, byId((await objects(collection, `&added_after=${cursors.get(collection)}`)).objects));
        }
      });

      const oldThreat = stixIdForThreatRecord(2, 'malware');
      const oldLinks = EMOTET_IIDS.map((iid) => stixIdForIndicatorLink(iid, 2, 'malware'));
      const gone = [oldThreat, ...oldLinks, stixIdForIndicator(24)];

      for (const collection of [INDICATORS_COLLECTION, EMOTET_VIEW]) {
        describe(`collection ${collection.slice(0, 8)}`, () => {
          it('publishes after the cursor a revoked version of the old threat, its relationships and the indicator', () => {
            for (const id of gone) {
              const before = held.get(collection)!.get(id);
              const final = resumed.get(collection)!.get(id);
              assert.ok(before, `${id} was not held before`);
              assert.ok(final, `${id} vanished without a final version`);
              assert.equal(final.revoked, true, id);
              assert.ok(final.modified > before.modified, `${id}: modified did not move on`);
              // The final version repeats the one clients hold, apart from modified and revoked.
              const { modified: _m, revoked: _r, ...rest } = final;
              const { modified: _bm, revoked: _br, ...heldRest } = before;
              assert.deepEqual(rest, heldRest, id);
            }
          });

          it('publishes the threat under its new id with relationships to it, and none from the revoked indicator', () => {
            const newThreat = resumed.get(collection)!.get(stixIdForThreatRecord(2, 'intrusion-set'));
            assert.equal(newThreat?.type, 'intrusion-set');
            assert.equal(newThreat.revoked, undefined);
            const targets = [...resumed.get(collection)!.values()].filter((o) => o.type === 'relationship' && o.revoked === undefined);
            assert.deepEqual(
              targets.map((o) => o.source_ref).sort(),
              [3, 6, 25, 27].map(stixIdForIndicator).sort(),
            );
            assert.ok(targets.every((o) => o.target_ref === newThreat.id));
          });
        });
      }

      it('still answers every id a poller held, none with 404', async () => {
        for (const id of held.get(INDICATORS_COLLECTION)!.keys()) {
          await taxiiGet(instance.app, `${collectionPath(INDICATORS_COLLECTION)}objects/${id}/`, key).expect(200);
        }
      });

      it('publishes nothing new when the same import runs again', async () => {
        const { last } = await objects(INDICATORS_COLLECTION, '');
        await importDataset(instance.store, { ...buildFixture(), threats: emotetAs('apt'), indicators: withoutPattern() }, at(2));
        assert.deepEqual((await objects(INDICATORS_COLLECTION, `&added_after=${last}`)).objects, []);
      });

      it('never publishes a revoked id again: a threat changed back stays revoked under its first id', async () => {
        const { last } = await objects(INDICATORS_COLLECTION, '');
        await importDataset(instance.store, only({ threats: emotetAs('botnet') }), at(3));
        const after = byId((await objects(INDICATORS_COLLECTION, `&added_after=${last}`)).objects);
        assert.equal(after.get(stixIdForThreatRecord(2, 'intrusion-set'))?.revoked, true);
        assert.equal(after.has(oldThreat), false, 'a revoked id got another version');
        const res = await taxiiGet(instance.app, `${collectionPath(INDICATORS_COLLECTION)}objects/${oldThreat}/`, key).expect(200);
        assert.equal(res.body.objects[0].revoked, true);
      });
    });

    describe('after an import that lowers an indicator below a saved view\'s minimum risk', () => {
      it('gives it a new, valid version in the full collection and drops it from the view, unrevoked', async () => {
        const target = buildFixture().indicators.find((i) => i.risk === 'high' && !i.retired)!;
        const id = stixIdForIndicator(target.iid);
        assert.ok((await objects(HIGH_VIEW, '')).objects.some((o) => o.id === id));
        const { last } = await objects(INDICATORS_COLLECTION, '');
        await importDataset(instance.store, only({ indicators: [{ ...target, risk: 'low' }] }), at(4));
        const changed = (await objects(INDICATORS_COLLECTION, `&added_after=${last}`)).objects.find((o) => o.id === id);
        assert.equal(changed?.x_risk, 'low');
        assert.equal(changed.revoked, undefined);
        assert.equal((await objects(HIGH_VIEW, '')).objects.some((o) => o.id === id), false);
      });
    });
  });
}
