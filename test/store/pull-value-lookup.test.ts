// How a pull finds the indicator of each value it lists (pull-writer.ts, stageValues): the lowest iid
// of the stored indicators of its type and value, else a new one. PostgreSQL looks a short list up
// value by value in the index and joins a long one by hash with a read of indicators; both must
// give the same indicators, duplicates (an import may store one value under two iids) included.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { addressLines } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

/** Addresses listed after the imported ones: enough that PostgreSQL joins them by hash. */
const LONG = 30_000;

function indicator(iid: number, value: string) {
  return {
    iid, indicator: value, type: 'ip', risk: 'low', stamp_added: '2026-01-01 00:00:00', stamp_updated: '2026-01-01 00:00:00',
    stamp_seen: '2026-01-01 00:00:00', retired: false, attributes: {}, properties: {},
  };
}

for (const backend of storeBackends()) {
  describe(`a pull's values find their indicators (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    before(async () => {
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-value-lookup-'));
      // 203.0.113.9 stored twice (iids 9 and 5), 203.0.113.7 once; the pulls below list both.
      await importDataset(world.store, {
        threats: [], feeds: [], links: [],
        indicators: [indicator(9, '203.0.113.9'), indicator(5, '203.0.113.9'), indicator(7, '203.0.113.7')],
      }, world.clock);
    });
    after(async () => {
      await world.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    /** The iids the feed lists, by value, for the values given. */
    const listed = async (fid: number, values: string[]) => {
      const rows = await dbOf(world.store)
        .selectFrom('source_listings as l')
        .innerJoin('indicators as i', 'i.iid', 'l.iid')
        .select(['i.value', 'i.iid'])
        .where('l.fid', '=', fid)
        .where('i.value', 'in', values)
        .orderBy('i.value')
        .execute();
      return rows.map((r) => [r.value, Number(r.iid)]);
    };

    // The third list is short again in a store grown large: PostgreSQL probes the value index for it.
    const lists = [['a short list', 3], ['a long list', LONG], ['a short list among 30,000 stored values', 3]] as const;
    for (const [at, [name, extra]] of lists.entries()) {
      it(`${name}: a stored value its lowest iid, a new one the next free iid`, async () => {
        const list = join(dir, `${at}.txt`);
        writeFileSync(list, `203.0.113.9\n203.0.113.7\n${addressLines(0, extra)}203.0.113.9\n`);
        const fid = await world.addSource(`List ${at}`, { url: pathToFileURL(list).href, format: 'text', risk: 'high' });
        const outcome = await world.pull(fid);
        assert.equal(outcome.ok, true, JSON.stringify(outcome));
        assert.deepEqual(await listed(fid, ['203.0.113.7', '203.0.113.9']), [['203.0.113.7', 7], ['203.0.113.9', 5]]);
        const counts = await dbOf(world.store)
          .selectFrom('source_listings')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<number>('iid').as('first'), eb.fn.max<number>('iid').as('last')])
          .where('fid', '=', fid)
          .where('iid', 'not in', [5, 7])
          .executeTakeFirstOrThrow();
        // The first short list's new values follow the imported iids; the long list's reuse those
        // three and number the rest after the highest iid stored; the last list's are all stored.
        assert.equal(Number(counts.n), extra);
        if (extra === 3) assert.deepEqual([Number(counts.first), Number(counts.last)], [10, 12]);
        else assert.deepEqual([Number(counts.first), Number(counts.last)], [10, 10 + extra - 1]);
      });
    }
  });
}
