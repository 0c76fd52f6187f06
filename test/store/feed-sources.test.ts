// Feed sources in the store (docs/sources.md): `feeds add` makes or updates the feed through an import, lists and removes its source.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { SourceDefinitionError } from '../../src/sources/source-definition.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture } from '../helpers/fixture.js';
import { fixedClock } from '../helpers/test-app.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const ENV = { FEED_TOKEN: 'tok-3f9a1c' };
const SOURCE = {
  url: 'https://reader:s3cret@feeds.example.org/drop.txt',
  format: 'text',
  schedule: 'every 6h',
  headers: { Authorization: 'Bearer ${env:FEED_TOKEN}' },
};
const NEW_FEED = { feed: 'Example DROP', organization: 'Example Intel' };

for (const backend of storeBackends()) {
  describe(`feed sources on ${backend.name}`, () => {
    let store: Store;
    before(async () => {
      ({ store } = await backend.create());
      await importDataset(store, buildFixture(), fixedClock);
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    describe('adding a source for a new feed name', () => {
      it('creates the feed with the next fid, the URL without credentials as accesslink and the source schedule', async () => {
        const fid = await addFeedSource(store, { ...NEW_FEED, source: SOURCE }, fixedClock, ENV);
        assert.equal(fid, 4);
        const feed = await store.findFeed(fid);
        assert.equal(feed?.accesslink, 'https://feeds.example.org/drop.txt');
        assert.equal(feed?.schedule, 'every 6h');
        assert.equal(feed?.stamp_added, '2026-01-15 10:00:00');
        assert.equal((await store.findFeedByName('example drop', 'EXAMPLE INTEL'))?.fid, 4);
      });

      it('gives the new organization a STIX identity, as an import of the feed does', async () => {
        const identities = await dbOf(store).selectFrom('stix_objects').select('body').where('type', '=', 'identity').execute();
        assert.ok(identities.some((row) => JSON.parse(row.body).name === 'Example Intel'));
      });

      it('stores the definition as configured: placeholders kept, never the resolved secret', async () => {
        const [listed] = (await store.listFeedSources()).filter((s) => s.fid === 4);
        assert.deepEqual(JSON.parse(listed!.definition), SOURCE);
        assert.equal(listed!.definition.includes(ENV.FEED_TOKEN), false);
      });
    });

    describe('adding a source again for the same feed', () => {
      it('updates that feed and its source instead of making another', async () => {
        const fid = await addFeedSource(store, { feed: 'EXAMPLE DROP', organization: 'example intel', source: { ...SOURCE, schedule: 'daily' } }, fixedClock, ENV);
        assert.equal(fid, 4);
        assert.equal((await store.findFeed(4))?.schedule, 'daily');
        assert.equal(await store.findFeed(5), undefined);
        assert.deepEqual((await store.listFeedSources()).map((s) => s.fid), [4]);
        assert.equal(JSON.parse((await store.listFeedSources())[0]!.definition).schedule, 'daily');
      });
    });

    describe('adding a source to an imported feed', () => {
      it('keeps its fid, its other fields and its links, and lists it with its linked indicator count', async () => {
        const before = await store.findFeed(1);
        const fid = await addFeedSource(store, { feed: before!.feed, organization: before!.organization, source: { url: 'https://c2.example.org/ipv4.csv', format: 'csv', csv: { header: 'first-row', value: 'ip' } } }, fixedClock, ENV);
        assert.equal(fid, 1);
        const after = await store.findFeed(1);
        assert.equal(after?.accesslink, 'https://c2.example.org/ipv4.csv');
        assert.equal(after?.category, before?.category);
        assert.equal(after?.indicators.total, 23);
        const listed = (await store.listFeedSources()).find((s) => s.fid === 1);
        assert.equal(listed?.linked, 23);
        assert.equal(listed?.feed, 'Botnet C&C (IPv4)');
        assert.equal(listed?.last_error, null);
      });

      it('leaves the feed importable: the same import file imports again', async () => {
        const summary = await importDataset(store, buildFixture(), fixedClock);
        assert.equal(summary.read.feeds, 3);
        assert.equal((await store.findFeed(1))?.indicators.total, 23);
      });
    });

    describe('a source with an unset environment variable', () => {
      it('is refused naming the field and the variable, and creates nothing', async () => {
        await assert.rejects(
          addFeedSource(store, { feed: 'Other', organization: 'Example Intel', source: SOURCE }, fixedClock, {}),
          (error: unknown) => error instanceof SourceDefinitionError && /source\.headers\.Authorization: environment variable FEED_TOKEN is not set/.test(error.message),
        );
        assert.equal(await store.findFeedByName('Other', 'Example Intel'), undefined);
      });
    });

    describe('removing a source', () => {
      it('stops listing it and keeps the feed and its links', async () => {
        assert.equal(await store.removeFeedSource(1), true);
        assert.equal(await store.removeFeedSource(1), false);
        assert.deepEqual((await store.listFeedSources()).map((s) => s.fid), [4]);
        assert.equal((await store.findFeed(1))?.indicators.total, 23);
        assert.equal((await store.findLinksPage({ kind: 'feed', fid: 1 }, 0, 100)).rows.length, 23);
      });

      it('answers false for a feed that never had a source', async () => {
        assert.equal(await store.removeFeedSource(99), false);
      });
    });
  });
}
