// A threatgate mirroring another's feed over the lookup API (docs/feeds.md, "Structured sources"): an upstream
// threatgate on an ephemeral port with links pages of 5 and a feed of 13 links; the downstream's `lookup-api`
// source reads it with a Pro key, which may read two pages. The pull ends cleanly at the upstream's page limit
// with the first two pages' values and a warning without the key, and the first pull fills the local feed's
// empty descriptive fields from the upstream feed record. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importDataset } from '../../src/import/import-file.js';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { feedRecord, indicatorRecord, startUpstream, type UpstreamRequest, type UpstreamThreatgate } from '../helpers/upstream-threatgate.js';
import { dbOf } from '../helpers/store-db.js';

/** The upstream feed's 13 links, by iid: three pages of 5 (the last of 3). */
const LINKED = [
  indicatorRecord(1, '198.51.100.21', 'ip', 'low'),
  indicatorRecord(2, '203.0.113.22', 'ip', 'medium'),
  indicatorRecord(3, 'one.example.com', 'domain', 'high'),
  indicatorRecord(4, "http://example.com/it's\\here", 'url', 'critical'),
  indicatorRecord(5, '2001:db8::22', 'ipv6', 'unknown'),
  indicatorRecord(6, 'd41d8cd98f00b204e9800998ecf8427e', 'md5', 'none'),
  indicatorRecord(7, 'two.example.com', 'domain', 'high'),
  indicatorRecord(8, '198.51.100.28', 'ip', 'high'),
  indicatorRecord(9, 'phish@example.org', 'email', 'medium'),
  indicatorRecord(10, '192.0.2.0/24', 'ip', 'low'),
  indicatorRecord(11, 'eleven.example.com', 'domain', 'high'),
  indicatorRecord(12, '198.51.100.212', 'ip', 'high'),
  indicatorRecord(13, 'thirteen.example.com', 'domain', 'high'),
];
/** Linked to another upstream feed only. */
const ELSEWHERE = indicatorRecord(14, 'elsewhere.example.com', 'domain', 'high');
const UPSTREAM_FEED = feedRecord(1, 'Upstream IOC', {
  description: 'Command-and-control addresses and phishing hosts seen by Upstream Labs',
  website: 'https://upstream.example/ioc',
  category: 'botnet',
  pricing: 'commercial',
});
const STAMP = '2026-01-20 00:00:00';

const counts = (outcome: PullOutcome) =>
  outcome.ok
    ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, newLinks: outcome.newLinks, rejected: outcome.rejected, skipped: outcome.skipped }
    : { ok: false, reason: outcome.reason };

/** A request as `path?query (status)`, the key already left out by the upstream's log. */
const shown = (r: UpstreamRequest) => `${r.path}?${r.query} ${r.status}`;

