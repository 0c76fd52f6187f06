// Every transport's bodies framed as `python3 -m http.server` frames them (HTTP/1.0, no length, the body ends at the close; framing-server.ts): text, csv and json lists, TAXII pages, lookup-api pages and a MISP feed's manifest and events, each pulled the same as from a server that sends lengths. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { PullOutcome } from '../../src/sources/pull-feed.js';
import { fixtureFeed, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { proxiedTo, startFramingServer, type FramingServer } from '../helpers/framing-server.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { feedRecord, indicatorRecord, startUpstream, type UpstreamThreatgate } from '../helpers/upstream-threatgate.js';
import { collectionPath, INDICATORS_COLLECTION } from '../taxii/taxii-request.js';

/** The one-body sources, as pull-end-to-end.test.ts reads them, by fixture. */
const LISTS: [name: string, source: Record<string, unknown>][] = [
  ['drop.txt', { format: 'text', risk: 'high' }],
  ['feodo-ipblocklist.csv', { format: 'csv', csv: { header: 'comment', value: 'dst_ip', threat: 'malware' }, risk: 'critical' }],
  ['drop_v4.json', { format: 'json', json: { value: 'cidr' }, risk: 'medium' }],
];

/** The MISP fixture feed's manifest and event files, by path. */
const MISP_FILES = readdirSync(new URL('../fixtures/feeds/misp/', import.meta.url)).map((name) => `/misp/${name}`);

/** Twelve upstream values: four TAXII pages of 3, three lookup-api pages of 5 (the Pro key reads two). */
const UPSTREAM = Array.from({ length: 12 }, (_, i) => indicatorRecord(i + 1, `198.51.100.${i + 1}`, 'ip'));
const LINKED = '2026-01-20 00:00:00';
const OBJECTS_PATH = `${collectionPath(INDICATORS_COLLECTION)}objects/`;

/** What a pull's outcome says of its values (the time it took left out). */
const counts = (outcome: PullOutcome) => (outcome.ok ? { ok: true, values: outcome.values, rejected: outcome.rejected, skipped: outcome.skipped } : outcome);

for (const backend of storeBackends()) {
  describe(`pulls of close-delimited bodies (${backend.name})`, () => {
    let lengths: FeedServer;
    let closing: FramingServer;
    let upstream: UpstreamThreatgate;
    let proxy: FramingServer;
    let world: PullWorld;

    /** The feed's linked values, sorted. */
    const linked = async (fid: number) =>
      (await dbOf(world.store).selectFrom('feed_links').innerJoin('indicators', 'indicators.iid', 'feed_links.iid').select('indicators.value').where('feed_links.fid', '=', fid).execute())
        .map((row) => row.value)
        .sort();

    /** Pulls `source` from both servers, as two feeds: the outcomes and values must be the same. */
    async function pullBoth(name: string, source: (base: string) => Record<string, unknown>, bases: [string, string]): Promise<PullOutcome> {
      const [withLength, closeDelimited] = [
        await world.addSource(`${name} with lengths`, source(bases[0])),
        await world.addSource(`${name} close-delimited`, source(bases[1])),
      ];
      const [expected, got] = [await world.pull(withLength), await world.pull(closeDelimited)];
      assert.equal(got.ok, true, JSON.stringify(got));
      assert.deepEqual(counts(got), counts(expected));
      assert.deepEqual(await linked(closeDelimited), await linked(withLength));
      return got;
    }

    before(async () => {
      lengths = await startFeedServer();
      for (const [name] of LISTS) lengths.publishFixture(name);
      for (const path of MISP_FILES) lengths.publish(path, fixtureFeed(path.slice(1)));
      closing = await startFramingServer({
        framing: 'http10-close',
        answer: (request) => {
          const found = LISTS.find(([name]) => request.path === `/${name}`);
          if (found !== undefined) return { body: fixtureFeed(found[0]) };
          return MISP_FILES.includes(request.path) ? { body: fixtureFeed(request.path.slice(1)) } : { status: 404, body: 'not found' };
        },
      });
      upstream = await startUpstream(backend, {
        feeds: [feedRecord(1, 'Upstream IOC')],
        indicators: UPSTREAM,
        links: UPSTREAM.map((i) => ({ iid: i.iid, fid: 1, stamp_linked: LINKED })),
      });
      // The upstream's answers, gzipped, re-served close-delimited: a TAXII or lookup-api server behind a plain proxy.
      proxy = await startFramingServer({ framing: 'http10-close', gzip: true, answer: proxiedTo(upstream.base) });
      world = await openPullWorld(backend);
    });
    after(async () => {
      await world?.close();
      await proxy?.close();
      await upstream?.close();
      await closing?.close();
      await lengths?.close();
      await backend.cleanup();
    });

    for (const [name, source] of LISTS) {
      it(`a ${source.format} list (${name}) is pulled whole`, async () => {
        const outcome = await pullBoth(name, (base) => ({ url: `${base}/${name}`, ...source }), [lengths.base, closing.base]);
        assert.ok(outcome.ok && outcome.values > 0);
      });
    }

    it('a TAXII collection is walked page by page, every page close-delimited and gzipped', async () => {
      const asked = proxy.requests.length;
      const taxii = (base: string) => ({ url: `${base}${OBJECTS_PATH}`, format: 'taxii', username: 'taxii2', password: upstream.proKey });
      const outcome = await pullBoth('TAXII mirror', taxii, [upstream.base, proxy.base]);
      assert.equal(outcome.ok && outcome.values, UPSTREAM.length);
      const pages = proxy.requests.slice(asked).filter((r) => r.path === OBJECTS_PATH);
      assert.ok(pages.length >= 4, `${pages.length} pages`);
    });

    it('a MISP feed\'s manifest and every event file are read, each close-delimited', async () => {
      const asked = closing.requests.length;
      const outcome = await pullBoth('MISP feed', (base) => ({ url: `${base}/misp/`, format: 'misp', risk: 'medium' }), [lengths.base, closing.base]);
      assert.ok(outcome.ok && outcome.values > 0);
      assert.equal(closing.requests.slice(asked).filter((r) => r.path.startsWith('/misp/')).length, MISP_FILES.length);
    });

    it('lookup-api pages are read to the plan\'s limit, every page close-delimited and gzipped', async () => {
      const asked = proxy.requests.length;
      const lookup = (base: string) => ({ url: `${base}/`, format: 'lookup-api', fid: 1, key: upstream.proKey });
      const outcome = await pullBoth('lookup-api mirror', lookup, [upstream.base, proxy.base]);
      assert.equal(outcome.ok && outcome.values, 10);
      assert.ok(proxy.requests.slice(asked).filter((r) => r.path === '/api/feed.php').length >= 3);
    });
  });
}
