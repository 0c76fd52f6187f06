// Import (docs/getting-started.md, "Import format"): a tid, fid or iid given twice must be the same record, and related threats must exist.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Indicator } from '../../src/domain.js';
import { ImportError } from '../../src/errors.js';
import { importDataset, importFile } from '../../src/import/import-file.js';
import type { Store } from '../../src/store/contract/store.js';
import { buildFixture, toNdjson, type Dataset } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { fixedClock } from '../helpers/test-app.js';
import { dbOf } from '../helpers/store-db.js';

const later = { now: () => fixedClock.now() + 3_600_000 };

/**
 * The fixture with `extra` more indicators (iids 31 on), so that records far apart in the file go
 * in different write batches (400 rows). In NDJSON, threats and feeds take lines 1-6, so iid N is
 * on line 6 + N.
 */
function fixtureWith(extra = 0): Dataset {
  const data = buildFixture();
  for (let iid = 31; iid <= 30 + extra; iid++) data.indicators.push({ ...data.indicators[0]!, iid, indicator: `203.0.113.${iid % 250}` });
  return data;
}

const repeat = <T>(record: T, change: Partial<T> = {}): T => ({ ...record, ...change });

for (const backend of storeBackends()) {
  describe(`import (${backend.name})`, () => {
    let dir: string;
    const stores: Store[] = [];
    let n = 0;
    const create = async () => {
      const { store } = await backend.create();
      stores.push(store);
      return store;
    };
    const file = (text: string) => {
      const path = join(dir, `file-${++n}`);
      writeFileSync(path, text);
      return path;
    };
    /** The import of `path` into `store` fails with exactly `message`. */
    async function refused(store: Store, path: string, message: string) {
      await assert.rejects(importFile(store, path, later), (error: unknown) => {
        assert.ok(error instanceof ImportError, String(error));
        assert.equal(error.message, message);
        return true;
      });
    }

    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'threatgate-repeated-'));
    });
    after(async () => {
      for (const store of stores) await store.close();
      await backend.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    describe('an iid given twice with other content', () => {
      it('is refused naming both lines, and nothing is kept, when the two are in one write batch', async () => {
        const data = fixtureWith();
        data.indicators.push(repeat(data.indicators[4]!, { risk: 'critical' }));
        const store = await create();
        await refused(store, file(toNdjson(data)), 'line 37: indicator iid 5 conflicts with line 11: the same iid with other content');
        assert.equal(await store.isEmpty(), true);
      });

      it('is refused naming both lines when they are far apart in the file', async () => {
        const data = fixtureWith(1000);
        data.indicators.push(repeat(data.indicators[4]!, { attributes: { port: ['8080'] } }));
        const store = await create();
        await refused(store, file(toNdjson(data)), 'line 1037: indicator iid 5 conflicts with line 11: the same iid with other content');
        assert.equal(await store.isEmpty(), true);
      });

      it('is refused naming both array indexes in a JSON document', async () => {
        const data = fixtureWith(1000);
        data.indicators.splice(900, 0, repeat(data.indicators[4]!, { stamp_seen: '2026-01-01 00:00:00' }));
        await refused(await create(), file(JSON.stringify(data)), 'indicators[900]: indicator iid 5 conflicts with indicators[4]: the same iid with other content');
      });

      it('is refused when the first of the two is what the store already holds', async () => {
        const store = await create();
        await importFile(store, file(toNdjson(fixtureWith(1000))), fixedClock);
        const data = fixtureWith(1000);
        data.indicators.push(repeat(data.indicators[4]!, { retired: true }));
        await refused(store, file(toNdjson(data)), 'line 1037: indicator iid 5 conflicts with line 11: the same iid with other content');
        assert.equal((await dbOf(store).selectFrom('indicators').select('retired').where('iid', '=', 5).executeTakeFirstOrThrow()).retired, 0);
      });

      it('is refused in records given in memory too, naming both indexes', async () => {
        const data = fixtureWith();
        data.indicators.push(repeat(data.indicators[1]!, { indicator: '198.51.100.222' }));
        await assert.rejects(importDataset(await create(), data, fixedClock), /^ImportError: indicators\[30\]: indicator iid 2 conflicts with indicators\[1\]: /);
      });
    });

    describe('a tid or a fid given twice with other content', () => {
      it('is refused naming both lines', async () => {
        const threats = fixtureWith();
        threats.threats.push(repeat(threats.threats[1]!, { description: 'another description' }));
        await refused(await create(), file(toNdjson(threats)), 'line 4: threat tid 2 conflicts with line 2: the same tid with other content');
        const feeds = fixtureWith();
        feeds.feeds.unshift(repeat(feeds.feeds[2]!, { schedule: 'daily' }));
        await refused(await create(), file(toNdjson(feeds)), 'line 7: feed fid 3 conflicts with line 4: the same fid with other content');
      });
    });

    describe('the same record given twice', () => {
      it('is written once, in one write batch or far apart, and the file imports again unchanged', async () => {
        const data = fixtureWith(1000);
        const again: Indicator[] = [data.indicators[4]!, data.indicators[4]!, data.indicators[999]!];
        data.indicators.push(...again);
        data.threats.push(data.threats[0]!);
        data.feeds.unshift(data.feeds[1]!);
        const store = await create();
        const path = file(toNdjson(data));
        const summary = await importFile(store, path, fixedClock);
        assert.deepEqual(summary.read, { threats: 4, feeds: 4, indicators: 1033, links: 43 });
        assert.deepEqual(summary.changed, { threats: 3, feeds: 3, indicators: 1030, links: 43 });
        assert.deepEqual((await importFile(store, path, later)).changed, { threats: 0, feeds: 0, indicators: 0, links: 0 });
      });
    });

    describe('a threat related to a tid neither in the file nor in the store', () => {
      it('is refused with its line, and nothing is kept', async () => {
        const data = fixtureWith();
        data.threats[1]!.related = [1, 77];
        const store = await create();
        await refused(store, file(toNdjson(data)), 'line 2: threat related: no threat with tid 77');
        assert.equal(await store.isEmpty(), true);
      });

      it('is refused with its array index in a JSON document, when given as an object with its tid', async () => {
        const data = fixtureWith();
        (data.threats[2] as unknown as { related: unknown[] }).related = [{ tid: 1, threat: 'Zeus' }, { tid: 78, threat: 'Gone' }];
        await refused(await create(), file(JSON.stringify(data)), 'threats[2]: threat related: no threat with tid 78');
      });
    });

    describe('a threat related to a tid that comes later in the file, or that only the store holds', () => {
      it('is taken', async () => {
        const store = await create();
        // Threat 1, on line 1, is related to threats 2 and 3.
        const first = fixtureWith();
        assert.deepEqual(first.threats[0]!.related, [2, 3]);
        await importFile(store, file(toNdjson(first)), fixedClock);
        const second = { threats: [{ ...first.threats[1]!, tid: 4, threat: 'Emotet II', related: [1, 2] }], feeds: [], indicators: [], links: [] };
        assert.equal((await importFile(store, file(toNdjson(second)), later)).changed.threats, 1);
        assert.deepEqual((await store.findThreat(4))?.related, [1, 2]);
      });
    });
  });
}
