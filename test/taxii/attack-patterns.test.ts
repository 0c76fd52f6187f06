// Threats' ATT&CK techniques as TAXII serves them (docs/stix-mapping.md, "ATT&CK techniques"), on SQLite and PostgreSQL: one attack-pattern per
// technique, a relationship from each threat to each of its techniques, in every collection that holds the
// threat, and what a poller sees after its cursor when ttps change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Express } from 'express';
import { createApp } from '../../src/app.js';
import { createKey } from '../../src/cli/keys-command.js';
import { loadConfig, type CollectionConfig } from '../../src/config.js';
import type { Threat } from '../../src/domain.js';
import { createLogger } from '../../src/logger.js';
import { importDataset } from '../../src/import/import-file.js';
import { stixIdForAttackPattern, stixIdForThreatRecord } from '../../src/stix/index.js';
import type { WriteSummary } from '../../src/store/contract/commands.js';
import type { Store } from '../../src/store/contract/store.js';
import { manualClock } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';
import { collectionPath, INDICATORS_COLLECTION, TEST_COLLECTION, walk } from './taxii-request.js';

const COBALT_VIEW = '5e7f9a1b-3c4d-4e6f-8a0b-1c2d3e4f5a6b';
const COLLECTIONS: CollectionConfig[] = [
  { id: TEST_COLLECTION, title: 'Test collection', free: true, filter: { sample: 1 } },
  { id: INDICATORS_COLLECTION, title: 'Indicators', free: false, filter: {} },
  { id: COBALT_VIEW, title: 'Cobalt', free: false, filter: { tid: 2 } },
];
const config = loadConfig({ overrides: { ...GENEROUS_PLANS, collections: COLLECTIONS, cache: { versionCheckMs: 0 } } });

type StixObject = Record<string, unknown> & { id: string; type: string; modified: string };
type Ttp = Record<string, unknown>;

const SPEARPHISHING = { id: 'T1566.001', tactic: 'initial-access', name: 'Phishing: Spearphishing Attachment' };
const threat = (tid: number, name: string, category: string, ttps: Ttp[]): Partial<Threat> => ({ tid, threat: name, category, risk: 'high', stamp_added: '2026-01-01 00:00:00', ttps: ttps as Threat['ttps'] });
const threats = (vexorat: Ttp[], cobalt: Ttp[]) => [
  // malware: uses
  threat(1, 'Vexorat', 'rat', vexorat),
  // intrusion-set: uses
  threat(2, 'Cobalt Cluster', 'apt', cobalt),
  // infrastructure: related-to
  threat(3, 'Sweeper', 'scanner', [{ id: 'T1595.001', tactic: 'Reconnaissance', name: 'Active Scanning: Scanning IP Blocks' }]),
];
const FIRST = threats(
  [SPEARPHISHING, { id: 't1071.001', tactic: 'Command and Control', name: 'Application Layer Protocol: Web Protocols' }, { id: 'not-a-technique' }, { name: 'no id' }],
  [{ ...SPEARPHISHING, name: 'Spearphishing Attachment', tactic: 'initial_access' }, { id: 'T1078', tactic: 'Persistence' }],
);
const dataset = (list: Partial<Threat>[]) => ({
  threats: list,
  feeds: [],
  indicators: [1, 2, 3].map((iid) => ({ iid, indicator: `host${iid}.example.net`, type: 'domain', risk: 'high', stamp_added: '2026-01-02 00:00:00' })),
  links: [1, 2, 3].map((iid) => ({ iid, tid: iid, stamp_linked: '2026-01-03 00:00:00' })),
});

const byType = (objects: StixObject[], type: string) => objects.filter((o) => o.type === type);
const technique = (o: StixObject) => (o.external_references as { external_id: string }[])[0]!.external_id;
/** Each technique relationship as "source type > relationship type > technique", sorted. */
function uses(objects: StixObject[]): string[] {
  const patterns = new Map(byType(objects, 'attack-pattern').map((o) => [o.id, technique(o)]));
  return objects
    .filter((o) => o.type === 'relationship' && String(o.target_ref).startsWith('attack-pattern--') && o.revoked !== true)
    .map((o) => `${String(o.source_ref).split('--')[0]} > ${o.relationship_type} > ${patterns.get(String(o.target_ref)) ?? o.target_ref}`)
    .sort();
}

