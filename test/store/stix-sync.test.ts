// The STIX sync of imports: collection membership of saved views, new versions on change, stale objects.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CollectionConfig } from '../../src/config.js';
import type { Indicator, Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/store.js';
import { stixIdForIndicator, stixIdForThreat } from '../../src/stix/index.js';
import { buildFixture, type Dataset } from '../helpers/fixture.js';
import { createTestContext, fixedClock, type TestContext } from '../helpers/test-app.js';

const ALL = 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37';
const SAMPLE = '981c4916-ebb2-4567-aece-54ae970c4230';
const FEED_1 = '1f3a9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';
const FEED_3 = '2a4b6c8d-0e1f-4a3b-8c5d-6e7f8a9b0c1d';
const HIGH = '3b5c7d9e-1f2a-4b4c-9d6e-7f8a9b0c1d2e';
const THREAT_2 = '4c6d8e0f-2a3b-4c5d-ae7f-8a9b0c1d2e3f';

/** Overriding `collections` replaces the whole default list, so both defaults are repeated. */
const VIEWS: CollectionConfig[] = [
  { id: SAMPLE, title: 'Test collection', free: true, filter: { sample: 5 } },
  { id: ALL, title: 'Indicators', free: false, filter: {} },
  { id: FEED_1, title: 'Feed 1', free: false, filter: { fid: 1 } },
  { id: FEED_3, title: 'Feed 3', free: false, filter: { fid: 3 } },
  { id: HIGH, title: 'High and critical', free: false, filter: { minRisk: 'high' } },
  { id: THREAT_2, title: 'Emotet', free: false, filter: { tid: 2 } },
];

interface Member {
  id: string;
  type: string;
  modified: string;
  dateAdded: number;
  object: Record<string, string>;
}

const DOMAINS = '5d7e9f1a-3b4c-4d6e-bf8a-9b0c1d2e3f4a';
const EVERYTHING = '6e8f0a2b-4c5d-4e7f-8a9b-0c1d2e3f4a5b';
const ADDED_VIEWS: CollectionConfig[] = [
  { id: DOMAINS, title: 'Domains', free: false, filter: { types: ['domain'] } },
  { id: EVERYTHING, title: 'Everything, again', free: false, filter: {} },
];

async function members(store: Store, id: string): Promise<Member[]> {
  const collection = [...VIEWS, ...ADDED_VIEWS].find((v) => v.id === id)!;
  const { items, more } = await store.listCollectionObjects({ collection, after: null, addedAfter: null, ids: null, types: null, modified: null, limit: 100_000, withBody: true });
  assert.equal(more, false);
  return items.map((item) => ({ ...item, object: JSON.parse(item.body!) }));
}

const sorted = (values: Iterable<string>) => [...values].sort();

/** What a view over these indicators must hold, recomputed from the fixture records. */
function expectedView(data: Dataset, iids: number[], onlyTid?: number, everyThreat = false) {
  const links = data.links.filter((l): l is { iid: number; tid: number; stamp_linked: string } => 'tid' in l && iids.includes(l.iid) && (onlyTid === undefined || l.tid === onlyTid));
  const threatId = (tid: number) => stixIdForThreat(data.threats.find((t) => t.tid === tid)!);
  const tids = everyThreat ? data.threats.map((t) => t.tid) : links.map((l) => l.tid);
  return {
    indicators: sorted(iids.map(stixIdForIndicator)),
    threats: sorted(new Set(tids.map(threatId))),
    relationships: sorted(links.map((l) => `${stixIdForIndicator(l.iid)} indicates ${threatId(l.tid)}`)),
  };
}

function actualView(list: Member[]) {
  return {
    indicators: sorted(list.filter((m) => m.type === 'indicator').map((m) => m.id)),
    threats: sorted(list.filter((m) => !['indicator', 'relationship', 'identity'].includes(m.type)).map((m) => m.id)),
    relationships: sorted(list.filter((m) => m.type === 'relationship').map((m) => `${m.object.source_ref} ${m.object.relationship_type} ${m.object.target_ref}`)),
  };
}

const snapshot = async (store: Store, collection: string) => new Map((await members(store, collection)).map((m) => [m.id, `${m.modified} ${m.dateAdded}`]));
const maxDate = (list: Member[]) => Math.max(...list.map((m) => m.dateAdded));
const minute = (n: number) => ({ now: () => fixedClock.now() + n * 60_000 });
const only = (part: Partial<Dataset>): Dataset => ({ threats: [], feeds: [], indicators: [], links: [], ...part });

describe('STIX sync: collection membership', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: { collections: VIEWS } });
  });
  after(() => ctx.close());

  const byIid = (pick: (i: Indicator) => boolean) => buildFixture().indicators.filter(pick).map((i) => i.iid);
  const fid = (n: number) => ctx.data.links.filter((l) => 'fid' in l && l.fid === n).map((l) => l.iid);
  const cases: [string, string, () => number[], number?][] = [
    ['the unfiltered view holds every indicator, threat link and threat, linked or not', ALL, () => byIid(() => true)],
    ['a sample of 5 holds the first 5 indicators by iid and what they link to', SAMPLE, () => [1, 2, 3, 4, 5]],
    ['a feed view holds the feed indicators and what they link to', FEED_1, () => fid(1)],
    ['a minRisk view holds high and critical indicators that are not retired', HIGH, () => byIid((i) => ['high', 'critical'].includes(i.risk) && !i.retired)],
    ['a threat view holds that threat, its indicators and only its relationships', THREAT_2, () => byIid((i) => [3, 6, 24, 25, 27].includes(i.iid)), 2],
  ];
  for (const [title, collection, iids, tid] of cases) {
    it(title, async () => {
      const list = await members(ctx.store, collection);
      assert.deepEqual(actualView(list), expectedView(ctx.data, iids(), tid, collection === ALL));
      assert.equal(list.filter((m) => m.type === 'identity').length, 3, 'threatgate and the two feed organizations');
    });
  }

  it('a view without indicators still lists the identities', async () => {
    assert.deepEqual(sorted((await members(ctx.store, FEED_3)).map((m) => m.type)), ['identity', 'identity', 'identity']);
  });

  for (const collection of [ALL, SAMPLE, FEED_1, HIGH, THREAT_2]) {
    it(`collection ${collection.slice(0, 8)}: date_added unique, in µs, the newest on a whole millisecond`, async () => {
      const list = await members(ctx.store, collection);
      assert.equal(new Set(list.map((m) => m.dateAdded)).size, list.length);
      assert.ok(list.every((m) => Number.isSafeInteger(m.dateAdded) && m.dateAdded >= fixedClock.now() * 1000), 'a date_added is not whole µs from the import');
      assert.equal(maxDate(list) % 1000, 0);
    });
  }

  it('a view serves the same stored object as the unfiltered view', async () => {
    const all = new Map((await members(ctx.store, ALL)).map((m) => [m.id, m.object]));
    for (const m of await members(ctx.store, HIGH)) assert.deepEqual(m.object, all.get(m.id));
  });
});

