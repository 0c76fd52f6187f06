// The console's threat page (docs/console-and-operations.md, "The threat page") on each store, signed in through the login form, over an
// imported threat with 230 linked indicators: its record, risk counts as threat.php serves them, feeds, ATT&CK techniques, its links
// newest first a page at a time (together exactly get=links' rows), Retire and Reactivate as `threatgate threats` does them, forms
// refused without their CSRF token or from another origin changing nothing, bad and unknown ids, and the links to it from other pages.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createAdminKey, createKey } from '../../src/cli/keys-command.js';
import { loadConfig } from '../../src/config.js';
import type { Indicator, Link, Threat } from '../../src/domain.js';
import { importDataset } from '../../src/import/import-file.js';
import { createLogger } from '../../src/logger.js';
import type { Store } from '../../src/store/contract/store.js';
import { manualClock, type ManualClock } from '../helpers/pull-harness.js';
import { extraIndicator } from '../helpers/fixture.js';
import { storeBackends } from '../helpers/store-backends.js';
import { GENEROUS_PLANS, TEST_NEXT_SECRET } from '../helpers/test-app.js';
import { newestFirstRange } from '../../src/console/threat-links.js';
import { pagerPages } from '../../src/console/threat-sections.js';
import { byId, consoleClient, signIn, type ConsoleClient } from './console-world.js';

const LINKED = 230;
const STAMP = '2025-06-01 00:00:00';

function threat(tid: number, name: string, more: Partial<Threat> = {}): Threat {
  return {
    tid, threat: name, category: 'malware', risk: 'high', othernames: [], description: null, notes: null, wikisummary: null, wikireference: null, retired: false,
    stamp_added: '2025-01-01 00:00:00', stamp_updated: '2025-05-01 00:00:00', stamp_seen: '2025-05-02 00:00:00', stamp_retired: null, attributes: {}, ttps: [],
    news: [], comments: [], related: [], ...more,
  };
}

const feed = (fid: number, name: string) => ({
  fid, feed: name, organization: 'Threat Tests', category: 'malware', pricing: 'free', contact: { name: 'A', email: 'a@example.org', phone: '' },
  website: 'https://example.org', schedule: 'daily', stamp_added: STAMP, stamp_updated: STAMP, stamp_pulled: null, stamp_modified: null, description: '', accesslink: '',
});

/** Threat 1 (markup in its name) has every indicator 1..230 linked, its ttps two techniques and an item naming none; feed 1 lists 1..40, feed 2 200..230. */
function dataset() {
  const risks = ['low', 'medium', 'high', 'critical'] as const;
  const indicators: Indicator[] = Array.from({ length: LINKED }, (_, i) => extraIndicator(i + 1, `198.51.${Math.floor((i + 1) / 256)}.${(i + 1) % 256}`, 'ip', { risk: risks[i % 4] }));
  const links: Link[] = [
    ...indicators.map((i) => ({ iid: i.iid, tid: 1, stamp_linked: STAMP })),
    ...indicators.filter((i) => i.iid <= 40).map((i) => ({ iid: i.iid, fid: 1, stamp_linked: STAMP })),
    ...indicators.filter((i) => i.iid >= 200).map((i) => ({ iid: i.iid, fid: 2, stamp_linked: STAMP })),
  ];
  const ttps = [{ id: 'T1566.001', name: 'Spearphishing Attachment', tactic: 'Initial Access' }, { technique_id: 't1059', tactic: ['execution'] }, { name: 'no id here' }];
  return {
    threats: [
      threat(1, 'Zeus <b>Panda</b>', { othernames: ['Zbot', 'Wsnpoem'], description: 'A banking trojan <script>alert(1)</script>', ttps }),
      threat(2, 'Old Worm', { retired: true, risk: 'retired', stamp_retired: '2025-03-01 00:00:00' }),
    ],
    feeds: [feed(1, 'First <i>Feed</i>'), feed(2, 'Second Feed')],
    indicators,
    links,
  };
}

/** The iids of the page's linked indicators table, in order. */
const linkedIids = (html: string) => [...html.slice(html.indexOf('id="threat-links-table"')).matchAll(/<tr><td class="number">(\d+)<\/td>/g)].map((m) => Number(m[1]));

