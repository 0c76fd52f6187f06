// Every write refreshes the filtered collections (collection-views.ts), and a refresh reads the
// objects no indicator or threat owns (identities, attack-patterns). Those few rows have an index of
// their own (migration 0021, migrations.ts): without it, on a store SQLite has no statistics for yet,
// the planner read them through the index on `tid`, whose null key every indicator object shares, so
// the smallest write (a sighting, an allowlist entry) read the whole index.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import { viewObjects } from '../../src/store/publish/collection-views.js';
import type { Store } from '../../src/store/contract/store.js';
import { DEFAULT_COLLECTIONS, storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { buildFixture } from '../helpers/fixture.js';
import { fixedClock } from '../helpers/test-app.js';

const sqlite = storeBackends().find((backend) => backend.name === 'SQLite')!;

describe('a collection refresh on SQLite, before any statistics', () => {
  let store: Store;
  before(async () => {
    ({ store } = await sqlite.create());
    await importDataset(store, buildFixture(), fixedClock);
  });
  after(async () => {
    await store.close();
    await sqlite.cleanup();
  });

  it('has no statistics to plan with', async () => {
    const { rows } = await sql<{ name: string }>`select name from sqlite_master where name = 'sqlite_stat1'`.execute(dbOf(store));
    assert.deepEqual(rows, []);
  });

  for (const collection of DEFAULT_COLLECTIONS.filter((c) => Object.values(c.filter).some((v) => v !== undefined))) {
    it(`reads the unowned objects of "${collection.id}" through their own index, never the index on tid for its null key`, async () => {
      const query = viewObjects(collection.filter).compile(dbOf(store));
      const { rows } = await dbOf(store).executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` });
      const lines = rows.map((r) => r.detail);
      assert.ok(lines.some((line) => line.includes('stix_objects_unowned')), lines.join('\n'));
      assert.ok(!lines.some((line) => /SCAN s\b/.test(line)), lines.join('\n'));
    });
  }
});