describe('STIX sync: new versions on change', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: { collections: VIEWS } });
  });
  after(() => ctx.close());

  it('re-importing the same data changes no version and no date_added', async () => {
    const before = await Promise.all(VIEWS.map((v) => snapshot(ctx.store, v.id)));
    await importDataset(ctx.store, buildFixture(), minute(1));
    assert.deepEqual(await Promise.all(VIEWS.map((v) => snapshot(ctx.store, v.id))), before);
  });

  it('a changed indicator gets a later modified and a date_added after everything else, in every view holding it', async () => {
    const id = stixIdForIndicator(3);
    const before = await Promise.all([ALL, SAMPLE, FEED_1, HIGH, THREAT_2].map((c) => members(ctx.store, c)));
    const indicator = { ...buildFixture().indicators[2]!, risk: 'high' as const };
    assert.equal(buildFixture().indicators[2]!.risk, 'critical');
    await importDataset(ctx.store, only({ indicators: [indicator] }), minute(2));
    for (const [i, collection] of [ALL, SAMPLE, FEED_1, HIGH, THREAT_2].entries()) {
      const old = before[i]!;
      const now = await members(ctx.store, collection);
      const changed = now.find((m) => m.id === id)!;
      assert.ok(changed.modified > old.find((m) => m.id === id)!.modified, `${collection}: modified ${changed.modified} did not move on`);
      assert.ok(changed.dateAdded > maxDate(old), `${collection}: not after the previous newest`);
      assert.equal(changed.object.modified, changed.modified);
      const untouched = (list: Member[]) => list.filter((m) => m.id !== id).map((m) => `${m.id} ${m.modified} ${m.dateAdded}`);
      assert.deepEqual(untouched(now), untouched(old));
    }
  });

  it('an indicator whose risk rises joins a minRisk view; one whose risk falls leaves it', async () => {
    const old = await members(ctx.store, HIGH);
    const [one, two] = [buildFixture().indicators[0]!, buildFixture().indicators[1]!];
    assert.equal(one.risk, 'medium');
    assert.equal(two.risk, 'high');
    await importDataset(ctx.store, only({ indicators: [{ ...one, risk: 'critical' }, { ...two, risk: 'low' }] }), minute(3));
    const now = await members(ctx.store, HIGH);
    const ids = new Set(now.map((m) => m.id));
    assert.ok(ids.has(stixIdForIndicator(1)), 'indicator 1 did not join');
    assert.ok(!ids.has(stixIdForIndicator(2)), 'indicator 2 did not leave');
    assert.ok(now.find((m) => m.id === stixIdForIndicator(1))!.dateAdded > maxDate(old), 'indicator 1 joined with an old date_added');
    assert.ok((await members(ctx.store, ALL)).some((m) => m.id === stixIdForIndicator(2)), 'still in the unfiltered view');
  });

  it('an unchanged indicator that joins a feed view gets a fresh date_added there only', async () => {
    // Indicator 24 is in feed 2 (Sinkhole Org); a link to feed 3 keeps its created_by_ref, so no new version.
    const allBefore = await snapshot(ctx.store, ALL);
    const feedBefore = await members(ctx.store, FEED_3);
    await importDataset(ctx.store, only({ links: [{ iid: 24, fid: 3, stamp_linked: '2025-12-01 00:00:00' }] }), minute(4));
    const feedNow = await members(ctx.store, FEED_3);
    const joined = feedNow.filter((m) => !feedBefore.some((b) => b.id === m.id));
    assert.deepEqual(actualView(joined), expectedView(ctx.data, [24]));
    for (const m of joined) assert.ok(m.dateAdded > maxDate(feedBefore), `${m.id} joined with an old date_added`);
    assert.equal(new Set(feedNow.map((m) => m.dateAdded)).size, feedNow.length, 'two members share a date_added');
    assert.deepEqual(await snapshot(ctx.store, ALL), allBefore);
  });
});

