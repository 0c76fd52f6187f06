// A feed record of an import file may carry its source (docs/interface.md section 10, "Feed sources"):
// validated with the file, written in the same transaction as the feed, replaced when it changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ImportError } from '../../src/errors.js';
import { importDataset } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';

const SOURCE = {
  url: 'https://reader:s3cret@feeds.example.org/drop_v4.json?key=${env:DROP_KEY}',
  format: 'json',
  json: { value: 'cidr' },
  schedule: 'every 6h',
  risk: 'high',
};
const feedRecord = (source: unknown, extra: Record<string, unknown> = {}) => ({
  fid: 7, feed: 'DROP', organization: 'Example Intel', schedule: 'hourly', accesslink: 'https://example.org/elsewhere', source, ...extra,
});
const dataset = (feeds: unknown[]) => ({ threats: [], feeds, indicators: [], links: [] });

for (const backend of storeBackends()) {
  describe(`feed records with a source (${backend.name})`, () => {
    let store: Store;
    before(async () => {
      ({ store } = await backend.create());
    });
    after(async () => {
      await store.close();
      await backend.cleanup();
    });

    it('stores the source as given and makes its URL, without credentials, the accesslink and its schedule the feed\'s', async () => {
      const summary = await importDataset(store, dataset([feedRecord(SOURCE)]), fixedClock);
      assert.equal(summary.changed.feeds, 1);
      const feed = await store.findFeed(7);
      assert.equal(feed?.accesslink, 'https://feeds.example.org/drop_v4.json?key=${env:DROP_KEY}');
      assert.equal(feed?.schedule, 'every 6h');
      const [listed] = await store.listFeedSources();
      assert.equal(listed?.fid, 7);
      assert.deepEqual(JSON.parse(listed!.definition), SOURCE);
      // Imported where the variable is not set: kept, resolved at pull time.
      assert.equal(process.env.DROP_KEY, undefined);
    });

    it('changes nothing when the same file is imported again', async () => {
      const summary = await importDataset(store, dataset([feedRecord(SOURCE)]), fixedClock);
      assert.deepEqual(summary.changed, { threats: 0, feeds: 0, indicators: 0, links: 0 });
    });

    it('replaces a changed source and starts its pull state afresh', async () => {
      const at = Date.parse('2026-01-15T10:00:00Z');
      const run = { trigger: 'command', started: at, httpStatus: 500, bytes: 0, rejected: { unparseable: 0, allowlisted: 0 }, rejections: [] } as const;
      await store.recordPullFailure(7, { reason: 'HTTP status 500', at: '2026-01-15 10:00:00', finished: at, nextDue: at + 60_000, run: { ...run, rejections: [] }, keepRuns: 10 });
      const changed = { ...SOURCE, schedule: 'daily' };
      await importDataset(store, dataset([feedRecord(changed)]), fixedClock);
      const [listed] = await store.listFeedSources();
      assert.deepEqual(JSON.parse(listed!.definition), changed);
      assert.equal(listed?.last_error, null);
      assert.equal((await store.findFeed(7))?.schedule, 'daily');
      assert.deepEqual(await store.dueFeedSources(Date.parse('2026-01-15T10:00:00Z')), [7]);
    });

    it('refuses an invalid source by its field and keeps nothing of the file', async () => {
      const bad = [
        [{ ...SOURCE, format: 'xml' }, /^feeds\[1\]: feed source\.format: must be one of text, csv, json/],
        [{ ...SOURCE, url: 'ftp://example.org/x' }, /^feeds\[1\]: feed source\.url: scheme "ftp" is not supported/],
        [{ url: 'https://example.org/x.csv', format: 'csv' }, /^feeds\[1\]: feed source\.csv\.value: required for format csv/],
        [{ ...SOURCE, schedule: 'sometimes' }, /^feeds\[1\]: feed source\.schedule: /],
      ] as const;
      for (const [source, message] of bad) {
        const other = { fid: 8, feed: 'Other', organization: 'Example Intel' };
        await assert.rejects(importDataset(store, dataset([other, feedRecord(source)]), fixedClock), (error: unknown) => {
          assert.ok(error instanceof ImportError);
          assert.match(error.message, message);
          assert.doesNotMatch(error.message, /s3cret/);
          return true;
        });
        assert.equal(await store.findFeed(8), undefined);
      }
    });
  });
}
