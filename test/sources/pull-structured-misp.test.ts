// Pulls of a `misp` source end to end (docs/feeds.md, "Structured sources"): the fixture feed directory served over HTTP,
// written by the real store, checked through the lookup API and TAXII: the values of the non-deleted events and
// to_ids attributes, threats from galaxies and tags, the cursor; then incremental pulls that fetch only the new
// event (the feed server's request log says so), keep the earlier values listed, and take an empty pull as a
// success. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { fixtureFeed, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { indicatorsByPattern, openPullWorld, type LinkedIndicator, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const A = '5f0c2a10-0000-4000-8000-00000000000a';
const B = '5f0c2a10-0000-4000-8000-00000000000b';
const C = '5f0c2a10-0000-4000-8000-00000000000c';
const D = '5f0c2a10-0000-4000-8000-00000000000d';
/** Event B's publish_timestamp: the newest time of the fixture's events. */
const FIXTURE_CURSOR = '1740790800';
const D_STAMP = '1741392000';

/** Event A's values after normalization: its to_ids attributes, |port address parts, the file object's hashes. */
const VALUES_A: [string, string][] = [
  ['192.0.2.10', 'ip'],
  ['198.51.100.7', 'ip'],
  ['c2.example.com', 'domain'],
  ['mail.example.net', 'domain'],
  ['https://example.com/gate.php?id=1', 'url'],
  ['invoice@example.org', 'email'],
  ['33a477c998d353797df9b7cb0d2100be', 'md5'],
  ['5660a250d7bd68e76d246c5bda6698ef4c6dde05', 'sha1'],
  ['52831702a2a2d61e1b3d64616f86c657c0d710d2b935b4983d1e7364e4673eb4', 'sha256'],
];
const SAMPLE_B = 'a494402ffd18cf67031da3128595a309c6fd716f703ff28005476eed8a2f876e';
const VALUES_B: [string, string][] = [
  ['2001:db8::5', 'ipv6'],
  ['2001:db8::6', 'ipv6'],
  [SAMPLE_B, 'sha256'],
];
/** Left out: to_ids false (also as "0"), a deleted attribute, a deleted object's, a deleted event's, and types not read (domain|ip). */
const NOT_STORED = ['benign.example.org', 'http://example.net/panel/', '203.0.113.99', '203.0.113.98', '192.0.2.200', 'withdrawn.example.com', 'bot.example.net', '192.0.2.44'];

/** An event of our own, newer than the fixture's, tagged with a name Slate Osprey has as a synonym. */
const EVENT_D = JSON.stringify({
  Event: {
    uuid: D, info: 'Slate Osprey infrastructure, second wave', date: '2025-03-08', analysis: '2', threat_level_id: '1', published: true, timestamp: D_STAMP,
    Tag: [{ name: 'tlp:clear' }, { name: 'misp-galaxy:threat-actor="Grey Kestrel"' }],
    Attribute: [
      { uuid: '5f0c2a10-0000-4000-8000-0000000f0000', type: 'ip-dst', category: 'Network activity', to_ids: true, deleted: false, value: '203.0.113.60', timestamp: D_STAMP },
      { uuid: '5f0c2a10-0000-4000-8000-0000000f0001', type: 'url', category: 'Network activity', to_ids: true, deleted: false, value: 'HTTP://Wave2.Example.com/login', timestamp: D_STAMP },
      { uuid: '5f0c2a10-0000-4000-8000-0000000f0002', type: 'domain', category: 'Network activity', to_ids: false, deleted: false, value: 'context.example.com', timestamp: D_STAMP },
    ],
  },
});
const VALUES_D: [string, string][] = [
  ['203.0.113.60', 'ip'],
  ['http://wave2.example.com/login', 'url'],
];

const counts = (outcome: PullOutcome) =>
  outcome.ok
    ? {
        ok: true, values: outcome.values, newIndicators: outcome.newIndicators, newLinks: outcome.newLinks, newThreats: outcome.newThreats, rejected: outcome.rejected,
        skipped: outcome.skipped, withdrawn: outcome.withdrawn,
      }
    : { ok: false, reason: outcome.reason };

