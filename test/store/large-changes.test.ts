// Writes whose changes are counted in tens of thousands of records: the change set takes their keys
// in statements of bounded size, as SQLite binds at most 32,766 values in one statement and
// PostgreSQL 65,535. A pull that raises the risk of more stored indicators than that failed with
// "too many SQL variables" before.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { countChanged, noteChanged } from '../../src/store/changes/change-set.js';
import { createChangeTables, dropChangeTables } from '../../src/store/changes/change-tables.js';
import { addressLines } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf, dialectOf } from '../helpers/store-db.js';

/** More than SQLite binds in one statement. */
const RAISED = 33_000;
/** More than PostgreSQL binds in one statement. */
const NOTED = 70_000;

for (const backend of storeBackends()) {
  describe(`changes of tens of thousands of records (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    before(async () => {
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-large-changes-'));
    });
    after(async () => {
      await world.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    // Past SQLite's limit; PostgreSQL's would take a pull twice that size, and the change set's own
    // test below holds both limits.
    it(`a pull that raises the risk of ${RAISED.toLocaleString('en-US')} stored indicators`, { skip: backend.name !== 'SQLite' && 'past SQLite\'s limit only' }, async () => {
      const list = join(dir, 'list.txt');
      writeFileSync(list, addressLines(0, RAISED));
      const low = await world.addSource('Low list', { url: pathToFileURL(list).href, format: 'text', risk: 'low' });
      const high = await world.addSource('High list', { url: pathToFileURL(list).href, format: 'text', risk: 'high' });
      assert.equal((await world.pull(low)).ok, true);
      const raised = await world.pull(high);
      assert.equal(raised.ok, true, JSON.stringify(raised));
      const { rows } = await dbOf(world.store).selectFrom('indicators').select((eb) => [eb.fn.countAll<number>().as('n'), 'risk']).groupBy('risk').execute().then((r) => ({ rows: r }));
      assert.deepEqual(rows.map((r) => [r.risk, Number(r.n)]), [['high', RAISED]]);
    });

    it(`the change set notes ${NOTED.toLocaleString('en-US')} keys at once`, async () => {
      const keys = Array.from({ length: NOTED }, (_, i) => i + 1);
      const noted = await dbOf(world.store).transaction().execute(async (trx) => {
        await createChangeTables(trx, dialectOf(world.store), false);
        await noteChanged(trx, 'indicators', keys);
        await noteChanged(trx, 'indicators', keys.slice(0, 10));
        const n = await countChanged(trx, 'indicators');
        await dropChangeTables(trx);
        return n;
      });
      assert.equal(noted, NOTED);
    });
  });
}
