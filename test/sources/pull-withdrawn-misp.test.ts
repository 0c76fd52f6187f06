// A MISP feed that takes values back (docs/interface.md section 10, "Withdrawn values"): on a later pull an updated event marks an attribute
// deleted or no longer to_ids, and another event is deleted whole. Though the feed is incremental (what a pull
// does not send stays listed), those values leave its listing: retired when no other source lists them, at a
// local list's risk when one does; the attribute left alone stays. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const E1 = '6a1d3b20-0000-4000-8000-0000000000e1';
const E2 = '6a1d3b20-0000-4000-8000-0000000000e2';
const KEPT = '203.0.113.41';
const DELETED = 'deleted.example.com';
const NOT_IDS = 'http://not-ids.example.com/x';
/** Deleted in E1, and listed by a local list at medium. */
const SHARED = '203.0.113.44';
/** The only value of E2, which is deleted whole. */
const IN_DELETED_EVENT = '203.0.113.45';

interface Attribute {
  type: string;
  value: string;
  to_ids?: boolean;
  deleted?: boolean;
}

const event = (uuid: string, timestamp: number, attributes: Attribute[], deleted = false) =>
  JSON.stringify({
    Event: {
      uuid, info: `event ${uuid}`, timestamp: String(timestamp), deleted,
      Attribute: attributes.map((a, i) => ({ uuid: `${uuid.slice(0, -3)}${String(i).padStart(3, '0')}`, category: 'Network activity', to_ids: true, deleted: false, ...a })),
    },
  });

const E1_FIRST: Attribute[] = [
  { type: 'ip-dst', value: KEPT },
  { type: 'domain', value: DELETED },
  { type: 'url', value: NOT_IDS },
  { type: 'ip-dst', value: SHARED },
];
const E1_LATER: Attribute[] = [
  { type: 'ip-dst', value: KEPT },
  { type: 'domain', value: DELETED, deleted: true },
  { type: 'url', value: NOT_IDS, to_ids: false },
  { type: 'ip-dst', value: SHARED, deleted: true },
];

const counts = (outcome: PullOutcome) => (outcome.ok ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, withdrawn: outcome.withdrawn } : { ok: false, reason: outcome.reason });

for (const backend of storeBackends()) {
  describe(`a MISP feed whose later events take values back (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    let first: PullOutcome;

    const publish = (stamp: number, deletedEvent: boolean) => {
      server.publish('/misp/manifest.json', JSON.stringify({ [E1]: { timestamp: String(stamp) }, [E2]: { timestamp: String(stamp) } }));
      server.publish(`/misp/${E1}.json`, event(E1, stamp, deletedEvent ? E1_LATER : E1_FIRST));
      server.publish(`/misp/${E2}.json`, event(E2, stamp, [{ type: 'ip-src', value: IN_DELETED_EVENT }], deletedEvent));
    };
    const risks = async () =>
      Object.fromEntries((await dbOf(world.store).selectFrom('indicators').select(['value', 'risk']).orderBy('value').execute()).map((r) => [r.value, r.risk]));
    const listing = async () =>
      (await dbOf(world.store).selectFrom('source_listings as l').innerJoin('indicators as i', 'i.iid', 'l.iid').select('i.value').where('l.fid', '=', fid).execute())
        .map((r) => r.value)
        .sort();

    before(async () => {
      server = await startFeedServer();
      server.publish('/local.txt', `${SHARED}\n`);
      publish(1_741_000_000, false);
      world = await openPullWorld(backend);
      const local = await world.addSource('Local list', { url: `${server.base}/local.txt`, format: 'text', risk: 'medium' });
      assert.equal((await world.pull(local)).ok, true);
      fid = await world.addSource('Example MISP', { url: `${server.base}/misp/`, format: 'misp', risk: 'high' });
      first = await world.pull(fid);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('the first pull lists every to_ids attribute at the source\'s risk', async () => {
      assert.deepEqual(counts(first), { ok: true, values: 5, newIndicators: 4, withdrawn: 0 });
      const now = await risks();
      for (const value of [KEPT, DELETED, NOT_IDS, SHARED, IN_DELETED_EVENT]) assert.equal(now[value], 'high', value);
    });

    describe('a later pull of the updated events', () => {
      let second: PullOutcome;
      before(async () => {
        publish(1_741_100_000, true);
        second = await world.pull(fid);
      });

      it('reads the deleted, the no-longer-to_ids and the deleted event\'s values as withdrawn', () => {
        assert.deepEqual(counts(second), { ok: true, values: 1, newIndicators: 0, withdrawn: 4 });
      });

      it('takes them out of the feed\'s listing, incremental as it is, and keeps the attribute left alone', async () => {
        assert.deepEqual(await listing(), [KEPT]);
      });

      it('retires those no other source lists, and gives the deleted one a local list also lists that list\'s risk', async () => {
        const now = await risks();
        assert.deepEqual(
          { kept: now[KEPT], deleted: now[DELETED], notIds: now[NOT_IDS], inDeletedEvent: now[IN_DELETED_EVENT], shared: now[SHARED] },
          { kept: 'high', deleted: 'retired', notIds: 'retired', inDeletedEvent: 'retired', shared: 'medium' },
        );
      });
    });
  });
}
