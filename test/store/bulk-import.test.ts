// An import into an empty store takes a bulk path (links ranked as they go in, no staging of what
// to render, no lookup of earlier versions). It must leave exactly what the general path leaves.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CollectionConfig } from '../../src/config.js';
import { generateDemo } from '../../src/demo/generate-demo.js';
import type { Indicator, Link } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { versionHash } from '../../src/stix/project-records.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';

const VIEWS: CollectionConfig[] = [
  { id: '981c4916-ebb2-4567-aece-54ae970c4230', title: 'Sample', free: true, filter: { sample: 40 } },
  { id: 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37', title: 'Everything', free: false, filter: {} },
  { id: '1f3a9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b', title: 'Feed 2', free: false, filter: { fid: 2 } },
  { id: '3b5c7d9e-1f2a-4b4c-9d6e-7f8a9b0c1d2e', title: 'High', free: false, filter: { minRisk: 'high' } },
  { id: '4c6d8e0f-2a3b-4c5d-ae7f-8a9b0c1d2e3f', title: 'Threat 3', free: false, filter: { tid: 3 } },
];

/**
 * The demo data (several feeds and organizations, indicators in more than one feed, threats of
 * every SDO type), plus what the bulk path must treat as the general one does: indicators without
 * a STIX form (values their type's pattern cannot hold) that threats link to, records given twice
 * (written once), and links given out of order.
 */
function dataset() {
  const demo = generateDemo({ indicators: 1500 });
  const base = Math.max(...demo.indicators.map((i) => i.iid));
  const template = demo.indicators[0]!;
  const odd: Indicator[] = [
    { ...template, iid: base + 1, indicator: 'AS-not-a-number', type: 'asn' },
    { ...template, iid: base + 2, indicator: 'some-registry-key', type: 'md5' },
    { ...template, iid: base + 3, indicator: '203.0.113.77', type: 'ip', risk: 'critical' },
  ];
  const tid = demo.threats[0]!.tid;
  const fid = demo.feeds[1]!.fid;
  const extraLinks: Link[] = [
    { iid: base + 3, fid, stamp_linked: '2025-06-01 00:00:00' },
    { iid: base + 2, tid, stamp_linked: '2025-06-01 00:00:00' },
    { iid: base + 1, tid, stamp_linked: '2025-06-01 00:00:00' },
    { iid: base + 3, tid, stamp_linked: '2025-06-01 00:00:00' },
    // The same links again with other stamps: the later record wins.
    { iid: base + 3, fid, stamp_linked: '2025-07-01 00:00:00' },
    { iid: base + 3, tid, stamp_linked: '2025-07-02 00:00:00' },
  ];
  const givenAgain = { ...demo.indicators[10]! };
  return {
    threats: [...demo.threats, { ...demo.threats[1]! }],
    feeds: demo.feeds,
    indicators: [...demo.indicators, ...odd, givenAgain],
    links: [...extraLinks.slice(0, 2), ...demo.links, ...extraLinks.slice(2)],
  };
}

const TABLES = {
  threats: 'tid',
  threat_names: 'name_key, tid',
  feeds: 'fid',
  indicators: 'iid',
  feed_links: 'fid, iid',
  threat_links: 'tid, iid',
  threat_techniques: 'tid, technique',
  stix_objects: 'id',
  collection_objects: 'collection, id',
} as const;

/** Every row of the data tables, and the meta entries an import writes (but the random data version). */
async function dump(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(TABLES)) {
    const { rows } = await sql`select * from ${sql.table(table)} order by ${sql.raw(order)}`.execute(dbOf(store));
    out[table] = rows;
  }
  out.meta = (await sql<{ key: string }>`select key, value from meta where key <> 'data_version' order by key`.execute(dbOf(store))).rows;
  // Both paths leave the same indexes (the schema's name left out of PostgreSQL's definitions).
  out.indexes = (
    dialectOf(store) === 'sqlite'
      ? await sql`select name, tbl_name, sql from sqlite_master where type = 'index' order by name`.execute(dbOf(store))
      : await sql`select indexname, tablename, replace(indexdef, current_schema() || '.', '') as indexdef from pg_indexes where schemaname = current_schema() order by indexname`.execute(dbOf(store))
  ).rows;
  return out;
}

