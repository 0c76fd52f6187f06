// The sanity gate of full-list pulls (docs/interface.md section 10, "The sanity gate"): an error page, a typo that reads nothing, a renamed field,
// the wrong format and a list that suddenly shrank fail before anything is written, saying what was expected;
// `feeds pull --force` keeps such a pull once; a TAXII URL that is no objects endpoint is refused when added.
// A fixture HTTP server on 127.0.0.1; SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { addressLines, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const reasonOf = (outcome: PullOutcome) => (outcome.ok ? `ok ${outcome.values}` : outcome.reason);
const jsonRows = (field: string, from: number, count: number) =>
  addressLines(from, count).trim().split('\n').map((ip) => JSON.stringify({ [field]: ip, port: 443 })).join('\n');

for (const backend of storeBackends()) {
  describe(`the sanity gate of a pull (${backend.name})`, () => {
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

    /** Pulls the feed, expecting a refusal matching `reason` that changes nothing in the store. */
    async function refused(fid: number, reason: RegExp): Promise<void> {
      const before = await snapshotStore(world.store);
      const outcome = await world.pull(fid);
      assert.match(reasonOf(outcome), reason);
      assertSameStore(await snapshotStore(world.store), before, 'a refused pull');
    }

    it('an HTML page where a 25-address list was is an outage, and --force keeps it once', async () => {
      server.publish('/list.txt', addressLines(0, 25));
      const fid = await world.addSource('Moved list', { url: `${server.base}/list.txt`, format: 'text', risk: 'high' });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 25');
      server.publish('/list.txt', '<!DOCTYPE html>\n<html><head><title>Moved</title></head><body>\n<p>This list moved to</p>\nlists.example.org\n</body></html>\n', { contentType: 'text/html' });
      await refused(fid, /^the body is an HTML page \(text\/html\) where a text list was expected: the feed may have moved or need a login; kept as an outage \(feeds pull --force keeps such a pull once\)$/);
      assert.equal((await world.feedLinks(fid)).filter((l) => l.risk === 'high').length, 25, 'the 25 addresses keep the source\'s risk');
      const forced = await world.feeds(['pull', String(fid)], { force: true } as { all?: boolean });
      assert.equal(forced.ok, true, forced.lines.join('\n'));
      assert.match(forced.lines[0]!, /: ok 1 values, 1 new indicators/);
    });

    it('a json.value typo reads nothing from a non-empty body: the first pull fails naming the field', async () => {
      server.publish('/typo.json', jsonRows('ip_address', 100, 20));
      const fid = await world.addSource('Typo', { url: `${server.base}/typo.json`, format: 'json', json: { value: 'ip_adress' } });
      await refused(fid, /^the first pull read no values from a body of \d+ bytes \(0 rows rejected and 20 without a value\): expected a value at "ip_adress" \(json\.value\) of each object/);
    });

    it('a field renamed on 18 of 20 rows fails: more rows without a value than with one', async () => {
      const rows = jsonRows('ip', 200, 2) + '\n' + jsonRows('ip_addr', 202, 18);
      server.publish('/renamed.json', rows);
      const fid = await world.addSource('Renamed', { url: `${server.base}/renamed.json`, format: 'json', json: { value: 'ip' } });
      await refused(fid, /^18 rows rejected or without a value against 2 accepted: expected a value at "ip" \(json\.value\) of each object; kept as an outage/);
    });

    it('format text on a JSON body fails saying a JSON body needs format json', async () => {
      server.publish('/wrong.txt', JSON.stringify(addressLines(300, 21).trim().split('\n').map((ip) => ({ ip }))));
      const fid = await world.addSource('Wrong format', { url: `${server.base}/wrong.txt`, format: 'text' });
      await refused(fid, /^the first pull read no values from a body of \d+ bytes \(1 rows rejected and 0 without a value\): expected one value a line \(a JSON or CSV body needs format json or csv\)/);
    });

    it('a list that shrinks below minRatio of the last good pull fails; one above it is kept', async () => {
      server.publish('/shrink.txt', addressLines(400, 25));
      const fid = await world.addSource('Shrinking', { url: `${server.base}/shrink.txt`, format: 'text' });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 25');
      server.publish('/shrink.txt', addressLines(400, 10));
      await refused(fid, /^the source listed 10 values where its last good pull listed 25, fewer than minRatio \(0\.5\) of them; kept as an outage/);
      server.publish('/shrink.txt', addressLines(400, 13));
      assert.equal(reasonOf(await world.pull(fid)), 'ok 13');
    });

    it('minRatio 0 lets a source shrink as it will', async () => {
      server.publish('/volatile.txt', addressLines(500, 20));
      const fid = await world.addSource('Volatile', { url: `${server.base}/volatile.txt`, format: 'text', minRatio: 0 });
      assert.equal(reasonOf(await world.pull(fid)), 'ok 20');
      server.publish('/volatile.txt', addressLines(500, 1));
      assert.equal(reasonOf(await world.pull(fid)), 'ok 1');
    });

    it('feeds add refuses a TAXII URL that is no objects endpoint, naming the one to use for a collection', async () => {
      await assert.rejects(world.addSource('Collection', { url: 'https://taxii.example.org/api1/collections/91a7b528-80eb-42ed-a74d-c6fbd5a26116/', format: 'taxii' }), {
        message: 'source.url: is a TAXII collection, not its objects: use https://taxii.example.org/api1/collections/91a7b528-80eb-42ed-a74d-c6fbd5a26116/objects/',
      });
      await assert.rejects(world.addSource('API root', { url: 'https://taxii.example.org/api1/', format: 'taxii' }), { message: /^source\.url: is not a TAXII collection's objects URL/ });
    });
  });
}
