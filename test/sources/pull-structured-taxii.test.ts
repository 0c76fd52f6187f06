// A threatgate mirroring another over TAXII (docs/feeds.md, "Structured sources"): an upstream threatgate on an
// ephemeral port, pages of 3 objects, its requests logged; the downstream pulls its indicators collection as a
// `taxii` source. Every value arrives (quotes and backslashes included) and so do the threat links; a walk that
// breaks midway changes nothing and leaves the cursor where it was; the next walk asks only for what was added
// after the first one's X-TAXII-Date-Added-Last, and only the new values arrive. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { assertSameStore, indicatorsByPattern, openPullWorld, snapshotStore, type LinkedIndicator, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { feedRecord, indicatorRecord, startUpstream, threatRecord, type UpstreamRequest, type UpstreamThreatgate } from '../helpers/upstream-threatgate.js';
import { collectionPath, INDICATORS_COLLECTION, walk } from '../taxii/taxii-request.js';
import { dbOf } from '../helpers/store-db.js';

/** The upstream's indicators: each pattern form our STIX export writes, and URLs with quotes and backslashes. */
const FIRST = [
  indicatorRecord(1, '198.51.100.1', 'ip'),
  indicatorRecord(2, 'malicious.example.com', 'domain', 'critical'),
  indicatorRecord(3, "http://example.com/a'b\\c", 'url'),
  indicatorRecord(4, "https://example.net/x\\'y\\\\z?q='1'", 'url', 'medium'),
  indicatorRecord(5, "http://example.org/\\\\share\\it's", 'url', 'low'),
  indicatorRecord(6, '2001:db8::10', 'ipv6'),
  indicatorRecord(7, '192.0.2.0/24', 'ip'),
  indicatorRecord(8, 'd41d8cd98f00b204e9800998ecf8427e', 'md5'),
  indicatorRecord(9, 'da39a3ee5e6b4b0d3255bfef95601890afd80709', 'sha1'),
  indicatorRecord(10, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'sha256'),
  indicatorRecord(11, 'bad@example.org', 'email'),
];
const FIRST_THREATS = [threatRecord(1, 'Zeus', 'malware', ['Zbot']), threatRecord(2, 'Nimbus Panda', 'group')];
const LINKED = '2026-01-20 00:00:00';
const FIRST_LINKS = [
  ...FIRST.map((i) => ({ iid: i.iid, fid: 1, stamp_linked: LINKED })),
  ...[1, 2, 3, 8].map((iid) => ({ iid, tid: 1, stamp_linked: LINKED })),
  ...[4, 5, 6, 11].map((iid) => ({ iid, tid: 2, stamp_linked: LINKED })),
];

/** Imported upstream after the first pull: more values, one for an existing threat, one for a new one. */
const MORE = [
  indicatorRecord(12, "http://example.com/later'one\\", 'url'),
  indicatorRecord(13, '203.0.113.12', 'ip'),
  indicatorRecord(14, 'later.example.com', 'domain'),
];
const MORE_THREATS = [threatRecord(3, 'Hollow Mantis', 'ransomware')];
const MORE_LINKS = [
  ...MORE.map((i) => ({ iid: i.iid, fid: 1, stamp_linked: LINKED })),
  { iid: 12, tid: 1, stamp_linked: LINKED },
  { iid: 13, tid: 3, stamp_linked: LINKED },
];

const OBJECTS_PATH = `${collectionPath(INDICATORS_COLLECTION)}objects/`;
const sorted = (values: string[]) => [...values].sort();

const counts = (outcome: PullOutcome) =>
  outcome.ok
    ? { ok: true, values: outcome.values, newIndicators: outcome.newIndicators, newThreats: outcome.newThreats, rejected: outcome.rejected, skipped: outcome.skipped }
    : { ok: false, reason: outcome.reason };

