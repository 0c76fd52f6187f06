// The `created` of feed organizations' identities: the time of the import that first recorded the
// organization, kept by every later version (STIX 2.1 §3.2), and 1970 kept where a store published it (both stores).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { STIX_EPOCH, stixIdForIdentity, THREATGATE_IDENTITY, toStixIdentity } from '../../src/stix/index.js';
import { versionHash } from '../../src/stix/project-records.js';
import { buildFixture } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { ALL, type Member, maxDate, members, minute, only, SAMPLE, storeWithViews } from './stix-sync-views.js';
import { dbOf } from '../helpers/store-db.js';

const LABS = 'Example Labs, Inc.';
const SINKHOLE = 'Sinkhole Org';
const NEW_ORG = 'New Org';

/** The STIX time of the import clock `minute(n)`. */
const at = (n: number) => new Date(minute(n).now()).toISOString();

const identities = async (store: Store, collection = ALL) => (await members(store, collection)).filter((m) => m.type === 'identity');
const identity = (list: Member[], name: string) => list.find((m) => m.id === stixIdForIdentity(name))!;

/** Feed 1 (of Example Labs, Inc.) with another description: the feed changes, its organization does not. */
const changedFeed = (description: string) => only({ feeds: [{ ...buildFixture().feeds[0]!, description }] });

for (const backend of storeBackends()) {
  describe(`Identity created (${backend.name})`, () => {
    after(() => backend.cleanup());

    describe('in a store that has recorded identities since it was made', () => {
      let store: Store;
      before(async () => {
        ({ store } = await storeWithViews(backend));
      });
      after(() => store.close());

      it("a fresh import's organization identities are created at the import's clock time, not 1970", async () => {
        assert.equal(at(0), new Date(fixedClock.now()).toISOString());
        const list = await identities(store);
        assert.deepEqual(list.map((m) => m.object.name).sort(), [LABS, SINKHOLE, 'threatgate']);
        for (const name of [LABS, SINKHOLE]) {
          const { object } = identity(list, name);
          assert.equal(object.created, at(0), name);
          assert.equal(object.modified, at(0), name);
          assert.notEqual(object.created, STIX_EPOCH);
        }
        // A filtered view holds the same versions.
        assert.deepEqual((await identities(store, SAMPLE)).map((m) => m.object).sort(byId), list.map((m) => m.object).sort(byId));
      });

      it('threatgate keeps its constant identity', async () => {
        const list = await identities(store);
        assert.deepEqual(list.find((m) => m.id === THREATGATE_IDENTITY.id)?.object, { ...THREATGATE_IDENTITY });
      });

      it('a later import that changes a feed of the organization keeps its identity as it was', async () => {
        const before = await identities(store);
        await importDataset(store, changedFeed('Botnet C&C, described again'), minute(1));
        assert.deepEqual(await identities(store), before);
      });

      it('a new version of the identity keeps created, with a later modified that pollers see after their cursor', async () => {
        // A stored version made by another mapping (as an upgrade may leave): the next import that
        // renders the identities writes a new version of it.
        const id = stixIdForIdentity(LABS);
        await sql`update stix_objects set source_hash = ${'from an earlier mapping'} where id = ${id}`.execute(dbOf(store));
        const before = await members(store, ALL);
        await importDataset(store, changedFeed('Botnet C&C, described a third time'), minute(2));
        const now = identity(await identities(store), LABS);
        assert.equal(now.object.created, at(0));
        assert.equal(now.object.modified, at(2));
        assert.equal(now.modified, at(2));
        assert.ok(now.dateAdded > maxDate(before), 'the new version is not after the cursor');
        assert.deepEqual(identity(await identities(store), SINKHOLE), identity(before, SINKHOLE), 'the other organization has no new version');
      });

      it('a new organization gets its own, later created; the others keep theirs', async () => {
        const before = await identities(store);
        const feed = { ...buildFixture().feeds[2]!, fid: 4, feed: 'New Org blocklist', organization: NEW_ORG };
        await importDataset(store, only({ feeds: [feed] }), minute(3));
        const list = await identities(store);
        const added = identity(list, NEW_ORG);
        assert.equal(added.object.created, at(3));
        assert.equal(added.object.modified, at(3));
        assert.ok(added.object.created! > identity(list, LABS).object.created!);
        assert.ok(added.dateAdded > maxDate(before));
        assert.deepEqual(list.filter((m) => m.id !== added.id), before);
      });
    });

    describe('in a store whose identities were published with created 1970', () => {
      let store: Store;
      before(async () => {
        ({ store } = await storeWithViews(backend));
        // What the mapping wrote before organizations had a created of their own.
        for (const name of [LABS, SINKHOLE]) {
          const body = JSON.stringify(toStixIdentity(name, { created: STIX_EPOCH, modified: at(0) }));
          await sql`update stix_objects set body = ${body}, source_hash = ${versionHash('identity', body)} where id = ${stixIdForIdentity(name)}`.execute(dbOf(store));
        }
      });
      after(() => store.close());

      it('keeps 1970 and publishes no new version, as created may not change between versions', async () => {
        const before = await identities(store);
        assert.equal(identity(before, LABS).object.created, STIX_EPOCH);
        await importDataset(store, changedFeed('Botnet C&C, described again'), minute(1));
        assert.deepEqual(await identities(store), before);
      });

      it('gives an organization it records from now on the time of that import', async () => {
        const feed = { ...buildFixture().feeds[2]!, fid: 4, feed: 'New Org blocklist', organization: NEW_ORG };
        await importDataset(store, only({ feeds: [feed] }), minute(2));
        const list = await identities(store);
        assert.equal(identity(list, NEW_ORG).object.created, at(2));
        assert.equal(identity(list, SINKHOLE).object.created, STIX_EPOCH);
      });
    });
  });
}

function byId(a: Record<string, string>, b: Record<string, string>): number {
  return a.id! < b.id! ? -1 : a.id! > b.id! ? 1 : 0;
}