for (const backend of storeBackends()) {
  describe(`a misp source pulled end to end (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    let first: PullOutcome;

    const threat = (name: string) => world.api('threat.php', { threat: name }) as Promise<{ tid: number; threat: string; category: string; othernames: string[] }>;
    const threatValues = async (tid: number) => ((await world.api('threat.php', { tid, get: 'links' })) as { results: LinkedIndicator[] }).results.map((l) => l.indicator);
    const listed = (links: LinkedIndicator[]) => links.map((l) => [l.indicator, l.type]);
    /** The values the feed's latest pulls list (what its risk and sightings follow), sorted. */
    const listing = async () =>
      (await dbOf(world.store).selectFrom('source_listings as l').innerJoin('indicators as i', 'i.iid', 'l.iid').select('i.value').where('l.fid', '=', fid).execute())
        .map((r) => r.value)
        .sort();
    const cursor = async () => (await dbOf(world.store).selectFrom('feed_sources').select(['cursor', 'last_error']).where('fid', '=', fid).executeTakeFirstOrThrow());
    /** The paths asked for since request `from`: the first as it came (the manifest comes first), the event files sorted (they are fetched a few at once). */
    const eventRequests = (from: number) => {
      const [manifest, ...events] = server.requests.slice(from).map((r) => r.path);
      return [manifest, ...events.sort()];
    };

    before(async () => {
      server = await startFeedServer();
      for (const name of readdirSync(new URL('../fixtures/feeds/misp/', import.meta.url))) server.publish(`/misp/${name}`, fixtureFeed(`misp/${name}`));
      world = await openPullWorld(backend);
      fid = await world.addSource('Example MISP', { url: `${server.base}/misp/`, format: 'misp', risk: 'medium' });
      first = await world.pull(fid);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('the first pull', () => {
      it('reads the manifest and every event, the deleted one included (its attributes are withdrawn, as are deleted and non-to_ids ones)', () => {
        assert.deepEqual(eventRequests(0), ['/misp/manifest.json', `/misp/${A}.json`, `/misp/${B}.json`, `/misp/${C}.json`]);
        // Threat links: A's 9 values x 3 threats, B's 3 values x ExampleBot, B's sample x ExampleLocker.
        assert.deepEqual(counts(first), { ok: true, values: 12, newIndicators: 12, newLinks: 12 + 27 + 3 + 1, newThreats: 5, rejected: 0, skipped: 4, withdrawn: 6 });
      });

      it('get=links lists the values of the to_ids attributes, normalized, at the source\'s risk', async () => {
        const links = await world.feedLinks(fid);
        assert.deepEqual(listed(links), [...VALUES_A, ...VALUES_B]);
        assert.ok(links.every((l) => l.risk === 'medium'));
        const stored = await dbOf(world.store).selectFrom('indicators').select('value').where('value', 'in', NOT_STORED).execute();
        assert.deepEqual(stored, []);
      });

      it('threats come from threat-actor and malware galaxies and tags, with their synonyms, linked to their event\'s values', async () => {
        const osprey = await threat('Slate Osprey');
        assert.deepEqual([osprey.category, osprey.othernames], ['threat-actor', ['TG-4410', 'Grey Kestrel']]);
        assert.deepEqual(await threatValues(osprey.tid), VALUES_A.map(([v]) => v));
        for (const name of ['ExampleLoader', 'ExampleRAT']) {
          const malware = await threat(name);
          assert.equal(malware.category, 'malware', name);
          assert.deepEqual(await threatValues(malware.tid), VALUES_A.map(([v]) => v), name);
        }
        const bot = await threat('ExampleBot');
        assert.deepEqual([bot.category, bot.othernames], ['botnet', ['ExBot']]);
        assert.deepEqual(await threatValues(bot.tid), VALUES_B.map(([v]) => v));
        // The sample's own cluster is its alone.
        const locker = await threat('ExLocker');
        assert.deepEqual([locker.threat, locker.category], ['ExampleLocker', 'ransomware']);
        assert.deepEqual(await threatValues(locker.tid), [SAMPLE_B]);
        // Neither an attack pattern nor the deleted event's actor is a threat.
        await world.api('threat.php', { threat: 'Spearphishing Link' }, 404);
        await world.api('threat.php', { threat: 'Withdrawn Actor' }, 404);
      });

      it('stores the newest event time as the cursor', async () => {
        assert.deepEqual(await cursor(), { cursor: FIXTURE_CURSOR, last_error: null });
      });
    });

    describe('a second pull after a newer event is published', () => {
      let second: PullOutcome;
      let from = 0;
      let taxiiCursor: string | undefined;
      before(async () => {
        taxiiCursor = (await world.taxii()).last;
        const manifest = JSON.parse(fixtureFeed('misp/manifest.json')) as Record<string, unknown>;
        manifest[D] = { Orgc: { name: 'Example CERT' }, Tag: [], info: 'Slate Osprey infrastructure, second wave', date: '2025-03-08', timestamp: D_STAMP };
        server.publish('/misp/manifest.json', JSON.stringify(manifest));
        server.publish(`/misp/${D}.json`, EVENT_D);
        from = server.requests.length;
        second = await world.pull(fid);
      });

      it('fetches only the manifest and the new event', () => {
        assert.deepEqual(eventRequests(from), ['/misp/manifest.json', `/misp/${D}.json`]);
        assert.deepEqual(counts(second), { ok: true, values: 2, newIndicators: 2, newLinks: 2 + 2, newThreats: 0, rejected: 0, skipped: 0, withdrawn: 1 });
      });

      it('keeps the earlier values listed and linked, and adds the new ones', async () => {
        assert.deepEqual(listed(await world.feedLinks(fid)), [...VALUES_A, ...VALUES_B, ...VALUES_D]);
        assert.deepEqual(await listing(), [...VALUES_A, ...VALUES_B, ...VALUES_D].map(([v]) => v).sort());
      });

      it('links the new values to the threat whose synonym the tag names, creating none', async () => {
        const osprey = await threat('Grey Kestrel');
        assert.equal(osprey.threat, 'Slate Osprey');
        assert.deepEqual(await threatValues(osprey.tid), [...VALUES_A, ...VALUES_D].map(([v]) => v));
      });

      it('moves the cursor to the new event\'s time', async () => {
        assert.deepEqual(await cursor(), { cursor: D_STAMP, last_error: null });
      });

      it('TAXII lists only the new indicators after the poller\'s cursor', async () => {
        const fresh = (await world.taxii(`&added_after=${taxiiCursor}`)).objects;
        assert.deepEqual([...indicatorsByPattern(fresh).keys()].sort(), ["[ipv4-addr:value = '203.0.113.60']", "[url:value = 'http://wave2.example.com/login']"]);
      });
    });

    describe('a pull with nothing new', () => {
      it('fetches the manifest alone, succeeds with no values, drops nothing and keeps the cursor', async () => {
        const from = server.requests.length;
        const before = (await world.api('feed.php', { fid })) as { stamp_modified: string };
        const outcome = await world.pull(fid);
        assert.deepEqual(eventRequests(from), ['/misp/manifest.json']);
        assert.deepEqual(counts(outcome), { ok: true, values: 0, newIndicators: 0, newLinks: 0, newThreats: 0, rejected: 0, skipped: 0, withdrawn: 0 });
        assert.deepEqual(await listing(), [...VALUES_A, ...VALUES_B, ...VALUES_D].map(([v]) => v).sort());
        assert.deepEqual(await cursor(), { cursor: D_STAMP, last_error: null });
        const feed = (await world.api('feed.php', { fid })) as { stamp_pulled: string; stamp_modified: string };
        assert.deepEqual([feed.stamp_pulled, feed.stamp_modified], [world.clock.stamp(), before.stamp_modified]);
      });
    });
  });
}