describe('the threat page\u2019s paging', () => {
  for (const [total, page, expected] of [
    [230, 0, { from: 130, to: 229 }],
    [230, 1, { from: 30, to: 129 }],
    [230, 2, { from: 0, to: 29 }],
    [230, 3, undefined],
    [200, 1, { from: 0, to: 99 }],
    [0, 0, undefined],
  ] as const) {
    it(`newestFirstRange › ${total} links, page ${page} › ${JSON.stringify(expected)}`, () => assert.deepEqual(newestFirstRange(total, page, 100), expected));
  }
  for (const [page, pages, expected] of [
    [0, 1, [0]],
    [0, 3, [0, 1, 2]],
    [10, 30, [0, 8, 9, 10, 11, 12, 29]],
    [29, 30, [0, 27, 28, 29]],
  ] as const) {
    it(`pagerPages › page ${page} of ${pages} › ${expected.join(', ')}`, () => assert.deepEqual(pagerPages(page, pages), expected));
  }
});

for (const backend of storeBackends()) {
  describe(`console threat page (${backend.name})`, () => {
    // One page of get=links holds every link, so that no plan's page limit stands between the test and them.
    const config = loadConfig({ overrides: { ...GENEROUS_PLANS, linksPageSize: 1000, cache: { versionCheckMs: 0 } } });
    let store: Store;
    let clock: ManualClock;
    let app: Express;
    let client: ConsoleClient;
    let planKey: string;
    const logLines: string[] = [];
    const threatApi = async (tid: number) => (await request(app).get('/api/threat.php').query({ tid, key: planKey }).expect(200)).body;
    const post = async (path: string, status: number, options: { csrf?: string | null; origin?: string } = {}) => {
      const res = await client.post(path, {}, options);
      assert.equal(res.status, status, res.text);
      return res;
    };

    before(async () => {
      ({ store } = await backend.create({ collections: config.collections }));
      clock = manualClock();
      await importDataset(store, dataset(), clock);
      const admin = await createAdminKey(store, clock, 'threat page tests');
      planKey = (await createKey(store, config, clock, 'pro', 'a plan key')).key;
      app = createApp(config, { store, clock, logger: createLogger('info', (line) => logLines.push(line)), nextTokenSecret: TEST_NEXT_SECRET });
      client = await signIn(app, admin.key);
    });
    after(async () => {
      await store?.close();
      await backend.cleanup();
    });

    describe('GET /console/threats/:tid', () => {
      it('its record: name, id, category, risk, other names, active, stamps, description, markup shown as text', async () => {
        const res = await client.get('/console/threats/1').expect(200);
        assert.match(res.headers['content-type'] ?? '', /^text\/html; charset=utf-8/);
        assert.match(res.text, /<h1>Threat Zeus &lt;b>Panda&lt;\/b><\/h1>/);
        const record = byId(res.text, 'threat-record');
        assert.match(record, /NameZeus &lt;b>Panda&lt;\/b>Threat id1CategorymalwareRiskhighOther namesZbot, WsnpoemRetiredNo: it is active/);
        assert.match(record, /Added2025-01-01 00:00:00 UTC/);
        assert.match(record, /Last seen2025-05-02 00:00:00 UTC/);
        assert.match(record, /A banking trojan &lt;script>alert\(1\)&lt;\/script>/);
        assert.equal(res.text.includes('<script>alert'), false);
        assert.match(byId(res.text, 'threat-state'), /Retire/);
      });

      it('its risk counts are the summary.risk threat.php serves', async () => {
        const res = await client.get('/console/threats/1').expect(200);
        const { summary } = await threatApi(1);
        const shown = Object.fromEntries([...res.text.matchAll(/<tr data-risk="([a-z]+)"><th scope="row">[a-z]+<\/th><td class="number">([\d,]+)<\/td><\/tr>/g)].map((m) => [m[1], Number(m[2]!.replace(/,/g, ''))]));
        assert.deepEqual(shown, summary.risk);
        assert.equal(shown.total, LINKED);
      });

      it('its feeds, each with the indicators it shares and a link to its page', async () => {
        const res = await client.get('/console/threats/1').expect(200);
        const feeds = byId(res.text, 'threat-feeds');
        assert.match(feeds, /First &lt;i>Feed&lt;\/i>Threat Testsmalwarefree40/);
        assert.match(feeds, /Second FeedThreat Testsmalwarefree31/);
        assert.match(res.text, /<a href="\/console\/feeds\/1">First &lt;i>Feed&lt;\/i><\/a>/);
        assert.match(res.text, /<a href="\/console\/feeds\/2">Second Feed<\/a>/);
      });

      it('its ATT&CK techniques: each named id linked to attack.mitre.org, its name and tactics; an item naming none counted', async () => {
        const res = await client.get('/console/threats/1').expect(200);
        const techniques = byId(res.text, 'threat-techniques');
        assert.match(techniques, /T1566\.001Spearphishing Attachmentinitial-access/);
        assert.match(techniques, /T1059not namedexecution/);
        assert.match(techniques, /1 of its ttps items names no valid technique id: not shown/);
        assert.match(res.text, /<a href="https:\/\/attack\.mitre\.org\/techniques\/T1566\/001" rel="external noreferrer">T1566\.001<\/a>/);
      });

      it('its linked indicators, newest first, 100 a page: together exactly the rows get=links gives, each linked to its value page', async () => {
        const first = await client.get('/console/threats/1').expect(200);
        assert.equal(byId(first.text, 'threat-links-range'), 'Indicators 1 to 100 of 230, newest first (page 1 of 3).');
        assert.deepEqual(linkedIids(first.text), Array.from({ length: 100 }, (_, i) => LINKED - i));
        assert.match(first.text, /<a href="\/console\/value\?value=198\.51\.0\.230">198\.51\.0\.230<\/a>/);
        assert.equal(first.text.includes('id="threat-links-newer"'), false, 'the first page has no newer one');
        assert.match(first.text, /<a id="threat-links-older" rel="next" href="\/console\/threats\/1\?page=1">Older 100<\/a>/);
        assert.match(first.text, /<span aria-current="page"><span class="visually-hidden">Page <\/span>1<\/span>/);
        assert.match(first.text, /<a href="\/console\/threats\/1\?page=2"><span class="visually-hidden">Page <\/span>3<\/a>/);

        // The middle page straddles two of get=links' pages of 100.
        const middle = await client.get('/console/threats/1?page=1').expect(200);
        assert.equal(byId(middle.text, 'threat-links-range'), 'Indicators 101 to 200 of 230, newest first (page 2 of 3).');
        assert.deepEqual(linkedIids(middle.text), Array.from({ length: 100 }, (_, i) => LINKED - 100 - i));
        assert.match(middle.text, /<a id="threat-links-newer" rel="prev" href="\/console\/threats\/1">Newer 100<\/a>/);

        const last = await client.get('/console/threats/1?page=2').expect(200);
        assert.deepEqual(linkedIids(last.text), Array.from({ length: 30 }, (_, i) => 30 - i));
        assert.equal(last.text.includes('id="threat-links-older"'), false, 'the last page has no older one');

        const apiIids: number[] = [];
        for (let page: number | undefined = 0; page !== undefined; ) {
          const body = (await request(app).get('/api/threat.php').query({ tid: 1, get: 'links', page, key: planKey }).expect(200)).body as { results: Array<{ iid: number }>; page_next?: number };
          apiIids.push(...body.results.map((r) => r.iid));
          page = body.page_next;
        }
        assert.deepEqual([...linkedIids(first.text), ...linkedIids(middle.text), ...linkedIids(last.text)].reverse(), apiIids);
      });

      it('a page past the end › says how many pages there are', async () => {
        const res = await client.get('/console/threats/1?page=7').expect(200);
        assert.equal(byId(res.text, 'threat-links-range'), 'No linked indicator on this page: its 230 fill 3 pages.');
        assert.equal(res.text.includes('id="threat-links-table"'), false);
      });

      it('a retired threat with no links › retired since its stamp, Reactivate, no indicator linked', async () => {
        const res = await client.get('/console/threats/2').expect(200);
        assert.match(byId(res.text, 'threat-retired'), /Yes, since 2025-03-01 00:00:00 UTC/);
        assert.match(byId(res.text, 'threat-state'), /Reactivate/);
        assert.match(res.text, /<form id="threat-state" class="toolbar" method="post" action="\/console\/threats\/2\/reactivate">/);
        assert.equal(byId(res.text, 'threat-links-range'), 'No indicator is linked to it.');
        assert.match(byId(res.text, 'threat-feeds'), /No feed lists any of its indicators/);
        assert.match(byId(res.text, 'threat-techniques'), /Its ttps name no ATT&amp;CK technique/);
      });

      for (const [path, status, message] of [
        ['/console/threats/abc', 400, 'The threat id in the path must be a positive whole number.'],
        ['/console/threats/0', 400, 'The threat id in the path must be a positive whole number.'],
        ['/console/threats/01', 400, 'The threat id in the path must be a positive whole number.'],
        ['/console/threats/99999999999999999', 400, 'The threat id in the path must be a positive whole number.'],
        ['/console/threats/1?page=-1', 400, 'Parameter &quot;page&quot; must be a whole number, 0 or more.'],
        ['/console/threats/1?page=x', 400, 'Parameter &quot;page&quot; must be a whole number, 0 or more.'],
        ['/console/threats/1?page=1&page=2', 400, 'Parameter &quot;page&quot; must be given once.'],
        ['/console/threats/1?state=done', 400, 'Parameter &quot;state&quot; must be one of retired, reactivated, already-retired, already-active.'],
        ['/console/threats/999', 404, 'There is no threat 999.'],
      ] as const) {
        it(`${path} › ${status}, the console's page naming what is wrong`, async () => {
          const res = await client.get(path).expect(status);
          assert.match(res.headers['content-type'] ?? '', /^text\/html/);
          assert.ok(res.text.includes(message), res.text);
        });
      }
    });

    describe('links to the threat page', () => {
      it("a value's threats › each name links to its threat page", async () => {
        const res = await client.get('/console/value').query({ value: '198.51.0.7' }).expect(200);
        assert.match(res.text, /<a href="\/console\/threats\/1">Zeus &lt;b>Panda&lt;\/b><\/a>/);
      });

      it("Explore's threat rows › each name links to its threat page", async () => {
        const res = await client.get('/console/explore').query({ q: 'category=malware', type: 'threats' }).expect(200);
        assert.match(res.text, /<a href="\/console\/threats\/1">Zeus &lt;b>Panda&lt;\/b><\/a>/);
        assert.match(res.text, /<a href="\/console\/threats\/2">Old Worm<\/a>/);
      });
    });

    describe('Retire and Reactivate', () => {
      it('Retire › 303 to the page, which says so; threat.php gives retired true since now; Reactivate offered', async () => {
        clock.advance(60_000);
        const res = await post('/console/threats/1/retire', 303);
        assert.equal(res.headers.location, '/console/threats/1?state=retired');
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(byId(page.text, 'threat-message'), /Retired Zeus &lt;b>Panda&lt;\/b>\./);
        assert.match(byId(page.text, 'threat-retired'), new RegExp(`Yes, since ${clock.stamp()} UTC`));
        assert.match(byId(page.text, 'threat-state'), /Reactivate/);
        const body = await threatApi(1);
        assert.equal(body.retired, true);
        assert.equal(body.stamp_retired, clock.stamp());
        assert.ok(logLines.some((line) => line.includes('console threat state') && line.includes('"outcome":"retired"')), logLines.join('\n'));
      });

      it('Retire again › says it already was; nothing changed', async () => {
        const before = await threatApi(1);
        clock.advance(60_000);
        const res = await post('/console/threats/1/retire', 303);
        assert.equal(res.headers.location, '/console/threats/1?state=already-retired');
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(byId(page.text, 'threat-message'), /was already retired: nothing was changed/);
        assert.deepEqual(await threatApi(1), before);
      });

      it('the outcome is said only while the record agrees', async () => {
        const page = await client.get('/console/threats/1?state=reactivated').expect(200);
        assert.equal(page.text.includes('id="threat-message"'), false);
      });

      it('Reactivate › active again, its retirement stamp gone', async () => {
        const res = await post('/console/threats/1/reactivate', 303);
        assert.equal(res.headers.location, '/console/threats/1?state=reactivated');
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(byId(page.text, 'threat-message'), /Reactivated Zeus &lt;b>Panda&lt;\/b>: it is active again/);
        assert.match(byId(page.text, 'threat-retired'), /No: it is active/);
        const body = await threatApi(1);
        assert.equal(body.retired, false);
        assert.equal(body.stamp_retired, null);
        const again = await post('/console/threats/1/reactivate', 303);
        assert.equal(again.headers.location, '/console/threats/1?state=already-active');
      });

      for (const [what, options] of [
        ['without the CSRF token', { csrf: null }],
        ['with another session\u2019s token', { csrf: 'not-the-token' }],
        ['from another origin', { origin: 'http://evil.example' }],
      ] as const) {
        it(`Retire ${what} › 403, and nothing changed`, async () => {
          const before = await threatApi(1);
          await post('/console/threats/1/retire', 403, options);
          assert.deepEqual(await threatApi(1), before);
        });
      }

      it('an unknown threat › 404; a bad id › 400; nothing changed', async () => {
        const before = await threatApi(1);
        const unknown = await post('/console/threats/999/retire', 404);
        assert.ok(unknown.text.includes('There is no threat 999.'));
        await post('/console/threats/x/reactivate', 400);
        assert.deepEqual(await threatApi(1), before);
      });

      it('GET of a form’s path › 405; POST of the page › 405', async () => {
        await client.get('/console/threats/1/retire').expect(405);
        await post('/console/threats/1', 405);
      });

      it('without a session › the login page, and a post changes nothing', async () => {
        const anonymous = consoleClient(app);
        const page = await anonymous.get('/console/threats/1?page=1').expect(303);
        assert.equal(page.headers.location, `/console/login?next=${encodeURIComponent('/console/threats/1?page=1')}`);
        const before = await threatApi(1);
        const res = await anonymous.post('/console/threats/1/retire', {}, { csrf: null });
        assert.equal(res.status, 303);
        assert.deepEqual(await threatApi(1), before);
      });
    });
  });
}