for (const backend of storeBackends()) {
  describe(`bulk import into an empty store (${backend.name})`, () => {
    after(() => backend.cleanup());

    it('leaves every table as the general path does, with worker threads or without, and a re-import changes nothing', async () => {
      const data = dataset();
      const runs = [
        { name: 'bulk, rendered on a worker thread', bulkWhenEmpty: true, threadsFrom: 0 },
        { name: 'bulk, all in the thread', bulkWhenEmpty: true, threadsFrom: Number.POSITIVE_INFINITY },
        { name: 'general', bulkWhenEmpty: false, threadsFrom: Number.POSITIVE_INFINITY },
      ];
      const results: { name: string; summary: unknown; tables: Record<string, unknown[]>; again: unknown }[] = [];
      for (const { name, bulkWhenEmpty, threadsFrom } of runs) {
        const { store } = await backend.create({ collections: VIEWS, writePaths: { bulkWhenEmpty, renderThreadFrom: threadsFrom } });
        try {
          const summary = await importDataset(store, data, fixedClock);
          const tables = await dump(store);
          const again = await importDataset(store, data, { now: () => fixedClock.now() + 60_000 });
          assert.deepEqual(await dump(store), tables, `${name}: a re-import of the same data changed nothing`);
          results.push({ name, summary, tables, again });
        } finally {
          await store.close();
        }
      }
      const general = results.at(-1)!;
      for (const bulk of results.slice(0, -1)) {
        assert.deepEqual(bulk.summary, general.summary, bulk.name);
        assert.deepEqual(bulk.again, general.again, bulk.name);
        for (const table of Object.keys(general.tables)) {
          assert.deepEqual(bulk.tables[table], general.tables[table], `${bulk.name}: table ${table}`);
        }
      }
      // The data exercised what it was built for.
      const objects = general.tables.stix_objects as { type: string; iid: number | null }[];
      assert.ok(objects.filter((o) => o.type === 'relationship').length > 1000);
      assert.ok((general.tables.collection_objects as unknown[]).length > 0);
      const base = Math.max(...generateDemo({ indicators: 1500 }).indicators.map((i) => i.iid));
      const objectIids = new Set(objects.map((o) => o.iid));
      assert.equal(objectIids.has(base + 1), false, 'a malformed ASN has no object, nor its relationship');
      assert.equal(objectIids.has(base + 2), false, 'a value that is no MD5 hash has no object');
      assert.equal(objects.filter((o) => o.iid === base + 3).length, 2, 'the critical IP: its indicator and one relationship');
      // The demo threats cite ATT&CK techniques: their attack-patterns and relationships come the same way.
      assert.ok(objects.filter((o) => o.type === 'attack-pattern').length > 10);
      assert.ok(objects.filter((o) => o.type === 'relationship' && o.iid === null).length > 20);
      assert.ok((general.tables.threat_techniques as unknown[]).length > 20);
    });

    it('renders indicators and relationships on read as the versions the import hashed, in every view', async () => {
      const { store } = await backend.create({ collections: VIEWS, writePaths: { renderThreadFrom: 0 } });
      try {
        await importDataset(store, dataset(), fixedClock);
        const { rows } = await sql<{ id: string; type: string; body: string; source_hash: string; iid: number | null }>`select id, type, body, source_hash, iid from stix_objects`.execute(dbOf(store));
        const stored = new Map(rows.map((r) => [r.id, r]));
        // A relationship of no indicator (a threat's to a technique) has no records to render it from: its body is kept.
        const renderedOnRead = (row: { type: string; iid: number | null }) => row.type === 'indicator' || (row.type === 'relationship' && row.iid !== null);
        for (const row of rows) assert.equal(row.body === '', renderedOnRead(row), `${row.id}: body stored or not`);
        for (const collection of VIEWS) {
          const listing = { collection, after: null, addedAfter: null, ids: null, types: null, modified: null, limit: 100_000, withBody: true };
          const { items, skipped } = await store.listCollectionObjects(listing);
          assert.deepEqual(skipped, [], 'no object left out');
          assert.ok(items.length > 0, collection.title);
          for (const item of items) {
            const object = JSON.parse(item.body!) as { id: string; modified: string };
            assert.equal(object.id, item.id);
            assert.equal(object.modified, item.modified);
            assert.equal(versionHash(item.type, item.body!), stored.get(item.id)!.source_hash, `${item.id} in ${collection.title}`);
          }
        }
      } finally {
        await store.close();
      }
    });

    it('leaves out of a page an object whose records no longer give it, naming it, and the page still ends at it', async () => {
      const { store } = await backend.create({ collections: VIEWS });
      try {
        await importDataset(store, dataset(), fixedClock);
        const { rows } = await sql<{ id: string; tid: number; iid: number }>`
          select id, tid, iid from stix_objects where type = 'relationship' and iid is not null order by date_added limit 1`.execute(dbOf(store));
        const relationship = rows[0]!;
        // Only a fault of the store (here, a link deleted behind the import's back) can cause this.
        await sql`delete from threat_links where tid = ${relationship.tid} and iid = ${relationship.iid}`.execute(dbOf(store));
        const listing = { collection: VIEWS[1]!, objectId: relationship.id, after: null, addedAfter: null, ids: null, types: null, modified: null, limit: 10, withBody: true };
        const page = await store.listCollectionObjects(listing);
        assert.deepEqual(page.items, []);
        assert.deepEqual(page.skipped, [relationship.id]);
        assert.equal(page.last?.id, relationship.id, 'the next page starts after the object left out');
        // Without bodies (manifest, versions) the listing still answers.
        assert.equal((await store.listCollectionObjects({ ...listing, withBody: false })).items.length, 1);
      } finally {
        await store.close();
      }
    });

    it('is not taken when the store holds data: a second import goes the general way', async () => {
      const { store } = await backend.create({ collections: VIEWS, writePaths: { renderThreadFrom: 0 } });
      try {
        const data = dataset();
        const half = { ...data, indicators: data.indicators.slice(0, 700), links: data.links.filter((l) => l.iid <= data.indicators[699]!.iid) };
        await importDataset(store, half, fixedClock);
        const later = { now: () => fixedClock.now() + 60_000 };
        await importDataset(store, data, later);
        const { store: reference } = await backend.create({ collections: VIEWS, writePaths: { bulkWhenEmpty: false } });
        try {
          await importDataset(reference, half, fixedClock);
          await importDataset(reference, data, later);
          assert.deepEqual(await dump(store), await dump(reference));
        } finally {
          await reference.close();
        }
      } finally {
        await store.close();
      }
    });
  });
}
