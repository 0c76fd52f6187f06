// Pulls of `stix` and `taxii` sources whose objects include hostile ones (docs/security.md, "What a feed says is data"): patterns nested 2,000
// and 100,000 parentheses deep once overflowed the stack and failed the whole pull, which a TAXII source, resuming
// from the same cursor, would then fail forever. Now the pull succeeds: the good values are stored and linked, a
// chain of 10,000 ORs is read, a custom property nested 50,000 deep is no trouble, and each unreadable indicator is
// counted as skipped. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const T = '2026-01-01T00:00:00Z';
const id = (type: string, n: number) => `${type}--0b6c3e2a-4d1f-4c8e-9a5b-${String(n).padStart(12, '0')}`;
const indicator = (n: number, pattern: string) => ({
  type: 'indicator', spec_version: '2.1', id: id('indicator', n), created: T, modified: T, pattern, pattern_type: 'stix', valid_from: T,
});
const nested = (depth: number, inner: string) => `${'('.repeat(depth)}${inner}${')'.repeat(depth)}`;

/** Replaced by a JSON array nested 50,000 deep once the objects are text: JSON.stringify itself would overflow on it. */
const DEEP = 'DEEP-PLACEHOLDER';

const OBJECTS = [
  indicator(1, "[ipv4-addr:value = '198.51.100.61']"),
  indicator(2, nested(2_000, "[ipv4-addr:value = '198.51.100.62']")),
  indicator(3, "[domain-name:value = 'still-read.example.com']"),
  // 10,001 comparisons of one URL: read in a loop, one value.
  indicator(4, `[${Array.from({ length: 10_001 }, () => "url:value = 'http://or-chain.example.com/'").join(' OR ')}]`),
  indicator(5, nested(100_000, "[ipv4-addr:value = '198.51.100.65']")),
  { ...indicator(6, "[ipv4-addr:value = '198.51.100.66']"), x_deep: DEEP },
  { type: 'malware', spec_version: '2.1', id: id('malware', 1), created: T, modified: T, name: 'Hostile Test Bot', is_family: true },
  {
    type: 'relationship', spec_version: '2.1', id: id('relationship', 1), created: T, modified: T,
    relationship_type: 'indicates', source_ref: id('indicator', 1), target_ref: id('malware', 1),
  },
];
const withDeep = (text: string) => text.replace(`"${DEEP}"`, `${'['.repeat(50_000)}${']'.repeat(50_000)}`);

const STORED = ['198.51.100.61', 'still-read.example.com', 'http://or-chain.example.com/', '198.51.100.66'];
const NOT_STORED = ['198.51.100.62', '198.51.100.65'];

/** How each format publishes the objects: a bundle, or one TAXII envelope with every object. */
const SOURCES = [
  { format: 'stix', path: '/hostile-bundle.json', body: withDeep(JSON.stringify({ type: 'bundle', id: id('bundle', 1), objects: OBJECTS })), contentType: 'application/json' },
  {
    format: 'taxii', path: '/taxii2/api/collections/hostile/objects/',
    body: withDeep(JSON.stringify({ more: false, objects: OBJECTS })), contentType: 'application/taxii+json;version=2.1',
  },
] as const;

const counts = (outcome: PullOutcome) =>
  outcome.ok
    ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, newThreats: outcome.newThreats, rejected: outcome.rejected, skipped: outcome.skipped }
    : { ok: false, reason: outcome.reason };

for (const backend of storeBackends()) {
  describe(`structured sources with hostile objects among good ones (${backend.name})`, () => {
    after(() => backend.cleanup());

    for (const source of SOURCES) {
      describe(`a ${source.format} source`, () => {
        let server: FeedServer;
        let world: PullWorld;
        let fid = 0;
        let outcome: PullOutcome;

        before(async () => {
          server = await startFeedServer();
          server.publish(source.path, source.body, { etag: false, contentType: source.contentType });
          world = await openPullWorld(backend);
          fid = await world.addSource(`Hostile ${source.format}`, { url: `${server.base}${source.path}`, format: source.format });
          outcome = await world.pull(fid);
        });
        after(async () => {
          await world?.close();
          await server?.close();
        });

        it('succeeds, counting the two indicators nested too deep as skipped', () => {
          assert.deepEqual(counts(outcome), { ok: true, values: STORED.length, newIndicators: STORED.length, newThreats: 1, rejected: 0, skipped: 2 });
        });

        it('stores the good values, the 10,000-OR one and the deeply nested custom property\'s one included, and links the threat', async () => {
          assert.deepEqual((await world.feedLinks(fid)).map((l) => l.indicator).sort(), [...STORED].sort());
          const { tid } = (await world.api('threat.php', { threat: 'Hostile Test Bot' })) as { tid: number };
          const links = (await world.api('threat.php', { tid, get: 'links' })) as { results: { indicator: string }[] };
          assert.deepEqual(links.results.map((l) => l.indicator), ['198.51.100.61']);
        });

        it('stores nothing of the skipped indicators, and records no failure', async () => {
          assert.deepEqual(await dbOf(world.store).selectFrom('indicators').select('value').where('value', 'in', NOT_STORED).execute(), []);
          const state = await dbOf(world.store).selectFrom('feed_sources').select(['last_error', 'failures']).where('fid', '=', fid).executeTakeFirstOrThrow();
          assert.deepEqual({ ...state, failures: Number(state.failures) }, { last_error: null, failures: 0 });
        });
      });
    }
  });
}