for (const backend of storeBackends()) {
  describe(`TAXII › ATT&CK techniques as attack-patterns (${backend.name})`, () => {
    const clock = manualClock();
    let store: Store;
    let app: Express;
    let keys: { pro: string; free: string };
    let summary: WriteSummary;
    before(async () => {
      ({ store } = await backend.create({ collections: COLLECTIONS }));
      app = createApp(config, { store, clock, logger: createLogger('error', () => {}), nextTokenSecret: TEST_NEXT_SECRET });
      keys = { pro: (await createKey(store, config, clock, 'pro', 'pro')).key, free: (await createKey(store, config, clock, 'free', 'free')).key };
      summary = await importDataset(store, dataset(FIRST), clock);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    async function objects(collection: string, query = '', key = keys.pro): Promise<{ objects: StixObject[]; last: string | undefined }> {
      const pages = await walk(app, key, `${collectionPath(collection)}objects/?limit=4${query}`);
      return { objects: pages.flatMap((p) => (p.body.objects ?? []) as StixObject[]), last: pages.findLast((p) => p.last)?.last };
    }

    describe('after an import of three threats with ttps', () => {
      it('counts the ttps items without a technique id in the import summary', () => {
        assert.equal(summary.skippedTtps, 2);
      });

      it('serves one attack-pattern per distinct technique, referenced to ATT&CK', async () => {
        const patterns = byType((await objects(INDICATORS_COLLECTION)).objects, 'attack-pattern');
        assert.deepEqual(patterns.map(technique).sort(), ['T1071.001', 'T1078', 'T1566.001', 'T1595.001']);
        const phishing = patterns.find((o) => technique(o) === 'T1566.001')!;
        assert.equal(phishing.id, stixIdForAttackPattern('T1566.001'));
        // Vexorat (tid 1) names it first; both threats' tactics normalize to the same phase.
        assert.equal(phishing.name, 'Phishing: Spearphishing Attachment');
        assert.deepEqual(phishing.external_references, [
          { source_name: 'mitre-attack', external_id: 'T1566.001', url: 'https://attack.mitre.org/techniques/T1566/001' },
        ]);
        assert.deepEqual(phishing.kill_chain_phases, [{ kill_chain_name: 'mitre-attack', phase_name: 'initial-access' }]);
        const c2 = patterns.find((o) => technique(o) === 'T1071.001')!;
        assert.deepEqual(c2.kill_chain_phases, [{ kill_chain_name: 'mitre-attack', phase_name: 'command-and-control' }]);
        const accounts = patterns.find((o) => technique(o) === 'T1078')!;
        assert.equal(accounts.name, 'T1078');
        assert.equal(accounts.external_references && (accounts.external_references as { url: string }[])[0]!.url, 'https://attack.mitre.org/techniques/T1078');
      });

      it('relates each threat to each of its techniques: uses from malware and intrusion-set, related-to from infrastructure', async () => {
        const all = (await objects(INDICATORS_COLLECTION)).objects;
        assert.deepEqual(uses(all), [
          'infrastructure > related-to > T1595.001',
          'intrusion-set > uses > T1078',
          'intrusion-set > uses > T1566.001',
          'malware > uses > T1071.001',
          'malware > uses > T1566.001',
        ]);
        const vexorat = stixIdForThreatRecord(1, 'malware');
        assert.ok(all.some((o) => o.id === vexorat), 'the source of the uses relationships is served');
      });

      it('gives a filtered view only the techniques of its threats, with their relationships', async () => {
        const view = (await objects(COBALT_VIEW)).objects;
        assert.deepEqual(byType(view, 'attack-pattern').map(technique).sort(), ['T1078', 'T1566.001']);
        assert.deepEqual(uses(view), ['intrusion-set > uses > T1078', 'intrusion-set > uses > T1566.001']);
      });

      it('gives the free test collection, read with a Free key, the techniques of its sample\'s threat', async () => {
        const sample = (await objects(TEST_COLLECTION, '', keys.free)).objects;
        assert.deepEqual(byType(sample, 'attack-pattern').map(technique).sort(), ['T1071.001', 'T1566.001']);
        assert.deepEqual(uses(sample), ['malware > uses > T1071.001', 'malware > uses > T1566.001']);
      });
    });

    describe('when the ttps change', () => {
      const cursors = new Map<string, string>();
      const delta = new Map<string, StixObject[]>();
      let before0: StixObject[];
      before(async () => {
        before0 = (await objects(INDICATORS_COLLECTION)).objects;
        for (const c of [INDICATORS_COLLECTION, TEST_COLLECTION, COBALT_VIEW]) cursors.set(c, (await objects(c)).last!);
        clock.advance(60_000);
        // Vexorat drops T1071.001 and renames T1566.001; Cobalt gives T1078 a second tactic and cites T1059.001.
        const next = threats(
          [{ ...SPEARPHISHING, name: 'Spearphishing Attachment' }],
          [SPEARPHISHING, { id: 'T1078', tactic: ['persistence', 'Initial Access'] }, { id: 'T1059.001', tactic: 'execution', name: 'PowerShell' }],
        );
        await importDataset(store, dataset(next), clock);
        for (const c of [INDICATORS_COLLECTION, TEST_COLLECTION, COBALT_VIEW]) delta.set(c, (await objects(c, `&added_after=${cursors.get(c)}`)).objects);
      });

      it('publishes after the cursor the revoked final version of the dropped technique\'s relationship', () => {
        const dropped = before0.find((o) => o.type === 'relationship' && o.target_ref === stixIdForAttackPattern('T1071.001'))!;
        for (const c of [INDICATORS_COLLECTION, TEST_COLLECTION]) {
          const final = delta.get(c)!.find((o) => o.id === dropped.id);
          assert.ok(final, `the revoked relationship is served after the cursor in ${c.slice(0, 8)}`);
          assert.equal(final.revoked, true);
          assert.equal(final.created, dropped.created);
          assert.ok(final.modified > dropped.modified);
          assert.deepEqual({ ...final, modified: dropped.modified, revoked: undefined }, { ...dropped, revoked: undefined });
        }
      });

      it('publishes new versions of the attack-patterns whose name or tactics changed, and the new technique with its relationship', () => {
        const changed = delta.get(INDICATORS_COLLECTION)!;
        const patterns = byType(changed, 'attack-pattern');
        assert.deepEqual(patterns.map(technique).sort(), ['T1059.001', 'T1078', 'T1566.001']);
        const phishing = patterns.find((o) => technique(o) === 'T1566.001')!;
        assert.equal(phishing.name, 'Spearphishing Attachment');
        const accounts = patterns.find((o) => technique(o) === 'T1078')!;
        assert.deepEqual((accounts.kill_chain_phases as { phase_name: string }[]).map((p) => p.phase_name), ['initial-access', 'persistence']);
        const earlier = before0.find((o) => o.id === accounts.id)!;
        assert.equal(accounts.created, earlier.created);
        assert.ok(accounts.modified > earlier.modified);
        assert.deepEqual(uses(changed), ['intrusion-set > uses > T1059.001']);
      });

      it('leaves the attack-pattern no threat cites any more as it was, not revoked', async () => {
        assert.equal(delta.get(INDICATORS_COLLECTION)!.some((o) => o.id === stixIdForAttackPattern('T1071.001')), false);
        const all = (await objects(INDICATORS_COLLECTION)).objects;
        assert.equal(all.find((o) => o.id === stixIdForAttackPattern('T1071.001'))?.revoked, undefined);
      });

      it('shows a filtered view the changes of its threat alone', () => {
        const view = delta.get(COBALT_VIEW)!;
        assert.deepEqual(byType(view, 'attack-pattern').map(technique).sort(), ['T1059.001', 'T1078', 'T1566.001']);
        assert.deepEqual(uses(view), ['intrusion-set > uses > T1059.001']);
        assert.equal(view.some((o) => o.revoked === true), false);
      });

      it('serves every threat relationship once as the current state', async () => {
        assert.deepEqual(uses((await objects(INDICATORS_COLLECTION)).objects), [
          'infrastructure > related-to > T1595.001',
          'intrusion-set > uses > T1059.001',
          'intrusion-set > uses > T1078',
          'intrusion-set > uses > T1566.001',
          'malware > uses > T1566.001',
        ]);
      });
    });

    describe('when a dropped technique is cited again', () => {
      it('publishes a new relationship under a new id, as the revoked one is final', async () => {
        const { objects: all, last } = await objects(INDICATORS_COLLECTION);
        const revoked = all.find((o) => o.type === 'relationship' && o.target_ref === stixIdForAttackPattern('T1071.001'))!;
        assert.equal(revoked.revoked, true);
        clock.advance(60_000);
        await importDataset(store, dataset(threats([SPEARPHISHING, { id: 'T1071.001', tactic: 'command-and-control' }], [SPEARPHISHING])), clock);
        const after = (await objects(INDICATORS_COLLECTION, `&added_after=${last}`)).objects;
        const cited = after.filter((o) => o.type === 'relationship' && o.target_ref === stixIdForAttackPattern('T1071.001'));
        assert.equal(cited.length, 1);
        assert.notEqual(cited[0]!.id, revoked.id);
        assert.equal(cited[0]!.revoked, undefined);
        assert.equal(cited[0]!.relationship_type, 'uses');
      });
    });

    describe('when the same data is imported again', () => {
      it('publishes nothing new', async () => {
        const { last } = await objects(INDICATORS_COLLECTION);
        clock.advance(60_000);
        await importDataset(store, dataset(threats([SPEARPHISHING, { id: 'T1071.001', tactic: 'command-and-control' }], [SPEARPHISHING])), clock);
        assert.deepEqual((await objects(INDICATORS_COLLECTION, `&added_after=${last}`)).objects, []);
      });
    });
  });
}
