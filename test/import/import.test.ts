// Import (docs/getting-started.md, "Import format"): JSON and NDJSON give the same store, bad records keep nothing, re-import is a no-op (both stores).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixedClock } from '../helpers/test-app.js';
import { buildFixture, toNdjson } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { importFile } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { ImportError } from '../../src/errors.js';
import { sql } from 'kysely';
import { dbOf } from '../helpers/store-db.js';

/** Every table's rows, in key order: two stores with equal snapshots hold the same data. */
async function snapshot(store: Store) {
  const db = dbOf(store);
  return {
    threats: await db.selectFrom('threats').selectAll().orderBy('tid').execute(),
    names: await db.selectFrom('threat_names').selectAll().orderBy('name_key').orderBy('tid').execute(),
    feeds: await db.selectFrom('feeds').selectAll().orderBy('fid').execute(),
    indicators: await db.selectFrom('indicators').selectAll().orderBy('iid').execute(),
    feedLinks: await db.selectFrom('feed_links').selectAll().orderBy('fid').orderBy('iid').execute(),
    threatLinks: await db.selectFrom('threat_links').selectAll().orderBy('tid').orderBy('iid').execute(),
  };
}

for (const backend of storeBackends()) {
  describe(`threatgate import (${backend.name})`, () => {
    let dir: string;
    const stores: Store[] = [];
    const open = async () => {
      const { store } = await backend.create();
      stores.push(store);
      return store;
    };
    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'threatgate-import-'));
    });
    after(async () => {
      for (const store of stores) await store.close();
      await backend.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('loads a JSON document and an NDJSON file of the same records into identical stores', async () => {
      const data = buildFixture();
      const fromJson = await open();
      const fromNdjson = await open();
      const a = await importFile(fromJson, write('data.json', JSON.stringify(data, null, 2)), fixedClock);
      const b = await importFile(fromNdjson, write('data.ndjson', toNdjson(data)), fixedClock);
      assert.deepEqual(a.read, { threats: 3, feeds: 3, indicators: 30, links: 43 });
      assert.deepEqual(a, b);
      assert.deepEqual(await snapshot(fromJson), await snapshot(fromNdjson));
    });

    it('reads NDJSON with CRLF or lone CR line ends as readline does', async () => {
      const data = buildFixture();
      const lf = await importFile(await open(), write('lf.ndjson', toNdjson(data)), fixedClock);
      const crlf = await importFile(await open(), write('crlf.ndjson', toNdjson(data).replaceAll('\n', '\r\n')), fixedClock);
      const cr = await importFile(await open(), write('cr.ndjson', toNdjson(data).replaceAll('\n', '\r')), fixedClock);
      assert.deepEqual(crlf, lf);
      assert.deepEqual(cr, lf);
    });

    const sqliteOnly = backend.name !== 'SQLite' && 'SQLite only: PostgreSQL has no per-connection page cache to raise';
    it('gives back the larger SQLite page cache it takes for an import', { skip: sqliteOnly }, async () => {
      const store = await open();
      const before = await sql<{ cache_size: number }>`pragma cache_size`.execute(dbOf(store));
      await importFile(store, write('cache.ndjson', toNdjson(buildFixture())), fixedClock);
      const after = await sql<{ cache_size: number }>`pragma cache_size`.execute(dbOf(store));
      assert.deepEqual(after.rows, before.rows);
    });

    it('changes nothing when the same file is imported again', async () => {
      const store = await open();
      const path = write('again.ndjson', toNdjson(buildFixture()));
      await importFile(store, path, fixedClock);
      const before = await snapshot(store);
      const summary = await importFile(store, path, { now: () => fixedClock.now() + 3_600_000 });
      assert.deepEqual(summary.changed, { threats: 0, feeds: 0, indicators: 0, links: 0 });
      assert.deepEqual(await snapshot(store), before);
    });

    it('updates a changed record and recomputes the aggregates that depend on it', async () => {
      const store = await open();
      const data = buildFixture();
      await importFile(store, write('v1.json', JSON.stringify(data)), fixedClock);
      data.indicators[0]!.risk = 'critical';
      data.indicators[0]!.retired = false;
      const summary = await importFile(store, write('v2.json', JSON.stringify({ indicators: [data.indicators[0]] })), fixedClock);
      assert.deepEqual(summary.changed, { threats: 0, feeds: 0, indicators: 1, links: 0 });
      const feed = await store.findFeed(1);
      const critical = data.indicators.filter((i) => i.iid <= 23 && !i.retired && i.risk === 'critical').length;
      assert.equal(feed?.indicators.critical, critical);
    });

    describe('with a bad record in the middle', () => {
      const cases: [string, (data: ReturnType<typeof buildFixture>) => string, string, RegExp][] = [
        ['an invalid risk in NDJSON', (d) => toNdjson(d).replace('"risk":"medium"', '"risk":"severe"'), 'bad.ndjson', /^line \d+: indicator risk: /],
        ['a malformed line in NDJSON', (d) => toNdjson(d).replace(/\n/, '\n{"record": "feed", oops\n'), 'bad2.ndjson', /^line 2: not valid JSON/],
        ['a malformed line in NDJSON with CRLF line ends', (d) => toNdjson(d).replaceAll('\n', '\r\n').replace(/\r\n/, '\r\n{"record": "feed", oops\r\n'), 'bad2crlf.ndjson', /^line 2: not valid JSON/],
        ['an unknown tag in NDJSON', (d) => toNdjson(d).replace('"record":"feed"', '"record":"feeds"'), 'bad3.ndjson', /^line 4: "record" must be one of/],
        ['a bad timestamp in a JSON document', (d) => { d.indicators[14]!.stamp_added = '2025-02-30 00:00:00'; return JSON.stringify(d); }, 'bad4.json', /^indicators\[14\]: indicator stamp_added: must be a timestamp/],
        ['a link to a missing indicator', (d) => { d.links.push({ iid: 999, fid: 1, stamp_linked: '2025-01-01 00:00:00' }); return JSON.stringify(d); }, 'bad5.json', /^links\[43\]: link iid: no indicator with iid 999$/],
        ['an unknown field', (d) => JSON.stringify({ ...d, feeds: [{ ...d.feeds[0], colour: 'red' }] }), 'bad6.json', /^feeds\[0\]: feed: unknown field "colour"$/],
        ['an unknown section', (d) => JSON.stringify({ ...d, actors: [] }), 'bad7.json', /unknown section "actors"/],
        ['a truncated document', (d) => JSON.stringify(d).slice(0, 500), 'bad8.json', /ends early|not valid JSON/],
      ];
      for (const [title, make, name, reason] of cases) {
        it(`keeps nothing and names the position for ${title}`, async () => {
          const store = await open();
          const data = buildFixture();
          await assert.rejects(importFile(store, write(name, make(data)), fixedClock), (error: unknown) => {
            assert.ok(error instanceof ImportError, String(error));
            assert.match(error.message, reason);
            return true;
          });
          assert.equal(await store.isEmpty(), true);
          assert.equal((await dbOf(store).selectFrom('feed_links').selectAll().execute()).length, 0);
        });
      }

      it('keeps the earlier data intact when a later import fails', async () => {
        const store = await open();
        await importFile(store, write('good.json', JSON.stringify(buildFixture())), fixedClock);
        const before = await snapshot(store);
        const bad = buildFixture();
        bad.threats[0]!.threat = 'Renamed';
        bad.links.push({ iid: 5, tid: 77, stamp_linked: '2025-01-01 00:00:00' });
        await assert.rejects(importFile(store, write('bad-later.json', JSON.stringify(bad)), fixedClock), /link tid: no threat with tid 77/);
        assert.deepEqual(await snapshot(store), before);
      });
    });

    it('names a missing file clearly', async () => {
      const store = await open();
      await assert.rejects(importFile(store, join(dir, 'nope.json'), fixedClock), /cannot open the file \(ENOENT\)/);
    });

    it('accepts links that come before their targets in the file', async () => {
      const store = await open();
      const data = buildFixture();
      const text = JSON.stringify({ links: data.links, indicators: data.indicators, feeds: data.feeds, threats: data.threats });
      const summary = await importFile(store, write('order.json', text), fixedClock);
      assert.equal(summary.changed.links, 43);
    });
  });
}
