// Pulls of `stix` sources end to end (docs/feeds.md, "Structured sources"): the fixture bundle served over HTTP, and read
// from file://, written by the real store, checked through the lookup API and TAXII: the values of every pattern
// form, what is not stored, threats from `indicates` relationships (their categories, one found by an alias
// reused), and a re-pull that makes no new STIX version. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { importDataset } from '../../src/import/import-file.js';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { indicatorsByPattern, openPullWorld, type LinkedIndicator, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { threatRecord } from '../helpers/upstream-threatgate.js';
import { dbOf } from '../helpers/store-db.js';

const BUNDLE = fileURLToPath(new URL('../fixtures/feeds/stix-bundle.json', import.meta.url));

/** What the fixture bundle gives, in its order: one value per pattern form the reader takes. */
const BUNDLE_VALUES: [string, string, string][] = [
  ['192.0.2.10', 'ip', "[ipv4-addr:value = '192.0.2.10']"],
  ['2001:db8::1', 'ipv6', "[ipv6-addr:value = '2001:db8::1']"],
  ['c2.example.com', 'domain', "[domain-name:value = 'c2.example.com']"],
  // objects[5], the URL with blanks in it, is read but refused by normalization: one rejected value.
  ['phish@example.org', 'email', "[email-addr:value = 'phish@example.org']"],
  // file:hashes.'MD5' and the unquoted file:hashes.MD5 alike.
  ['d41d8cd98f00b204e9800998ecf8427e', 'md5', "[file:hashes.'MD5' = 'd41d8cd98f00b204e9800998ecf8427e']"],
  ['0cc175b9c0f1b6a831c399e269772661', 'md5', "[file:hashes.'MD5' = '0cc175b9c0f1b6a831c399e269772661']"],
  ['da39a3ee5e6b4b0d3255bfef95601890afd80709', 'sha1', "[file:hashes.'SHA-1' = 'da39a3ee5e6b4b0d3255bfef95601890afd80709']"],
  ['e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256', "[file:hashes.'SHA-256' = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855']"],
  // An OR inside one observation expression, and an OR of two.
  ['198.51.100.7', 'ip', "[ipv4-addr:value = '198.51.100.7']"],
  ['bad.example.net', 'domain', "[domain-name:value = 'bad.example.net']"],
  ['203.0.113.5', 'ip', "[ipv4-addr:value = '203.0.113.5']"],
  ['https://example.com/x', 'url', "[url:value = 'https://example.com/x']"],
  // Valid from a later date, until a later one still: listed.
  ['198.51.100.20', 'ip', "[ipv4-addr:value = '198.51.100.20']"],
  // A STIX 2.0-style indicator (labels, no pattern_type) with file:hashes.SHA256.
  ['ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb', 'sha256', "[file:hashes.'SHA-256' = 'ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb']"],
];

/** Values of the bundle's indicators that are not read: AND, revoked, expired, snort, LIKE, and the OR-text inside the refused URL. */
const NOT_STORED = ['203.0.113.6', 'and.example.com', '203.0.113.7', '203.0.113.8', '203.0.113.9', '%.like.example.com', '192.0.2.99'];

const id = (type: string, n: number) => `${type}--7d2b4c61-0e5f-4a38-9b17-${String(n).padStart(12, '0')}`;