for (const backend of storeBackends()) {
  describe(`a threatgate mirrored over TAXII (${backend.name})`, () => {
    let upstream: UpstreamThreatgate;
    let world: PullWorld;
    let fid = 0;
    let first: PullOutcome;
    /** The upstream requests of the first walk. */
    let firstWalk: UpstreamRequest[] = [];

    /** Values of an upstream threat's links, through the upstream's own lookup API. */
    async function upstreamThreatValues(name: string): Promise<string[]> {
      const get = (query: Record<string, string | number>) => request(upstream.app).get('/api/threat.php').query({ ...query, key: upstream.proKey }).expect(200);
      const { tid } = (await get({ threat: name })).body as { tid: number };
      return ((await get({ tid, get: 'links' })).body as { results: LinkedIndicator[] }).results.map((l) => l.indicator);
    }
    async function downstreamThreat(name: string): Promise<{ category: string; othernames: string[]; values: string[] }> {
      const { tid, category, othernames } = (await world.api('threat.php', { threat: name })) as { tid: number; category: string; othernames: string[] };
      const links = (await world.api('threat.php', { tid, get: 'links' })) as { results: LinkedIndicator[] };
      return { category, othernames, values: links.results.map((l) => l.indicator) };
    }
    const upstreamValues = async () => (await dbOf(upstream.store).selectFrom('indicators').select('value').execute()).map((r) => r.value);
    const mirrored = async () => (await world.feedLinks(fid)).map((l) => l.indicator);
    const storedCursor = async () => (await dbOf(world.store).selectFrom('feed_sources').select('cursor').where('fid', '=', fid).executeTakeFirstOrThrow()).cursor;
    /** The walk's requests for the collection's pages (not those fetching threats by id). */
    const pages = (walk: UpstreamRequest[]) => walk.filter((r) => r.path === OBJECTS_PATH && !r.query.has('match[id]'));
    async function pullLogged(): Promise<{ outcome: PullOutcome; walk: UpstreamRequest[] }> {
      const from = upstream.requests.length;
      const outcome = await world.pull(fid);
      return { outcome, walk: upstream.requests.slice(from) };
    }

    before(async () => {
      upstream = await startUpstream(backend, { threats: FIRST_THREATS, feeds: [feedRecord(1, 'Upstream IOC')], indicators: FIRST, links: FIRST_LINKS });
      world = await openPullWorld(backend);
      fid = await world.addSource('Upstream mirror', {
        url: `${upstream.base}${OBJECTS_PATH}`, format: 'taxii', username: 'taxii2', password: upstream.proKey,
      });
      ({ outcome: first, walk: firstWalk } = await pullLogged());
    });
    after(async () => {
      await world?.close();
      await upstream?.close();
      await backend.cleanup();
    });

    describe('the first pull', () => {
      it('walks the whole collection page by page with next, from no added_after, and succeeds', () => {
        assert.deepEqual(counts(first), { ok: true, values: FIRST.length, newIndicators: FIRST.length, newThreats: 2, rejected: 0, skipped: 0 });
        const walked = pages(firstWalk);
        assert.ok(walked.length > 3, `${walked.length} pages`);
        assert.deepEqual(Object.fromEntries(walked[0]!.query), { limit: '1000' });
        for (const page of walked.slice(1)) assert.deepEqual([page.query.get('added_after'), page.query.has('next')], [null, true]);
        assert.ok(firstWalk.every((r) => r.status === 200));
      });

      it('brings every indicator value of the upstream, quotes and backslashes as they were', async () => {
        assert.deepEqual(sorted(await mirrored()), sorted(await upstreamValues()));
        const types = Object.fromEntries((await world.feedLinks(fid)).map((l) => [l.indicator, l.type]));
        assert.deepEqual(types, Object.fromEntries(FIRST.map((i) => [i.indicator, i.type])));
      });

      it('brings the threat links: each upstream threat, by name, links the same values downstream', async () => {
        // Categories follow the STIX types the upstream wrote (malware, intrusion-set); other names come as aliases.
        for (const [name, category, othernames] of [['Zeus', 'malware', ['Zbot']], ['Nimbus Panda', 'group', []]] as const) {
          const mirror = await downstreamThreat(name);
          assert.deepEqual([mirror.category, mirror.othernames], [category, othernames], name);
          assert.deepEqual(sorted(mirror.values), sorted(await upstreamThreatValues(name)), name);
        }
      });

      it('keeps the latest X-TAXII-Date-Added-Last of the walk as the cursor', async () => {
        const dates = firstWalk.map((r) => r.dateAddedLast).filter((d): d is string => d !== undefined);
        assert.ok(dates.length > 0);
        assert.equal(await storedCursor(), dates.sort().at(-1));
        assert.equal(await storedCursor(), pages(firstWalk).at(-1)!.dateAddedLast);
      });

      it('our own TAXII lists the mirrored indicators with the patterns the upstream\'s lists', async () => {
        const ours = [...indicatorsByPattern((await world.taxii()).objects).keys()];
        const theirs = (await walk(upstream.app, upstream.proKey, `${OBJECTS_PATH}?match[type]=indicator`)).flatMap((p) => p.body.objects ?? []);
        assert.deepEqual(sorted(ours), sorted(theirs.map((o) => o.pattern as string)));
        assert.ok(ours.includes("[url:value = 'http://example.com/a\\'b\\\\c']"), ours.join('\n'));
      });
    });

    describe('an upstream that fails midway through the next walk', () => {
      let cursor: string | null;
      let failed: PullOutcome;
      let walk: UpstreamRequest[];
      let before_: Record<string, string[]>;
      before(async () => {
        cursor = await storedCursor();
        await upstream.load({ threats: MORE_THREATS, indicators: MORE, links: MORE_LINKS });
        before_ = await snapshotStore(world.store);
        // The first page is served; every page asked for with `next` fails.
        upstream.failWhen = (path, query) => (path === OBJECTS_PATH && query.has('next') ? 500 : undefined);
        ({ outcome: failed, walk } = await pullLogged());
        upstream.failWhen = undefined;
      });

      it('fails the pull on the failed page, after a first page that was served', () => {
        assert.deepEqual(walk.map((r) => r.status), [200, 500]);
        assert.equal(walk[0]!.query.get('added_after'), cursor);
        assert.equal(failed.ok, false);
        assert.match(!failed.ok ? failed.reason : '', /500/);
        assert.ok(!failed.ok && !failed.reason.includes(upstream.proKey), 'the key is not in the reason');
      });

      it('changes no table: nothing of the first page kept, the cursor where it was', async () => {
        assertSameStore(await snapshotStore(world.store), before_, 'after a walk that failed midway');
        assert.equal(await storedCursor(), cursor);
        const state = await dbOf(world.store).selectFrom('feed_sources').select(['last_error', 'failures']).where('fid', '=', fid).executeTakeFirstOrThrow();
        assert.equal(state.failures, 1);
        assert.ok(state.last_error?.includes('500'), state.last_error ?? 'no error recorded');
      });
    });

    describe('the next pull, once the upstream answers again', () => {
      let cursor: string | null;
      let outcome: PullOutcome;
      let walk: UpstreamRequest[];
      let taxiiCursor: string | undefined;
      before(async () => {
        cursor = await storedCursor();
        taxiiCursor = (await world.taxii()).last;
        ({ outcome, walk } = await pullLogged());
      });

      it('asks with added_after = the first walk\'s last X-TAXII-Date-Added-Last, on every page', () => {
        assert.equal(cursor, pages(firstWalk).at(-1)!.dateAddedLast);
        const walked = pages(walk);
        assert.ok(walked.length > 1, `${walked.length} pages`);
        assert.deepEqual(Object.fromEntries(walked[0]!.query), { added_after: cursor, limit: '1000' });
        for (const page of walked.slice(1)) assert.deepEqual([page.query.get('added_after'), page.query.has('next')], [cursor, true]);
        // A threat added before the cursor that a new relationship points to is fetched by id, whenever it was added.
        for (const byId of walk.filter((r) => r.query.has('match[id]'))) assert.equal(byId.query.get('added_after'), null);
        assert.ok(walk.every((r) => r.status === 200));
      });

      it('brings only the new values, linked to their threats, one of them new', async () => {
        assert.deepEqual(counts(outcome), { ok: true, values: MORE.length, newIndicators: MORE.length, newThreats: 1, rejected: 0, skipped: 0 });
        assert.deepEqual(sorted(await mirrored()), sorted(await upstreamValues()));
        for (const name of ['Zeus', 'Nimbus Panda', 'Hollow Mantis']) {
          assert.deepEqual(sorted((await downstreamThreat(name)).values), sorted(await upstreamThreatValues(name)), name);
        }
        // A ransomware upstream is a STIX malware: a malware here.
        assert.equal((await downstreamThreat('Hollow Mantis')).category, 'malware');
      });

      it('moves the cursor on, and our TAXII lists only the new indicators after a poller\'s cursor', async () => {
        assert.equal(await storedCursor(), pages(walk).at(-1)!.dateAddedLast);
        assert.notEqual(await storedCursor(), cursor);
        const fresh = (await world.taxii(`&added_after=${taxiiCursor}`)).objects;
        assert.equal(indicatorsByPattern(fresh).size, MORE.length);
      });

      it('a pull with nothing new asks once, gets nothing, and is a success', async () => {
        const again = await pullLogged();
        assert.deepEqual(counts(again.outcome), { ok: true, values: 0, newIndicators: 0, newThreats: 0, rejected: 0, skipped: 0 });
        assert.equal(pages(again.walk).length, 1);
        assert.equal(sorted(await mirrored()).length, FIRST.length + MORE.length);
      });
    });
  });
}
