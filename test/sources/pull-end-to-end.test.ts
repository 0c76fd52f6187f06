// Feed pulls end to end (docs/interface.md section 10, "Pulls"): five real source shapes fetched over HTTP from a local
// server, written by the real store, read back through the lookup API and TAXII; re-pulls (304 and an identical
// body), a changed source, and the highest-risk rule across two feeds. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stixIdForIndicator } from '../../src/stix/index.js';
import { etagOf, fixtureFeed, startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { indicatorsByPattern, openPullWorld, type LinkedIndicator, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';

const ipPattern = (value: string) => `[ipv4-addr:value = '${value}']`;
const domainPattern = (value: string) => `[domain-name:value = '${value}']`;
const urlPattern = (value: string) => `[url:value = '${value}']`;

/** [value, type, risk] of each linked indicator, in iid order (the API's order). */
const listed = (links: LinkedIndicator[]) => links.map((l) => [l.indicator, l.type, l.risk]);

const DROP_VALUES = ['192.0.2.0/24', '198.51.100.0/25', '203.0.113.128/25'];
const DOMAINS = ['malware-drop.example.org', 'phish.example.net', 'c2.example.com', 'xn--bcher-login-thb.example'];
const URLHAUS_VALUES = ['http://192.0.2.77/bins/mozi.m', 'https://example.com/download.php?file=a,b&x="y"'];

for (const backend of storeBackends()) {
  describe(`feed pulls end to end (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    const fids = { drop: 0, feodo: 0, urlhaus: 0, dropJson: 0, domains: 0 };
    const pulledAt: Record<keyof typeof fids, string> = { drop: '', feodo: '', urlhaus: '', dropJson: '', domains: '' };
    const outcomes: Record<string, unknown> = {};

    /** stamp_seen of the indicators with these values, as their lookups give it (the rows' own, or their feeds' listing stamps). */
    const seenOf = async (values: string[]) => {
      const rows = await dbOf(world.store).selectFrom('indicators').select(['iid', 'value']).where('value', 'in', values).orderBy('value').execute();
      return Promise.all(rows.map(async (r) => (await world.store.findIndicator(Number(r.iid)))?.stamp_seen));
    };
    const feedRecord = (fid: number) => world.api('feed.php', { fid }) as Promise<{ stamp_pulled: string | null; stamp_modified: string | null; accesslink: string }>;

    before(async () => {
      server = await startFeedServer();
      server.publishFixture('drop.txt');
      server.publishFixture('feodo-ipblocklist.csv');
      // URLhaus is served without an ETag: its re-pull gets the identical body again.
      server.publishFixture('urlhaus.csv', { etag: false });
      server.publishFixture('drop_v4.json');
      server.publishFixture('domains.txt');
      world = await openPullWorld(backend);
      fids.drop = await world.addSource('Example DROP', { url: `${server.base}/drop.txt`, format: 'text', risk: 'high', schedule: 'every 6h' });
      fids.feodo = await world.addSource('Example Feodo', {
        url: `${server.base}/feodo-ipblocklist.csv`, format: 'csv', csv: { header: 'comment', value: 'dst_ip', threat: 'malware' }, risk: 'critical',
      });
      fids.urlhaus = await world.addSource('Example URLhaus', {
        url: `${server.base}/urlhaus.csv`, format: 'csv', csv: { header: 'comment', value: 'url' }, threat: 'Example Loader',
      });
      fids.dropJson = await world.addSource('Example DROP json', { url: `${server.base}/drop_v4.json`, format: 'json', json: { value: 'cidr' }, risk: 'medium' });
      fids.domains = await world.addSource('Example domains', { url: `${server.base}/domains.txt`, format: 'text', risk: 'low' });
      for (const name of Object.keys(fids) as (keyof typeof fids)[]) {
        outcomes[name] = await world.pull(fids[name]);
        pulledAt[name] = world.clock.stamp();
      }
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    describe('first pulls of five source shapes', () => {
      const counts = (values: number, newIndicators: number, newLinks: number, rejected: number, allowlisted: number, skipped: number) => ({
        ok: true, values, newIndicators, newLinks, rejected, allowlisted, skipped,
      });
      const expected: [keyof typeof fids, ReturnType<typeof counts>, string][] = [
        ['drop', counts(3, 3, 3, 0, 0, 0), 'three CIDR blocks, comments after ";" dropped'],
        ['feodo', counts(3, 3, 5, 0, 0, 1), 'three addresses and two malware links; the row with an empty dst_ip skipped'],
        ['urlhaus', counts(2, 2, 4, 1, 0, 0), 'two URLs linked to the source threat; the quoted URL with a line break in it rejected'],
        ['dropJson', counts(3, 0, 3, 0, 0, 1), 'the DROP blocks again: no new indicator, three links; the metadata line skipped'],
        ['domains', counts(4, 4, 4, 1, 1, 0), 'four distinct names, one of them listed twice; a bad one rejected, one under localhost allowlisted'],
      ];
      for (const [name, want, what] of expected) {
        it(`${name}: ${what}`, () => {
          const outcome = outcomes[name] as Record<string, unknown>;
          assert.deepEqual(Object.fromEntries(Object.keys(want).map((k) => [k, outcome[k]])), want);
        });
      }

      it('get=links lists each feed\'s normalized values with their type, risk and the pull\'s time', async () => {
        const wanted: [keyof typeof fids, string[][]][] = [
          ['drop', DROP_VALUES.map((v) => [v, 'ip', 'high'])],
          ['feodo', ['192.0.2.35', '198.51.100.44', '203.0.113.5'].map((v) => [v, 'ip', 'critical'])],
          ['urlhaus', URLHAUS_VALUES.map((v) => [v, 'url', 'unknown'])],
          // The same indicators as DROP's: the highest of the two feeds' risks.
          ['dropJson', DROP_VALUES.map((v) => [v, 'ip', 'high'])],
          ['domains', DOMAINS.map((v) => [v, 'domain', 'low'])],
        ];
        for (const [name, values] of wanted) {
          const links = await world.feedLinks(fids[name]);
          assert.deepEqual(listed(links), values, name);
          assert.ok(links.every((l) => l.stamp_linked === pulledAt[name]), `${name}: stamp_linked`);
        }
      });

      it('a value already in the store is that indicator: drop_v4.json links the iids the DROP pull made', async () => {
        const drop = await world.feedLinks(fids.drop);
        const json = await world.feedLinks(fids.dropJson);
        assert.deepEqual(json.map((l) => l.iid), drop.map((l) => l.iid));
      });

      it('feed.php shows stamp_pulled and stamp_modified at the pull\'s time and the source URL as accesslink', async () => {
        const feed = await feedRecord(fids.feodo);
        assert.equal(feed.stamp_pulled, pulledAt.feodo);
        assert.equal(feed.stamp_modified, pulledAt.feodo);
        assert.equal(feed.accesslink, `${server.base}/feodo-ipblocklist.csv`);
      });

      it('threat.php links the Feodo rows to the malware their column names, created as threats', async () => {
        for (const [threat, value] of [['Dridex', '192.0.2.35'], ['QakBot', '198.51.100.44']]) {
          const record = (await world.api('threat.php', { threat: threat! })) as { tid: number; category: string; risk: string };
          // Created with the source's risk (docs/sources.md, "What a pull keeps").
          assert.deepEqual([record.category, record.risk], ['malware', 'critical'], threat);
          const links = (await world.api('threat.php', { tid: record.tid, get: 'links' })) as { results: LinkedIndicator[] };
          assert.deepEqual(listed(links.results), [[value, 'ip', 'critical']], threat);
        }
        const loader = (await world.api('threat.php', { threat: 'Example Loader' })) as { tid: number };
        const links = (await world.api('threat.php', { tid: loader.tid, get: 'links' })) as { results: LinkedIndicator[] };
        assert.deepEqual(links.results.map((l) => l.indicator), URLHAUS_VALUES);
      });

      it('TAXII lists every pulled value as a STIX indicator with its pattern, risk and iid', async () => {
        const { objects } = await world.taxii();
        const byPattern = indicatorsByPattern(objects);
        const expectations: [string, string, number][] = [];
        for (const [name, pattern] of [
          ['drop', ipPattern], ['feodo', ipPattern], ['urlhaus', urlPattern], ['domains', domainPattern],
        ] as const) {
          for (const link of await world.feedLinks(fids[name])) expectations.push([pattern(link.indicator), link.risk, link.iid]);
        }
        assert.equal(byPattern.size, expectations.length, [...byPattern.keys()].join('\n'));
        for (const [pattern, risk, iid] of expectations) {
          const object = byPattern.get(pattern);
          assert.ok(object, `no indicator with ${pattern}`);
          assert.equal(object.id, stixIdForIndicator(iid));
          assert.equal(object.x_risk, risk, pattern);
          assert.equal(object.x_threatgate_iid, iid);
        }
        // The value with a quote in it is written as a STIX string literal.
        assert.ok(byPattern.has(`[url:value = 'https://example.com/download.php?file=a,b&x="y"']`));
      });

      it('TAXII relates each Feodo and URLhaus indicator to its malware with an "indicates" relationship', async () => {
        const { objects } = await world.taxii();
        const malware = new Map(objects.filter((o) => o.type === 'malware').map((o) => [o.name as string, o.id]));
        assert.deepEqual([...malware.keys()].sort(), ['Dridex', 'Example Loader', 'QakBot']);
        const relations = objects
          .filter((o) => o.type === 'relationship' && o.relationship_type === 'indicates')
          .map((o) => `${o.source_ref} ${o.target_ref}`)
          .sort();
        const linksOf = async (fid: number) => world.feedLinks(fid);
        const [feodo, urlhaus] = [await linksOf(fids.feodo), await linksOf(fids.urlhaus)];
        const expected = [
          `${stixIdForIndicator(feodo[0]!.iid)} ${malware.get('Dridex')}`,
          `${stixIdForIndicator(feodo[1]!.iid)} ${malware.get('QakBot')}`,
          ...urlhaus.map((l) => `${stixIdForIndicator(l.iid)} ${malware.get('Example Loader')}`),
        ].sort();
        assert.deepEqual(relations, expected);
      });
    });

    describe('a re-pull of an unchanged source', () => {
      const repull = (name: keyof typeof fids, values: string[]) => async () => {
        const cursor = (await world.taxii()).last;
        assert.ok(cursor, 'the first poll gives X-TAXII-Date-Added-Last');
        const before = await feedRecord(fids[name]);
        const outcome = await world.pull(fids[name]);
        const at = world.clock.stamp();
        assert.deepEqual(
          [outcome.ok, outcome.ok && [outcome.values, outcome.newIndicators, outcome.newLinks]],
          [true, [values.length, 0, 0]],
        );
        assert.deepEqual((await world.taxii(`&added_after=${cursor}`)).objects, [], 'a new STIX version after the poller\'s cursor');
        const feed = await feedRecord(fids[name]);
        assert.equal(feed.stamp_pulled, at, 'stamp_pulled moves');
        assert.equal(feed.stamp_modified, before.stamp_modified, 'stamp_modified stays');
        assert.deepEqual(await seenOf(values), values.map(() => at), 'stamp_seen of the listed indicators');
      };

      it('answered 304 to If-None-Match: a successful pull that sees the same values again', async () => {
        await repull('drop', DROP_VALUES)();
        const [first, second] = server.requestsFor('/drop.txt');
        assert.equal(first?.headers['if-none-match'], undefined);
        assert.deepEqual([second?.headers['if-none-match'], second?.status], [etagOf(fixtureFeed('drop.txt')), 304]);
      });

      it('given the identical body again, without an ETag: the same', async () => {
        await repull('urlhaus', URLHAUS_VALUES)();
        const requests = server.requestsFor('/urlhaus.csv');
        assert.deepEqual(requests.map((r) => [r.status, r.headers['if-none-match']]), [[200, undefined], [200, undefined]]);
        // The source threat the pull links every value to is seen again too.
        const threat = await dbOf(world.store).selectFrom('threats').select('stamp_seen').where('name', '=', 'Example Loader').executeTakeFirstOrThrow();
        assert.equal(threat.stamp_seen, world.clock.stamp());
      });

      it('a 304 after a source threat\'s pull sees that threat again too', async () => {
        server.publish('/urlhaus.csv', fixtureFeed('urlhaus.csv'), { etag: true });
        await world.pull(fids.urlhaus); // 200 with an ETag now
        await world.pull(fids.urlhaus); // 304
        assert.equal(server.requestsFor('/urlhaus.csv').at(-1)?.status, 304);
        const threat = await dbOf(world.store).selectFrom('threats').select('stamp_seen').where('name', '=', 'Example Loader').executeTakeFirstOrThrow();
        assert.equal(threat.stamp_seen, world.clock.stamp());
        assert.deepEqual(await seenOf(URLHAUS_VALUES), URLHAUS_VALUES.map(() => world.clock.stamp()));
      });
    });

    describe('a changed source', () => {
      it('publishes the new value after the poller\'s cursor, and nothing else', async () => {
        const cursor = (await world.taxii()).last;
        const before = await world.feedLinks(fids.domains);
        server.publish('/domains.txt', fixtureFeed('domains.txt').replace('phish.example.net   # seen 2025-04-01\n', '').replace(/\nphish\.example\.net\n/, '\nnew-c2.example.net\n'));
        const outcome = await world.pull(fids.domains);
        assert.deepEqual([outcome.ok, outcome.ok && [outcome.values, outcome.newIndicators, outcome.newLinks]], [true, [4, 1, 1]]);
        const links = await world.feedLinks(fids.domains);
        const added = links.find((l) => l.indicator === 'new-c2.example.net');
        assert.ok(added, 'the new value is linked');
        assert.deepEqual([added.type, added.risk, added.stamp_linked], ['domain', 'low', world.clock.stamp()]);
        const fresh = (await world.taxii(`&added_after=${cursor}`)).objects;
        assert.deepEqual(fresh.map((o) => [o.id, o.pattern]), [[stixIdForIndicator(added.iid), domainPattern('new-c2.example.net')]]);
        // The dropped value keeps its link, with the time it was first linked.
        const dropped = links.find((l) => l.indicator === 'phish.example.net');
        assert.deepEqual(dropped, before.find((l) => l.indicator === 'phish.example.net'));
        assert.equal(links.length, before.length + 1);
      });

      it('moves stamp_modified and stamp_pulled to the pull\'s time', async () => {
        const feed = await feedRecord(fids.domains);
        assert.deepEqual([feed.stamp_pulled, feed.stamp_modified], [world.clock.stamp(), world.clock.stamp()]);
      });

      it('a dropped value is no longer seen by the feed\'s pulls', async () => {
        const [dropped] = await seenOf(['phish.example.net']);
        await world.pull(fids.domains);
        assert.deepEqual(await seenOf(['phish.example.net']), [dropped]);
        assert.deepEqual(await seenOf(['new-c2.example.net']), [world.clock.stamp()]);
      });
    });

    describe('a value a source lists twice', () => {
      it('is one indicator with the higher of its rows\' risks, within a batch of rows and across batches', async () => {
        // 600 rows stage in two batches: 203.0.113.77 twice in the first, 203.0.113.78 once in each.
        const filler = Array.from({ length: 600 }, (_, i) => `198.18.${Math.floor(i / 250)}.${(i % 250) + 1},medium`);
        const rows = ['value,risk', '203.0.113.77,low', '203.0.113.77,high', '203.0.113.78,low', ...filler, '203.0.113.78,critical'];
        server.publish('/twice.csv', `${rows.join('\n')}\n`);
        const fid = await world.addSource('Example twice', { url: `${server.base}/twice.csv`, format: 'csv', csv: { header: 'first-row', value: 'value', risk: 'risk' } });
        const outcome = await world.pull(fid);
        assert.deepEqual([outcome.ok, outcome.ok && [outcome.values, outcome.newIndicators, outcome.newLinks]], [true, [602, 602, 602]]);
        const links = await world.feedLinks(fid);
        assert.deepEqual(listed(links.slice(0, 2)), [['203.0.113.77', 'ip', 'high'], ['203.0.113.78', 'ip', 'critical']]);
        assert.equal(links.length, 602);
      });
    });

    describe('an indicator listed by two feeds (DROP high, drop_v4.json medium)', () => {
      const block = '192.0.2.0/24';
      const riskIn = async (fid: number) => (await world.feedLinks(fid)).find((l) => l.indicator === block)?.risk;
      const dropText = (blocks: string[]) => `; DROP-like list\n${blocks.map((b, i) => `${b} ; SBL00000${i + 1}`).join('\n')}\n`;

      it('has the higher risk while both list it', async () => {
        assert.equal(await riskIn(fids.drop), 'high');
        assert.equal(await riskIn(fids.dropJson), 'high');
      });

      it('falls back to the other feed\'s risk when the higher feed drops it: a new STIX version, the link kept', async () => {
        const cursor = (await world.taxii()).last;
        server.publish('/drop.txt', dropText(DROP_VALUES.slice(1)));
        const outcome = await world.pull(fids.drop);
        assert.ok(outcome.ok);
        assert.equal(await riskIn(fids.drop), 'medium', 'still linked to DROP, at its new risk');
        const fresh = (await world.taxii(`&added_after=${cursor}`)).objects;
        assert.deepEqual(fresh.map((o) => [o.pattern, o.x_risk]), [[ipPattern(block), 'medium']]);
      });

      it('goes back up when the higher feed lists it again', async () => {
        const cursor = (await world.taxii()).last;
        server.publish('/drop.txt', dropText(DROP_VALUES));
        await world.pull(fids.drop);
        assert.equal(await riskIn(fids.dropJson), 'high');
        const fresh = (await world.taxii(`&added_after=${cursor}`)).objects;
        assert.deepEqual(fresh.map((o) => [o.pattern, o.x_risk]), [[ipPattern(block), 'high']]);
      });

      it('keeps its risk once no feed lists it, and takes that of a feed that lists it later', async () => {
        server.publish('/drop.txt', dropText(DROP_VALUES.slice(1)));
        await world.pull(fids.drop);
        server.publish('/drop_v4.json', fixtureFeed('drop_v4.json').split('\n').filter((line) => !line.includes(block)).join('\n'));
        await world.pull(fids.dropJson);
        assert.equal(await riskIn(fids.drop), 'medium');
        const cursor = (await world.taxii()).last;
        const third = await world.addSource('Example third', { url: `${server.base}/third.txt`, format: 'text', risk: 'low' });
        server.publish('/third.txt', `${block}\n`);
        await world.pull(third);
        assert.equal(await riskIn(third), 'low');
        const fresh = (await world.taxii(`&added_after=${cursor}`)).objects;
        assert.deepEqual(fresh.filter((o) => o.type === 'indicator').map((o) => [o.pattern, o.x_risk]), [[ipPattern(block), 'low']]);
      });
    });
  });
}
