// What a pull keeps of the threats it names (docs/sources.md, "What a pull keeps"): a STIX bundle
// served over HTTP gives threats that exist the aliases they lack (case ignored, none that names another threat,
// bounded), a new version of their STIX objects with them; threats a pull creates are active, with the source's
// risk, and a source's `threat` with the category it names. Read through the lookup API and TAXII. SQLite and
// PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import { MAX_PULLED_OTHERNAMES } from '../../src/store/ingest/pull-threats.js';
import { fixtureFeed, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { threatRecord } from '../helpers/upstream-threatgate.js';

interface ThreatBody {
  tid: number;
  threat: string;
  category: string;
  othernames: string[];
  risk: string;
  retired: boolean | null;
  stamp_updated: string;
}

/** Other names a threat has before the pull: one short of the bound, so one of the bundle's three fits. */
const WIDE_NET_NAMES = Array.from({ length: MAX_PULLED_OTHERNAMES - 1 }, (_, i) => `Wide Net ${i + 1}`);

for (const backend of storeBackends()) {
  describe(`threats a pull names (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let stix = 0;
    let imported: Map<string, StixObject>;

    const threat = (name: string) => world.api('threat.php', { threat: name }) as Promise<ThreatBody>;
    /** The latest STIX object of each threat in the indicators collection, by name. */
    const threatObjects = async () =>
      new Map((await world.taxii()).objects.filter((o) => typeof o.name === 'string' && o.type !== 'identity').map((o) => [o.name as string, o]));

    before(async () => {
      server = await startFeedServer();
      // No ETag: each pull reads the body it gets.
      server.publishFixture('stix-aliases.json', { etag: false });
      server.publishFixture('blocklist-de.txt', { etag: false });
      world = await openPullWorld(backend);
      await importDataset(
        world.store,
        {
          threats: [threatRecord(1, 'Quartz Heron', 'threat-actor', ['QH-7']), threatRecord(2, 'Copper Group', 'group'), threatRecord(3, 'Wide Net', 'malware', WIDE_NET_NAMES)],
          feeds: [],
          indicators: [],
          links: [],
        },
        world.clock,
      );
      imported = await threatObjects();
      stix = await world.addSource('Example STIX aliases', { url: `${server.base}/stix-aliases.json`, format: 'stix', risk: 'medium' });
      const outcome = await world.pull(stix);
      assert.ok(outcome.ok && outcome.newThreats === 1, JSON.stringify(outcome));
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('a threat found by its name', () => {
      it('takes the aliases it lacks, each once whatever its case, and none that names another threat', async () => {
        const heron = await threat('Quartz Heron');
        assert.deepEqual([heron.tid, heron.othernames], [1, ['QH-7', 'Heron Team']]);
        assert.equal(heron.stamp_updated, world.clock.stamp());
        // "Copper Group" is another threat's name: it still finds that one.
        assert.equal((await threat('Copper Group')).tid, 2);
        assert.equal((await threat('heron team')).tid, 1);
      });

      it('keeps its category and risk: a pull creates no threat it finds', async () => {
        const heron = await threat('Quartz Heron');
        assert.deepEqual([heron.category, heron.risk, heron.retired], ['threat-actor', 'high', false]);
      });

      it('gets a new STIX version whose aliases carry them', async () => {
        const object = (await threatObjects()).get('Quartz Heron')!;
        assert.deepEqual(object.aliases, ['QH-7', 'Heron Team']);
        assert.ok(object.modified > imported.get('Quartz Heron')!.modified, `${object.modified} after ${imported.get('Quartz Heron')!.modified}`);
      });

      it(`takes aliases only up to ${MAX_PULLED_OTHERNAMES} other names`, async () => {
        const wide = await threat('Wide Net');
        assert.deepEqual(wide.othernames, [...WIDE_NET_NAMES, 'wn-a']);
        await world.api('threat.php', { threat: 'wn-b' }, 404);
      });
    });

    describe('a threat found by an alias', () => {
      it('takes the other aliases it lacks, not the name the source calls it by', async () => {
        const copper = await threat('Cu Group');
        assert.deepEqual([copper.tid, copper.threat, copper.othernames, copper.category], [2, 'Copper Group', ['Cu Group'], 'group']);
        await world.api('threat.php', { threat: 'CG-2' }, 404);
      });
    });

    describe('a threat the pull creates', () => {
      it('is active, with the source\'s risk and the category of its STIX type', async () => {
        const loader = await threat('Quill Loader');
        assert.deepEqual([loader.category, loader.risk, loader.retired, loader.othernames], ['malware', 'medium', false, ['QuillDrop']]);
      });

      it('named by a source\'s threat option, takes that option\'s category and the source\'s risk', async () => {
        const fid = await world.addSource('Example list', { url: `${server.base}/blocklist-de.txt`, format: 'text', risk: 'high', threat: { name: 'Example Crew', category: 'group' } });
        const outcome = await world.pull(fid);
        assert.ok(outcome.ok && outcome.newThreats === 1, JSON.stringify(outcome));
        const crew = await threat('Example Crew');
        assert.deepEqual([crew.category, crew.risk, crew.retired], ['group', 'high', false]);
        const links = (await world.api('threat.php', { tid: crew.tid, get: 'links' })) as { results: { indicator: string }[] };
        assert.deepEqual(links.results.map((l) => l.indicator).sort(), ['192.0.2.10', '192.0.2.11', '198.51.100.7', '203.0.113.99']);
      });

      it('named by a retired source, is created with risk unknown, still active', async () => {
        const fid = await world.addSource('Example retired list', { url: `${server.base}/blocklist-de.txt`, format: 'text', risk: 'retired', threat: 'Example Remnant' });
        assert.ok((await world.pull(fid)).ok);
        const remnant = await threat('Example Remnant');
        assert.deepEqual([remnant.category, remnant.risk, remnant.retired], ['malware', 'unknown', false]);
      });
    });

    describe('the same bundle read again', () => {
      it('changes no threat and makes no new STIX version', async () => {
        const cursor = (await world.taxii()).last;
        // All but stamp_seen, which a sighting moves (docs/interface.md section 10, "Pulls").
        const records = async () =>
          (await Promise.all(['Quartz Heron', 'Copper Group', 'Quill Loader', 'Wide Net'].map(threat))).map(({ tid, category, othernames, risk, retired, stamp_updated }) => ({
            tid, category, othernames, risk, retired, stamp_updated,
          }));
        const before = await records();
        const feed = (await world.api('feed.php', { fid: stix })) as { stamp_modified: string };
        // Another body (a newline more), so the pull reads it all rather than recognizing its hash.
        server.publish('/stix-aliases.json', `${fixtureFeed('stix-aliases.json')}\n`, { etag: false });
        const again = await world.pull(stix);
        assert.ok(again.ok && again.newThreats === 0 && again.newLinks === 0, JSON.stringify(again));
        assert.deepEqual(await records(), before);
        assert.deepEqual((await world.taxii(`&added_after=${cursor}`)).objects, []);
        assert.equal(((await world.api('feed.php', { fid: stix })) as { stamp_modified: string }).stamp_modified, feed.stamp_modified);
      });
    });
  });
}
