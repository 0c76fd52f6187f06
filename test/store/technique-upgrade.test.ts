// A store from before migration 0011 (threats' ATT&CK techniques) publishes its threats' techniques when it
// starts after the upgrade, without waiting for an import, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { CollectionConfig } from '../../src/config.js';
import { generateDemo } from '../../src/demo/generate-demo.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends, storeOptions } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { dbOf, rewindFeedHealth, openTestStore } from '../helpers/store-db.js';

const VIEWS: CollectionConfig[] = [
  { id: 'a5cffbfe-c0ff-4842-a235-cb3a7a040a37', title: 'Everything', free: false, filter: {} },
  { id: '4c6d8e0f-2a3b-4c5d-ae7f-8a9b0c1d2e3f', title: 'Threat 3', free: false, filter: { tid: 3 } },
];
const later = (minutes: number) => ({ now: () => fixedClock.now() + minutes * 60_000 });

/** The technique objects a store holds: attack-patterns and the relationships of no indicator but reactivations. */
async function techniqueObjects(store: Store): Promise<{ id: string; body: string; date_added: number }[]> {
  const { rows } = await sql<{ id: string; body: string; date_added: number }>`
    select id, body, date_added from stix_objects
    where type = 'attack-pattern' and tid is null or (type = 'relationship' and iid is null and body not like '%"derived-from"%')
    order by id`.execute(dbOf(store));
  return rows.map((r) => ({ ...r, date_added: Number(r.date_added) }));
}

/** The store as a release before ATT&CK techniques left it: no technique table, objects, memberships or marker. */
async function rewindToBeforeTechniques(store: Store): Promise<void> {
  await rewindFeedHealth(store);
  const ids = (await techniqueObjects(store)).map((o) => o.id);
  await sql`delete from collection_objects where id in (${sql.join(ids)})`.execute(dbOf(store));
  await sql`delete from stix_objects where id in (${sql.join(ids)})`.execute(dbOf(store));
  await sql`drop table threat_techniques`.execute(dbOf(store));
  await sql`delete from meta where key = 'threat_techniques_synced'`.execute(dbOf(store));
  // Later migrations go too, as a store of that age had none of them; they run again after 0011.
  await sql`alter table feed_sources drop column lease_since`.execute(dbOf(store));
  await sql`alter table indicators drop column retired_reason`.execute(dbOf(store));
  await sql`alter table indicators drop column stamp_retired`.execute(dbOf(store));
  await sql`delete from threatgate_migrations where name in ('0011-threat-techniques', '0012-lease-since', '0013-indicator-retirement')`.execute(dbOf(store));
}

/** Each object's body without the times that only say when it was written. */
const content = (body: string) => body.replace(/"(created|modified)":"[^"]*"/g, '');

for (const backend of storeBackends()) {
  describe(`a store upgraded past migration 0011 (${backend.name})`, () => {
    after(() => backend.cleanup());

    it('publishes its threats\' attack-patterns and relationships at start-up, after every earlier object, in every view', async () => {
      const created = await backend.create({ collections: VIEWS });
      let store = created.store;
      const dataset = generateDemo({ indicators: 300 });
      await importDataset(store, dataset, fixedClock);
      const published = await techniqueObjects(store);
      assert.ok(published.length > 20);
      await rewindToBeforeTechniques(store);
      const { rows: newest } = await sql<{ d: number }>`select max(date_added) as d from stix_objects`.execute(dbOf(store));
      await store.close();

      store = await openTestStore(created.location, storeOptions({ collections: VIEWS }));
      try {
        assert.equal(await store.syncCollections(VIEWS, later(5)), false, 'the views themselves did not change');
        const upgraded = await techniqueObjects(store);
        assert.deepEqual(upgraded.map((o) => [o.id, content(o.body)]), published.map((o) => [o.id, content(o.body)]));
        for (const o of upgraded) assert.ok(o.date_added > Number(newest[0]!.d), `${o.id} comes after the cursor of any poller`);
        const { rows: inView } = await sql<{ n: number }>`
          select count(*) as n from collection_objects where collection = ${VIEWS[1]!.id} and (type = 'attack-pattern' or id in (${sql.join(upgraded.map((o) => o.id))}))`.execute(dbOf(store));
        assert.ok(Number(inView[0]!.n) > 0, 'the view of threat 3 holds its techniques');

        await store.syncCollections(VIEWS, later(10));
        assert.deepEqual(await techniqueObjects(store), upgraded, 'a second start publishes nothing');
      } finally {
        await store.close();
      }
    });
  });
}