describe('STIX sync: stale objects', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: { collections: VIEWS } });
  });
  after(() => ctx.close());

  /** The list without the objects that left the export (a retired threat is revoked too, and stays). */
  const live = (list: Member[], gone: Iterable<string>) => list.filter((m) => !new Set(gone).has(m.id));
  const revokedIds = (list: Member[]) => new Set(list.filter((m) => m.object.revoked === (true as unknown as string)).map((m) => m.id));

  it('a threat whose category changes its STIX type is a new object; the old one and its relationships are revoked in every view', async () => {
    const zeus = buildFixture().threats[0]!;
    const oldId = stixIdForThreat(zeus);
    const group: Threat = { ...zeus, category: 'apt' };
    const newId = stixIdForThreat(group);
    assert.ok(oldId.startsWith('malware--') && newId.startsWith('intrusion-set--'), `${oldId} -> ${newId}`);
    const oldRelationships = (await members(ctx.store, ALL)).filter((m) => m.object.target_ref === oldId).map((m) => m.id);
    assert.equal(oldRelationships.length, 12);
    await importDataset(ctx.store, only({ threats: [group] }), minute(1));
    const data = { ...ctx.data, threats: ctx.data.threats.map((t) => (t.tid === 1 ? group : t)) };
    for (const [collection, iids, relationships] of [
      [ALL, ctx.data.indicators.map((i) => i.iid), 12],
      [SAMPLE, [1, 2, 3, 4, 5], 5],
    ] as const) {
      const list = await members(ctx.store, collection);
      const revoked = revokedIds(list);
      assert.ok(revoked.has(oldId), 'the malware object is revoked');
      assert.equal(oldRelationships.filter((r) => revoked.has(r)).length, relationships, 'its relationships are revoked');
      assert.equal(list.find((m) => m.id === newId)?.object.name, 'Zeus');
      assert.deepEqual(actualView(live(list, [oldId, ...oldRelationships])), expectedView(data, [...iids], undefined, collection === ALL));
    }
  });

  it('an indicator whose value no pattern of its new type holds is revoked, with its relationships', async () => {
    const three = { ...buildFixture().indicators[2]!, type: 'md5', indicator: 'Global\\zeus-mutex' };
    await importDataset(ctx.store, only({ indicators: [three] }), minute(2));
    for (const collection of [ALL, SAMPLE, THREAT_2]) {
      const list = await members(ctx.store, collection);
      const revoked = revokedIds(list);
      assert.ok(revoked.has(stixIdForIndicator(3)), `${collection}: indicator 3 is not revoked`);
      const relationships = list.filter((m) => m.object.source_ref === stixIdForIndicator(3));
      assert.ok(relationships.length > 0 && relationships.every((m) => revoked.has(m.id)), `${collection}: a relationship of indicator 3 is not revoked`);
      assert.ok(!live(list, revoked).some((m) => m.object.source_ref === stixIdForIndicator(3) || m.id === stixIdForIndicator(3)));
    }
  });
});

