// GET /api/explore.php and GET /api/search.php (docs/explore.md): questions across the store in the
// query language, paged as links are under the plans' pages, as CSV, and every refusal; search.php
// as the pulsedive client sends it. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createKey } from '../../src/cli/keys-command.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture, extraIndicator } from '../helpers/fixture.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

/** The fixture, plus a parent domain's subdomains and URLs, an address block, and a value a spreadsheet would run. */
function dataset() {
  const data = buildFixture();
  const extra = extraIndicator;
  data.indicators.push(
    extra(101, 'login.phish.example', 'domain', { risk: 'critical', attributes: { port: ['8443'] } }),
    extra(102, 'cdn.login.phish.example', 'domain'),
    extra(103, 'phish.example', 'domain', { risk: 'low' }),
    extra(104, 'https://login.phish.example/a?b=1', 'url'),
    extra(105, 'notphish.example', 'domain'),
    extra(106, '203.0.113.0/24', 'cidr'),
    extra(107, '=cmd|calc.example', 'domain', { risk: 'medium' }),
  );
  data.links.push({ iid: 101, fid: 2, stamp_linked: '2025-06-03 00:00:00' }, { iid: 101, tid: 1, stamp_linked: '2025-06-05 00:00:00' });
  return data;
}

const iids = (body: { results: Array<{ iid: number }> }) => body.results.map((row) => row.iid);