for (const backend of storeBackends()) {
  describe(`a threatgate feed mirrored over the lookup API (${backend.name})`, () => {
    let upstream: UpstreamThreatgate;
    let world: PullWorld;
    let fid = 0;
    let first: PullOutcome;
    let firstRequests: UpstreamRequest[] = [];

    const feedPage = (page?: number) => `/api/feed.php?fid=1&get=links${page === undefined ? '' : `&page=${page}`}`;
    const descriptive = async (id: number) => {
      const feed = (await world.api('feed.php', { fid: id })) as Record<string, unknown>;
      return { description: feed.description, website: feed.website, category: feed.category, pricing: feed.pricing };
    };

    before(async () => {
      upstream = await startUpstream(backend, {
        feeds: [UPSTREAM_FEED, feedRecord(2, 'Upstream other')],
        indicators: [...LINKED, ELSEWHERE],
        links: [...LINKED.map((i) => ({ iid: i.iid, fid: 1, stamp_linked: STAMP })), { iid: 14, fid: 2, stamp_linked: STAMP }],
      });
      world = await openPullWorld(backend);
      fid = await world.addSource('Upstream IOC mirror', { url: `${upstream.base}/`, format: 'lookup-api', fid: 1, key: upstream.proKey });
      first = await world.pull(fid);
      firstRequests = [...upstream.requests];
    });
    after(async () => {
      await world?.close();
      await upstream?.close();
      await backend.cleanup();
    });

    it('ends cleanly at the Pro plan\'s two pages: the third page refused, then the feed record read', () => {
      assert.deepEqual(counts(first), { ok: true, values: 10, newIndicators: 10, newLinks: 10, rejected: 0, skipped: 0 });
      assert.deepEqual(firstRequests.map(shown), [`${feedPage()} 200`, `${feedPage(1)} 200`, `${feedPage(2)} 403`, '/api/feed.php?fid=1 200']);
    });

    it('lists exactly the first two pages\' values with their upstream types and risks', async () => {
      const links = await world.feedLinks(fid);
      assert.deepEqual(links.map((l) => [l.indicator, l.type, l.risk]), LINKED.slice(0, 10).map((i) => [i.indicator, i.type, i.risk]));
      const others = await dbOf(world.store).selectFrom('indicators').select('value').where('value', 'in', [...LINKED.slice(10).map((i) => i.indicator), ELSEWHERE.indicator]).execute();
      assert.deepEqual(others, []);
    });

    it('logs one warning for the page limit, and the key nowhere', () => {
      const warnings = world.logLines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.level === 'warn');
      assert.equal(warnings.length, 1, world.logLines.join('\n'));
      assert.match(String(warnings[0]!.msg), /no more pages/);
      assert.deepEqual([warnings[0]!.fid, warnings[0]!.pages, warnings[0]!.refusedPage, warnings[0]!.values], [fid, 2, 2, 10]);
      assert.equal(warnings[0]!.url, `${upstream.base}/api/feed.php`);
      for (const line of world.logLines) assert.ok(!line.includes(upstream.proKey), `the key in: ${line}`);
    });

    it('fills the local feed\'s empty description, website, category and pricing from the upstream feed record', async () => {
      assert.deepEqual(await descriptive(fid), {
        description: UPSTREAM_FEED.description, website: UPSTREAM_FEED.website, category: UPSTREAM_FEED.category, pricing: UPSTREAM_FEED.pricing,
      });
    });

    it('a later pull reads the same two pages, not the feed record, and changes nothing', async () => {
      const from = upstream.requests.length;
      const again = await world.pull(fid);
      assert.deepEqual(counts(again), { ok: true, values: 10, newIndicators: 0, newLinks: 0, rejected: 0, skipped: 0 });
      assert.deepEqual(upstream.requests.slice(from).map(shown), [`${feedPage()} 200`, `${feedPage(1)} 200`, `${feedPage(2)} 403`]);
      assert.equal((await world.feedLinks(fid)).length, 10);
    });

    it('a feed with a description of its own keeps it; only its empty fields are filled', async () => {
      // Never pulled (stamp_pulled null): its first pull is the one that reads the upstream feed record.
      const own = feedRecord(0, 'Described mirror', {
        organization: 'Pull Tests', description: 'Our own words', website: '', category: '', pricing: '', stamp_pulled: null, stamp_modified: null,
      });
      own.fid = await world.store.nextFeedId();
      await importDataset(world.store, { threats: [], feeds: [own], indicators: [], links: [] }, world.clock);
      const described = await world.addSource('Described mirror', { url: `${upstream.base}/`, format: 'lookup-api', fid: 1, key: upstream.proKey });
      assert.equal(described, own.fid);
      assert.equal((await world.pull(described)).ok, true);
      assert.deepEqual(await descriptive(described), {
        description: 'Our own words', website: UPSTREAM_FEED.website, category: UPSTREAM_FEED.category, pricing: UPSTREAM_FEED.pricing,
      });
    });
  });
}
