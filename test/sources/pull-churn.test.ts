// A pull's churn (docs/sources.md, the sanity gate): each run records the share of the previous listing it no longer
// lists; a source's maxChurn refuses a pull that would replace more, before anything is written, and `feeds pull
// --force` keeps it once; a source without maxChurn may replace all of its list; a bad maxChurn is refused by
// `feeds add`. A fixture HTTP server on 127.0.0.1; SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { UsageError } from '../../src/errors.js';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { churnPercent } from '../../src/sources/sanity-gate.js';
import { addressLines, fixtureFeed, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const reasonOf = (outcome: PullOutcome) => (outcome.ok ? `ok ${outcome.values}` : outcome.reason);
/** Ten addresses from `base`: the first `kept` of base..base+9, the rest new ones (base+100 on). Each test has its own base. */
const tenKeeping = (base: number, kept: number) => addressLines(base, kept) + addressLines(base + 100, 10 - kept);

/** A MISP event newer than the fixture's, with one value none of them lists. */
const NEW_EVENT = '5f0c2a10-0000-4000-8000-0000000c4e01';
const NEW_STAMP = '1741392000';
const newEvent = JSON.stringify({
  Event: {
    uuid: NEW_EVENT, info: 'Churn test', date: '2025-03-08', analysis: '2', threat_level_id: '1', published: true, timestamp: NEW_STAMP, Tag: [],
    Attribute: [{ uuid: '5f0c2a10-0000-4000-8000-0000000c4e02', type: 'ip-dst', category: 'Network activity', to_ids: true, deleted: false, value: '203.0.113.77', timestamp: NEW_STAMP }],
  },
});

describe('churnPercent', () => {
  for (const [churn, text] of [[null, '-'], [0, '0%'], [0.0004, '<0.1%'], [0.0333, '3.3%'], [0.7, '70%'], [0.9349, '93%'], [1, '100%']] as const) {
    it(`shows ${churn} as ${text}`, () => assert.equal(churnPercent(churn), text));
  }
});

for (const backend of storeBackends()) {
  describe(`a pull's churn and maxChurn (${backend.name})`, () => {
    let world: PullWorld;
    let server: FeedServer;
    before(async () => {
      world = await openPullWorld(backend);
      server = await startFeedServer();
    });
    after(async () => {
      await server.close();
      await world.close();
      await backend.cleanup();
    });

    const latestRun = async (fid: number) => (await world.store.listFeedRuns(fid, 1))[0];

    it('records no churn for a first pull, and 0.7 for a pull that replaced 7 of 10 values', async () => {
      server.publish('/rotating.txt', tenKeeping(0, 10));
      const fid = await world.addSource('Rotating', { url: `${server.base}/rotating.txt`, format: 'text' });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 10');
      assert.equal((await latestRun(fid))?.churn, null);
      server.publish('/rotating.txt', tenKeeping(0, 3));
      const outcome = await world.pull(fid);
      assert.equal(reasonOf(outcome), 'ok 10');
      assert.equal(outcome.ok && outcome.churn, 0.7);
      const run = await latestRun(fid);
      assert.deepEqual([run?.outcome, run?.unlisted, run?.churn], ['ok', 7, 0.7]);
      const history = await world.feeds(['history', String(fid)]);
      // values, new indicators, new links, unlisted, churn, unparseable, allowlisted, error
      assert.match(history.lines[1]!, /\tok\t[^\t]+\t200\t\d+\t10\t7\t7\t7\t70%\t0\t0\t-$/);
    });

    it('refuses a pull over maxChurn before anything is written, recording a failed run with the reason', async () => {
      server.publish('/gated.txt', tenKeeping(1000, 10));
      const fid = await world.addSource('Gated', { url: `${server.base}/gated.txt`, format: 'text', maxChurn: 0.5 });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 10');
      server.publish('/gated.txt', tenKeeping(1000, 3));
      const before = await snapshotStore(world.store);
      const outcome = await world.pull(fid);
      const reason =
        'the pull would replace 70% of the previous listing (7 of its 10 values no longer listed), more than maxChurn (0.5); kept as an outage (feeds pull --force keeps such a pull once)';
      assert.equal(reasonOf(outcome), reason);
      assertSameStore(await snapshotStore(world.store), before, 'a pull refused for its churn');
      const run = await latestRun(fid);
      assert.deepEqual([run?.outcome, run?.error, run?.values, run?.churn], ['failed', reason, null, null]);
      assert.equal((await world.feedLinks(fid)).length, 10);

      const forced = await world.feeds(['pull', String(fid)], { force: true } as { all?: boolean });
      assert.equal(forced.ok, true, forced.lines.join('\n'));
      assert.match(forced.lines[0]!, /: ok 10 values, 7 new indicators/);
      assert.deepEqual([(await latestRun(fid))?.outcome, (await latestRun(fid))?.churn], ['ok', 0.7]);
      // --force is for that pull only: the gate holds the next one again.
      server.publish('/gated.txt', addressLines(1200, 10));
      assert.match(reasonOf(await world.pull(fid)), /^the pull would replace 100% of the previous listing \(10 of its 10 values no longer listed\), more than maxChurn \(0\.5\)/);
    });

    it('keeps a pull whose churn is maxChurn exactly', async () => {
      server.publish('/edge.txt', tenKeeping(2000, 10));
      const fid = await world.addSource('Edge', { url: `${server.base}/edge.txt`, format: 'text', maxChurn: 0.7 });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 10');
      server.publish('/edge.txt', tenKeeping(2000, 3));
      assert.equal(reasonOf(await world.pull(fid)), 'ok 10');
      assert.equal((await latestRun(fid))?.churn, 0.7);
    });

    it('lets a source without maxChurn replace its whole list', async () => {
      server.publish('/daily.txt', addressLines(3000, 10));
      const fid = await world.addSource('Daily', { url: `${server.base}/daily.txt`, format: 'text' });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 10');
      server.publish('/daily.txt', addressLines(3100, 10));
      assert.equal(reasonOf(await world.pull(fid)), 'ok 10');
      assert.equal((await latestRun(fid))?.churn, 1);
      const [status] = ((await world.feeds(['status'], { json: true } as { all?: boolean })).lines.map((l) => JSON.parse(l)) as { fid: number; churn: number }[][])
        .flat()
        .filter((s) => s.fid === fid);
      assert.equal(status?.churn, 1);
    });

    it('gives an incremental source (misp) no churn, and never refuses its pulls for churn', async () => {
      for (const name of readdirSync(new URL('../fixtures/feeds/misp/', import.meta.url))) server.publish(`/misp/${name}`, fixtureFeed(`misp/${name}`));
      const fid = await world.addSource('Incremental', { url: `${server.base}/misp/`, format: 'misp', maxChurn: 0 });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 12');
      const manifest = JSON.parse(fixtureFeed('misp/manifest.json')) as Record<string, unknown>;
      manifest[NEW_EVENT] = { Orgc: { name: 'Example CERT' }, Tag: [], info: 'Churn test', date: '2025-03-08', timestamp: NEW_STAMP };
      server.publish('/misp/manifest.json', JSON.stringify(manifest));
      server.publish(`/misp/${NEW_EVENT}.json`, newEvent);
      // It lists one value the feed did not list: a full list would have replaced all 12.
      assert.equal(reasonOf(await world.pull(fid)), 'ok 1');
      assert.deepEqual((await world.store.listFeedRuns(fid, 2)).map((r) => [r.outcome, r.churn]), [['ok', null], ['ok', null]]);
    });

    for (const [given, message] of [
      [1.5, 'maxChurn: must be between 0 and 1'],
      [-0.1, 'maxChurn: must be between 0 and 1'],
      ['half', 'maxChurn: must be a number between 0 and 1'],
    ] as const) {
      it(`feeds add refuses maxChurn ${JSON.stringify(given)}, naming the field`, async () => {
        const source = JSON.stringify({ url: `${server.base}/bad.txt`, format: 'text', maxChurn: given });
        await assert.rejects(world.feeds(['add'], { feed: 'Bad churn', organization: 'Pull Tests', source } as { all?: boolean }), (error: unknown) => {
          assert.ok(error instanceof UsageError, String(error));
          assert.ok(error.message.startsWith('feeds add: ') && error.message.endsWith(message), error.message);
          return true;
        });
      });
    }
  });
}
