// The saved views the STIX sync tests configure, and how they read a view's members and recompute what it must hold.
import assert from 'node:assert/strict';
import { loadConfig, type CollectionConfig } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { stixIdForIndicator, stixIdForThreat } from '../../src/stix/index.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { createConfiguredStore, type Backend } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';

export const ALL = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
export const SAMPLE = '981c4916-ebb2-4567-aece-54ae970c4230';
export const FEED_1 = '1f3a9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
export const FEED_3 = '2a4b6c8d-0e1f-4a3b-8c5d-6e7f8a9b0c1d';
export const HIGH = '3b5c7d9e-1f2a-4b4c-9d6e-7f8a9b0c1d2e';
export const THREAT_2 = '4c6d8e0f-2a3b-4c5d-ae7f-8a9b0c1d2e3f';

/** Overriding `collections` replaces the whole default list, so both defaults are repeated. */
export const VIEWS: CollectionConfig[] = [
  { id: SAMPLE, title: 'Test collection', free: true, filter: { sample: 5 } },
  { id: ALL, title: 'Indicators', free: false, filter: {} },
  { id: FEED_1, title: 'Feed 1', free: false, filter: { fid: 1 } },
  { id: FEED_3, title: 'Feed 3', free: false, filter: { fid: 3 } },
  { id: HIGH, title: 'High and critical', free: false, filter: { minRisk: 'high' } },
  { id: THREAT_2, title: 'Emotet', free: false, filter: { tid: 2 } },
];

export const DOMAINS = '5d7e9f1a-3b4c-4d6e-bf8a-9b0c1d2e3f4a';
export const EVERYTHING = '6e8f0a2b-4c5d-4e7f-8a9b-0c1d2e3f4a5b';
export const ADDED_VIEWS: CollectionConfig[] = [
  { id: DOMAINS, title: 'Domains', free: false, filter: { types: ['domain'] } },
  { id: EVERYTHING, title: 'Everything, again', free: false, filter: {} },
];

export interface Member {
  id: string;
  type: string;
  modified: string;
  dateAdded: number;
  object: Record<string, string>;
}

/** A new store on `backend`, configured with VIEWS, holding the fixture imported at `fixedClock`. */
export async function storeWithViews(backend: Backend): Promise<{ store: Store; data: Dataset; location: string }> {
  const { store, location } = await createConfiguredStore(backend, loadConfig({ overrides: { collections: VIEWS } }));
  const data = buildFixture();
  await importDataset(store, data, fixedClock);
  return { store, data, location };
}

export async function members(store: Store, id: string): Promise<Member[]> {
  const collection = [...VIEWS, ...ADDED_VIEWS].find((v) => v.id === id)!;
  const { items, more, skipped } = await store.listCollectionObjects({ collection, after: null, addedAfter: null, ids: null, types: null, modified: null, limit: 100_000, withBody: true });
  assert.equal(more, false);
  assert.deepEqual(skipped, [], 'no object may stop matching its records');
  return items.map((item) => ({ ...item, object: JSON.parse(item.body!) }));
}

export const sorted = (values: Iterable<string>) => [...values].sort();

/** What a view over these indicators must hold, recomputed from the fixture records. */
export function expectedView(data: Dataset, iids: number[], onlyTid?: number, everyThreat = false) {
  const links = data.links.filter((l): l is { iid: number; tid: number; stamp_linked: string } => 'tid' in l && iids.includes(l.iid) && (onlyTid === undefined || l.tid === onlyTid));
  const threatId = (tid: number) => stixIdForThreat(data.threats.find((t) => t.tid === tid)!);
  const tids = everyThreat ? data.threats.map((t) => t.tid) : links.map((l) => l.tid);
  return {
    indicators: sorted(iids.map(stixIdForIndicator)),
    threats: sorted(new Set(tids.map(threatId))),
    relationships: sorted(links.map((l) => `${stixIdForIndicator(l.iid)} indicates ${threatId(l.tid)}`)),
  };
}

export function actualView(list: Member[]) {
  return {
    indicators: sorted(list.filter((m) => m.type === 'indicator').map((m) => m.id)),
    threats: sorted(list.filter((m) => !['indicator', 'relationship', 'identity'].includes(m.type)).map((m) => m.id)),
    relationships: sorted(list.filter((m) => m.type === 'relationship').map((m) => `${m.object.source_ref} ${m.object.relationship_type} ${m.object.target_ref}`)),
  };
}

export const snapshot = async (store: Store, collection: string) => new Map((await members(store, collection)).map((m) => [m.id, `${m.modified} ${m.dateAdded}`]));
export const maxDate = (list: Member[]) => Math.max(...list.map((m) => m.dateAdded));
export const minute = (n: number) => ({ now: () => fixedClock.now() + n * 60_000 });
export const only = (part: Partial<Dataset>): Dataset => ({ threats: [], feeds: [], indicators: [], links: [], ...part });