for (const backend of storeBackends()) {
  describe(`GET /api/explore.php (${backend.name})`, () => {
    let world: PullWorld;
    let freeKey: string;
    let businessKey: string;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, dataset(), world.clock);
      freeKey = (await createKey(world.store, world.config, world.clock, 'free', 'explore free')).key;
      businessKey = (await createKey(world.store, world.config, world.clock, 'business', 'explore business')).key;
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    const explore = (query: Record<string, string | number>, status = 200) => world.api('explore.php', query, status);

    it('answers the subdomains of a parent, newest first, with the row fields', async () => {
      const body = await explore({ q: 'type=domain and ioc=*.phish.example' });
      assert.deepEqual(iids(body), [102, 101]);
      assert.deepEqual(Object.keys(body), ['results']);
      const row = body.results[1];
      assert.deepEqual(Object.keys(row), ['iid', 'indicator', 'type', 'risk', 'stamp_added', 'stamp_updated', 'stamp_seen', 'stamp_retired', 'threats', 'feeds']);
      assert.equal(row.indicator, 'login.phish.example');
      assert.deepEqual(row.threats, ['Zeus']);
      assert.deepEqual(row.feeds, ["O'Brien Sinkhole"]);
    });

    it('reads a request as OWASP Amass sends it (search=indicators, limit=1000)', async () => {
      const body = await explore({ search: 'indicators', q: 'type=domain and ioc=*.PHISH.example', limit: 1000 });
      assert.deepEqual(iids(body), [102, 101]);
    });

    it('combines fields with and, or, not and parentheses', async () => {
      assert.deepEqual(iids(await explore({ q: 'ioc=*phish.example and (risk=critical or risk=low)' })), [103, 101]);
      assert.deepEqual(iids(await explore({ q: 'ioc=*phish.example* and not type=domain' })), [104]);
      // Zeus links iids 1-12 (3 and 9 critical) and 101.
      assert.deepEqual(iids(await explore({ q: 'threat=zeus and risk>=critical' })), [101, 9, 3]);
      assert.deepEqual(iids(await explore({ q: 'feed="o\'brien sinkhole"' })), [101, 26, 25, 24]);
      assert.deepEqual(iids(await explore({ q: 'attribute.port=8443' })), [101]);
    });

    it('a block matches what lies inside it; a value search finds values holding the text', async () => {
      // 198.51.100.1 and .2 are iids 1 and 2 (iid 3 is a domain).
      assert.deepEqual(iids(await explore({ q: 'ioc=198.51.100.0/30' })), [2, 1]);
      assert.deepEqual(iids(await explore({ q: 'ioc=203.0.113.77' })), [106]);
      assert.deepEqual(iids(await explore({ q: 'cdn.login' })), [102]);
    });

    it('reads values as analysts paste them', async () => {
      assert.deepEqual(iids(await explore({ q: 'ioc=login[.]phish[.]example' })), [101]);
      assert.deepEqual(iids(await explore({ q: 'ioc="hxxps://login[.]phish[.]example/a?b=1"' })), [104]);
    });

    it('answers threats in the threat mode', async () => {
      const body = await explore({ type: 'threats', q: 'category=botnet or zbot' });
      assert.deepEqual(body.results.map((t: { tid: number }) => t.tid), [2, 1]);
      assert.deepEqual(Object.keys(body.results[0]), ['tid', 'threat', 'category', 'risk', 'othernames', 'stamp_added', 'stamp_seen', 'retired', 'indicators']);
      assert.deepEqual(body.results[1].othernames, ['Zbot', 'Wsnpoem']);
      assert.equal(body.results[1].indicators, 13);
    });

    it('pages as links are, and a plan reads only its pages', async () => {
      const first = await explore({ q: 'ioc=*phish.example*', limit: 2 });
      assert.deepEqual(first, { page_current: 0, page_next: 1, results: first.results });
      assert.deepEqual(iids(first), [105, 104]);
      const second = await explore({ q: 'ioc=*phish.example*', limit: 2, page: 1 });
      assert.deepEqual(iids(second), [103, 102]);
      // Page 2 is the third: beyond Pro's two, within Business's ten.
      assert.equal((await explore({ q: 'ioc=*phish.example*', limit: 2, page: 2 }, 403)).error, 'The Pro plan may read 2 pages per request (pages 0 to 1); page 2 is beyond that limit.');
      const last = (await request(world.app).get('/api/explore.php').query({ q: 'ioc=*phish.example*', limit: 2, page: 2, key: businessKey }).expect(200)).body;
      assert.deepEqual(last, { page_current: 2, results: last.results });
      assert.deepEqual(iids(last), [101]);
      const refused = await request(world.app).get('/api/explore.php').query({ q: 'ioc=*phish.example', limit: 2, page: 1, key: freeKey });
      assert.equal(refused.status, 403);
      assert.match(refused.body.error, /The Free plan may read 1 page per request/);
    });

    it('export=csv gives the rows the plan may read, with safe cells', async () => {
      const res = await request(world.app).get('/api/explore.php').query({ q: 'ioc=*calc.example or ioc=*phish.example', limit: 2, export: 'csv', key: freeKey });
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type']!, /^text\/csv/);
      const lines = res.text.trimEnd().split('\r\n');
      assert.equal(lines[0], 'iid,indicator,type,risk,stamp_added,stamp_updated,stamp_seen,stamp_retired,threats,feeds');
      // Free reads one page of `limit` rows: two.
      assert.equal(lines.length, 3);
      assert.match(lines[1]!, /^107,'=cmd\|calc\.example,domain,medium,/);
    });

    it('refuses every bad parameter with a 400 that names it', async () => {
      const cases: Array<[Record<string, string | number>, RegExp]> = [
        [{}, /^Parameter "q" is required\.$/],
        [{ q: 'risk=' }, /^q: at 6: expected a value after "risk="$/],
        [{ q: 'colour=red' }, /^q: at 1: unknown field "colour" for indicators/],
        [{ q: 'risk=hgih' }, /^q: at 1: risk "hgih" is not one of/],
        [{ q: 'risk=high', limit: 0 }, /^Parameter "limit" must be a whole number from 1 to 1000\.$/],
        [{ q: 'risk=high', limit: 1001 }, /^Parameter "limit"/],
        [{ q: 'risk=high', type: 'feeds' }, /^Parameter "type" must be "indicators" or "threats"\.$/],
        [{ q: 'risk=high', export: 'xml' }, /^Parameter "export" must be "csv"\.$/],
        [{ q: 'risk=high', page: -1 }, /^Parameter "page"/],
      ];
      for (const [query, message] of cases) {
        const body = await explore(query, 400);
        assert.match(body.error, message, JSON.stringify(query));
      }
    });
  });

  describe(`GET /api/search.php as the pulsedive client sends it (${backend.name})`, () => {
    let world: PullWorld;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, dataset(), world.clock);
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    /** GET search.php as pulsedive 0.1.0's SearchClient.indicator sends it: its defaults, the call's own arguments, then pretty, sanitize and key. */
    function clientSearch(own: Record<string, string | string[]>) {
      const params: Record<string, string | string[]> = {
        value: '', export: '0', 'type[]': ['ip', 'ipv6', 'url', 'domain', 'artifact'], 'risk[]': ['unknown', 'none', 'low', 'medium', 'high', 'critical', 'retired'],
        limit: 'hundred', ...own, pretty: '0', sanitize: '1', key: world.key,
      };
      const query = new URLSearchParams();
      for (const [name, value] of Object.entries(params)) for (const one of Array.isArray(value) ? value : [value]) query.append(name, one);
      return request(world.app).get(`/api/search.php?${query}`);
    }

    it('search(value) with the client\'s defaults, and with risk=[...], indicator_type=[...]', async () => {
      const all = await clientSearch({ value: 'phish.example' });
      assert.equal(all.status, 200, all.text);
      assert.deepEqual(iids(all.body), [105, 104, 103, 102, 101]);
      const narrowed = await clientSearch({ value: 'phish.example', 'risk[]': ['critical'], 'type[]': ['domain'] });
      assert.deepEqual(iids(narrowed.body), [101]);
    });

    it('search.threat and search.feed', async () => {
      const threats = await world.api('search.php', { search: 'threat', value: 'emo', splitrisk: 0, pretty: 0, sanitize: 1 });
      assert.deepEqual(threats.results.map((t: { tid: number }) => t.tid), [2]);
      const feeds = await world.api('search.php', { search: 'feed', value: 'sinkhole', splitrisk: 0 });
      assert.deepEqual(feeds.results.map((f: { fid: number }) => f.fid), [2]);
      assert.equal(feeds.results[0].feed, "O'Brien Sinkhole");
    });

    it('export=1 answers CSV, lastseen and limit in the client\'s words', async () => {
      const res = await request(world.app).get('/api/search.php').query({ value: 'phish', export: 1, limit: 'thousand', key: world.key });
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type']!, /^text\/csv/);
      assert.equal(res.text.trimEnd().split('\r\n').length, 1 + 5);
      assert.equal((await world.api('search.php', { value: 'phish', lastseen: 'fortnight' }, 400)).error, 'Parameter "lastseen" must be day, week or month.');
      assert.equal((await world.api('search.php', { value: 'phish', limit: 'lots' }, 400)).error, 'Parameter "limit" must be hundred, thousand, tenthousand or a whole number.');
    });
  });
}