describe('STIX sync: a configuration that adds saved views', () => {
  let ctx: TestContext;
  const views: CollectionConfig[] = [...VIEWS, ...ADDED_VIEWS];
  let newest: number;
  let existing: Map<string, string>;
  before(async () => {
    ctx = await createTestContext({ overrides: { collections: VIEWS } });
    newest = Math.max(...(await Promise.all(VIEWS.map(async (v) => maxDate(await members(ctx.store, v.id))))));
    existing = await snapshot(ctx.store, ALL);
    assert.equal(await ctx.store.syncCollections(views, minute(1)), true);
  });
  after(() => ctx.close());

  it('rebuilds memberships once: the same configuration again changes nothing', async () => {
    assert.equal(await ctx.store.syncCollections(views, minute(2)), false);
  });

  it('fills a new filtered view, after every date_added already handed out', async () => {
    const domains = await members(ctx.store, DOMAINS);
    const iids = ctx.data.indicators.filter((i) => i.type === 'domain').map((i) => i.iid);
    assert.deepEqual(actualView(domains), expectedView(ctx.data, iids));
    assert.ok(domains.every((m) => m.dateAdded > newest), 'a member of the new view is dated before the views that existed');
  });

  it('fills a new unfiltered view with every object', async () => {
    const everything = await members(ctx.store, EVERYTHING);
    assert.deepEqual(sorted(everything.map((m) => m.id)), sorted(existing.keys()));
    assert.equal(new Set(everything.map((m) => m.dateAdded)).size, everything.length, 'two members share a date_added');
  });

  it('leaves the views that existed alone', async () => {
    assert.deepEqual(await snapshot(ctx.store, ALL), existing);
  });
});

describe('STIX sync: a filtered view that becomes unfiltered', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext({ overrides: { collections: VIEWS } });
  });
  after(() => ctx.close());

  it('shows every object, each dated after every date_added already handed out', async () => {
    const newest = Math.max(...(await Promise.all(VIEWS.map(async (v) => maxDate(await members(ctx.store, v.id))))));
    const widened = VIEWS.map((v) => (v.id === FEED_1 ? { ...v, filter: {} } : v));
    assert.equal(await ctx.store.syncCollections(widened, minute(1)), true);
    const listing = { after: null, addedAfter: newest, ids: null, types: null, modified: null, limit: 100_000, withBody: false };
    const { items } = await ctx.store.listCollectionObjects({ ...listing, collection: { id: FEED_1, filter: {} } });
    const { items: everything } = await ctx.store.listCollectionObjects({ ...listing, addedAfter: null, collection: { id: ALL, filter: {} } });
    assert.equal(items.length, everything.length, 'a client resuming after the old newest date_added misses objects');
    assert.ok(everything.length > 30);
  });

  it('keeps no membership rows for it', async () => {
    const rows = await ctx.store.db.selectFrom('collection_objects').select('id').where('collection', 'in', [FEED_1, ALL]).execute();
    assert.equal(rows.length, 0);
  });
});