/** A bundle of our own: a threat-actor, a malware, and an intrusion set known by an alias of a threat the first pull created. */
const MORE_BUNDLE = JSON.stringify({
  type: 'bundle',
  id: id('bundle', 1),
  objects: [
    { type: 'indicator', spec_version: '2.1', id: id('indicator', 1), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z', pattern: "[url:value = 'http://example.com/a\\'b\\\\c']", pattern_type: 'stix', valid_from: '2026-01-01T00:00:00Z' },
    { type: 'indicator', spec_version: '2.1', id: id('indicator', 2), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z', pattern: "[domain-name:value = 'quill.example.com' OR ipv4-addr:value = '198.51.100.50']", pattern_type: 'stix', valid_from: '2026-01-01T00:00:00Z' },
    { type: 'indicator', spec_version: '2.1', id: id('indicator', 3), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z', pattern: "[ipv4-addr:value = '198.51.100.51']", pattern_type: 'stix', valid_from: '2026-01-01T00:00:00Z' },
    { type: 'threat-actor', spec_version: '2.1', id: id('threat-actor', 1), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z', name: 'Quartz Heron', aliases: ['QH-7'] },
    { type: 'malware', spec_version: '2.1', id: id('malware', 1), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z', name: 'Quill Loader', is_family: true },
    { type: 'intrusion-set', spec_version: '2.1', id: id('intrusion-set', 1), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z', name: 'Copper Group', aliases: ['EG-1'] },
    ...[[1, 'threat-actor'], [2, 'malware'], [3, 'intrusion-set']].map(([n, target]) => ({
      type: 'relationship', spec_version: '2.1', id: id('relationship', n as number), created: '2026-01-01T00:00:00Z', modified: '2026-01-01T00:00:00Z',
      relationship_type: 'indicates', source_ref: id('indicator', n as number), target_ref: id(target as string, 1),
    })),
  ],
});
const QUOTED_URL = "http://example.com/a'b\\c";

const counts = (outcome: PullOutcome) =>
  outcome.ok
    ? {
        ok: true, values: outcome.values, newIndicators: outcome.newIndicators, newLinks: outcome.newLinks, newThreats: outcome.newThreats, rejected: outcome.rejected,
        skipped: outcome.skipped, withdrawn: outcome.withdrawn,
      }
    : { ok: false, reason: outcome.reason };

for (const backend of storeBackends()) {
  describe(`stix sources pulled end to end (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid = 0;
    let first: PullOutcome;

    const threat = (name: string) => world.api('threat.php', { threat: name }) as Promise<{ tid: number; threat: string; category: string; othernames: string[] }>;
    const threatValues = async (tid: number) => ((await world.api('threat.php', { tid, get: 'links' })) as { results: LinkedIndicator[] }).results.map((l) => l.indicator);
    const threatCount = async () => (await dbOf(world.store).selectFrom('threats').select('tid').execute()).length;

    before(async () => {
      server = await startFeedServer();
      // No ETag: a re-pull gets the identical body again and reads it all, relationships included.
      server.publishFixture('stix-bundle.json', { etag: false });
      server.publish('/more.json', MORE_BUNDLE, { etag: false });
      world = await openPullWorld(backend);
      // A threat that exists before any pull, under a name the bundle gives Examplebot as an alias.
      await importDataset(world.store, { threats: [threatRecord(1, 'Example Bot', 'botnet')], feeds: [], indicators: [], links: [] }, world.clock);
      fid = await world.addSource('Example STIX', { url: `${server.base}/stix-bundle.json`, format: 'stix', risk: 'high' });
      first = await world.pull(fid);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    it('pulls the bundle: 14 values, the URL with blanks rejected, AND/snort/LIKE skipped, revoked/expired withdrawn, two threats created', () => {
      assert.deepEqual(counts(first), { ok: true, values: 14, newIndicators: 14, newLinks: 14 + 3, newThreats: 2, rejected: 1, skipped: 3, withdrawn: 2 });
    });

    it('get=links lists the value of every supported pattern form, in the bundle\'s order, at the source\'s risk', async () => {
      const links = await world.feedLinks(fid);
      assert.deepEqual(links.map((l) => [l.indicator, l.type, l.risk]), BUNDLE_VALUES.map(([value, type]) => [value, type, 'high']));
    });

    it('stores nothing of the AND, revoked, expired, snort and LIKE indicators', async () => {
      const stored = await dbOf(world.store).selectFrom('indicators').select('value').where('value', 'in', NOT_STORED).execute();
      assert.deepEqual(stored, []);
      const all = await dbOf(world.store).selectFrom('indicators').select('value').execute();
      assert.equal(all.length, BUNDLE_VALUES.length);
    });

    it('TAXII lists each value as an indicator with its pattern', async () => {
      const { objects } = await world.taxii();
      const patterns = [...indicatorsByPattern(objects).keys()].sort();
      assert.deepEqual(patterns, BUNDLE_VALUES.map(([, , pattern]) => pattern).sort());
    });

    it('indicates relationships give threats with the category of their STIX type; one known by an alias is the existing threat', async () => {
      const group = await threat('Example Group');
      assert.deepEqual([group.category, group.othernames], ['group', ['EG-1']]);
      assert.deepEqual(await threatValues(group.tid), ['c2.example.com']);
      const campaign = await threat('Example Campaign');
      assert.deepEqual([campaign.category, campaign.othernames], ['campaign', ['Operation Example']]);
      assert.deepEqual(await threatValues(campaign.tid), ['phish@example.org']);
      // Examplebot's alias "Example Bot" names the threat imported before: linked there, nothing created, its category kept.
      const existing = await threat('Example Bot');
      assert.deepEqual([existing.tid, existing.threat, existing.category], [1, 'Example Bot', 'botnet']);
      assert.deepEqual(await threatValues(1), ['192.0.2.10']);
      await world.api('threat.php', { threat: 'Examplebot' }, 404);
      // A revoked malware, a revoked relationship, and one to a malware the bundle lacks give nothing.
      await world.api('threat.php', { threat: 'Old Bot' }, 404);
      assert.equal(await threatCount(), 3);
    });

    it('TAXII relates the indicators to their threats with indicates relationships', async () => {
      const { objects } = await world.taxii();
      const byId = new Map(objects.map((o) => [o.id, o]));
      const relations = objects
        .filter((o) => o.type === 'relationship' && o.relationship_type === 'indicates')
        .map((o) => `${(byId.get(o.source_ref as string) as StixObject).pattern} -> ${(byId.get(o.target_ref as string) as StixObject).name}`)
        .sort();
      assert.deepEqual(relations, [
        "[domain-name:value = 'c2.example.com'] -> Example Group",
        "[email-addr:value = 'phish@example.org'] -> Example Campaign",
        "[ipv4-addr:value = '192.0.2.10'] -> Example Bot",
      ]);
    });

    it('a re-pull of the same bundle sees the same values and makes no new STIX version after a TAXII cursor', async () => {
      const cursor = (await world.taxii()).last;
      assert.ok(cursor);
      const before = (await world.api('feed.php', { fid })) as { stamp_modified: string };
      const again = await world.pull(fid);
      // The same bytes are recognized by their hash and not read again, as after a 304: nothing to reject or skip.
      assert.deepEqual(counts(again), { ok: true, values: 14, newIndicators: 0, newLinks: 0, newThreats: 0, rejected: 0, skipped: 0, withdrawn: 0 });
      assert.equal(server.requestsFor('/stix-bundle.json').length, 2);
      assert.deepEqual((await world.taxii(`&added_after=${cursor}`)).objects, []);
      const feed = (await world.api('feed.php', { fid })) as { stamp_pulled: string; stamp_modified: string };
      assert.deepEqual([feed.stamp_pulled, feed.stamp_modified], [world.clock.stamp(), before.stamp_modified]);
      assert.equal(await threatCount(), 3);
    });

    it('the same bundle read from file:// into another feed links the same indicators', async () => {
      const other = await world.addSource('Example STIX file', { url: pathToFileURL(BUNDLE).href, format: 'stix' });
      const outcome = await world.pull(other);
      assert.deepEqual(counts(outcome), { ok: true, values: 14, newIndicators: 0, newLinks: 14, newThreats: 0, rejected: 1, skipped: 3, withdrawn: 2 });
      assert.deepEqual((await world.feedLinks(other)).map((l) => l.iid), (await world.feedLinks(fid)).map((l) => l.iid));
    });

    describe('a bundle with a threat-actor, a malware and an intrusion set known by an alias', () => {
      let more: PullOutcome;
      let cursor: string | undefined;
      before(async () => {
        cursor = (await world.taxii()).last;
        more = await world.pull(await world.addSource('More STIX', { url: `${server.base}/more.json`, format: 'stix' }));
      });

      it('is read whole: a URL with a quote and a backslash, an OR of two values, one more address; two threats created', () => {
        assert.deepEqual(counts(more), { ok: true, values: 4, newIndicators: 4, newLinks: 4 + 4, newThreats: 2, rejected: 0, skipped: 0, withdrawn: 0 });
      });

      it('creates a threat-actor and a malware with their categories, and links the intrusion set\'s value to the threat its alias names', async () => {
        const actor = await threat('Quartz Heron');
        assert.deepEqual([actor.category, actor.othernames], ['threat-actor', ['QH-7']]);
        assert.deepEqual(await threatValues(actor.tid), [QUOTED_URL]);
        const loader = await threat('Quill Loader');
        assert.equal(loader.category, 'malware');
        assert.deepEqual(await threatValues(loader.tid), ['quill.example.com', '198.51.100.50']);
        await world.api('threat.php', { threat: 'Copper Group' }, 404);
        const group = await threat('EG-1');
        assert.equal(group.threat, 'Example Group');
        assert.deepEqual(await threatValues(group.tid), ['c2.example.com', '198.51.100.51']);
        assert.equal(await threatCount(), 5);
      });

      it('TAXII lists the new indicators after the cursor, the URL escaped as a STIX string literal', async () => {
        const fresh = (await world.taxii(`&added_after=${cursor}`)).objects;
        assert.deepEqual([...indicatorsByPattern(fresh).keys()].sort(), [
          "[domain-name:value = 'quill.example.com']",
          "[ipv4-addr:value = '198.51.100.50']",
          "[ipv4-addr:value = '198.51.100.51']",
          "[url:value = 'http://example.com/a\\'b\\\\c']",
        ]);
      });
    });
  });
}
