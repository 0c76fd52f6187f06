// The console's Explore page (docs/console-and-operations.md, "Explore") on each store, signed in through the login form, over data
// imported through the real import: results with links to the value page, the threats mode, paging, CSV with safe cells, a query the
// reader refuses shown beside the box with 400, no session sent to the login page, markup in values and queries shown as text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture, extraIndicator } from '../helpers/fixture.js';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { consoleClient, signIn, type ConsoleClient } from './console-world.js';

const SCRIPT = '<script>alert(1)</script>';
const MARKUP_URL = `http://xss.example/${SCRIPT}`;
/** More names under one parent than a page holds: iids 201 to 350. */
const PAGING = Array.from({ length: 150 }, (_, i) => ({ iid: 201 + i, indicator: `n${201 + i}.paging.example` }));

/** The fixture, a parent domain's names, a value a spreadsheet would run, one holding markup, and a threat whose name holds markup. */
function dataset() {
  const data = buildFixture();
  const extra = extraIndicator;
  data.indicators.push(
    extra(101, 'login.phish.example', 'domain', { risk: 'critical' }),
    extra(102, 'cdn.login.phish.example', 'domain'),
    extra(107, '=cmd|calc.example', 'domain', { risk: 'medium' }),
    extra(108, MARKUP_URL, 'url'),
    ...PAGING.map(({ iid, indicator }) => extra(iid, indicator, 'domain', { risk: 'low' })),
  );
  const markupThreat = { ...data.threats[1]!, tid: 4, threat: `<b>Bold</b> Kit`, othernames: [] };
  data.threats.push(markupThreat);
  data.links.push(
    { iid: 101, fid: 2, stamp_linked: '2025-06-03 00:00:00' },
    { iid: 101, tid: 1, stamp_linked: '2025-06-05 00:00:00' },
    { iid: 107, fid: 1, stamp_linked: '2025-06-05 00:00:00' },
    { iid: 108, tid: 4, stamp_linked: '2025-06-05 00:00:00' },
  );
  return data;
}

/** The text of each cell of the rows of the table with this id (tags dropped, entities kept as sent). */
function tableRows(html: string, id: string): string[][] {
  const start = html.indexOf(`<table id="${id}"`);
  assert.ok(start !== -1, `no table #${id} in the page`);
  const body = html.slice(html.indexOf('<tbody>', start), html.indexOf('</tbody>', start));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) => [...row[1]!.matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, '')));
}

const firstCells = (html: string, id = 'explore-indicators') => tableRows(html, id).map((cells) => cells[0]);

for (const backend of storeBackends()) {
  describe(`console Explore page (${backend.name})`, () => {
    let world: PullWorld;
    let client: ConsoleClient;
    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, dataset(), world.clock);
      client = await signIn(world.app, (await createAdminKey(world.store, world.clock, 'console tests')).key);
    });
    after(async () => {
      await world?.close();
      await backend.cleanup();
    });

    const explore = (query: Record<string, string>, status = 200) => client.get('/console/explore').query(query).expect(status);

    describe('GET /console/explore', () => {
      it('without a query › the form, labelled, with the syntax and example links; Explore is the current page; no results', async () => {
        const res = await client.get('/console/explore').expect(200);
        assert.match(res.headers['content-type'] ?? '', /^text\/html; charset=utf-8/);
        assert.match(res.text, /<form id="explore-form" class="explore" method="get" action="\/console\/explore"/);
        assert.match(res.text, /<label for="explore-q">Query<\/label><input id="explore-q" name="q" type="search" value required/);
        assert.match(res.text, /<input type="radio" id="explore-mode-indicators" name="type" value="indicators" checked\/>/);
        assert.match(res.text, /<a href="\/console\/explore" aria-current="page">Explore<\/a>/);
        assert.match(res.text, /<details id="explore-syntax"/);
        assert.match(res.text, /<a href="\/console\/explore\?q=risk%3E%3Dhigh\+and\+seen%3E7d&amp;type=indicators"><code>risk>=high and seen>7d<\/code><\/a>/);
        assert.equal(res.text.includes('explore-results-heading'), false);
        const threats = await explore({ type: 'threats' });
        assert.match(threats.text, /<input type="radio" id="explore-mode-threats" name="type" value="threats" checked\/>/);
        assert.equal(threats.text.includes('id="explore-error"'), false, 'a mode without a query is no error');
      });

      it('a query › its rows newest first, each value a link to its value page, with type, risk, seen, threats and feeds; the query kept in the box', async () => {
        const res = await explore({ q: 'type=domain and ioc=*.phish.example', type: 'indicators' });
        assert.deepEqual(tableRows(res.text, 'explore-indicators'), [
          ['102', 'cdn.login.phish.example', 'domain', 'high', '2025-02-03 00:00:00 UTC', 'none', 'none'],
          ['101', 'login.phish.example', 'domain', 'critical', '2025-02-03 00:00:00 UTC', 'Zeus', "O'Brien Sinkhole"],
        ]);
        assert.match(res.text, /<a href="\/console\/value\?value=login\.phish\.example">login\.phish\.example<\/a>/);
        assert.match(res.text, /value="type=domain and ioc=\*\.phish\.example"/);
        assert.match(res.text, /<p id="explore-range">Indicators 1 to 2; newest first\.<\/p>/);
        assert.equal(res.text.includes('id="explore-next"'), false);
        // The link leads to that value's provenance.
        const value = await client.get('/console/value?value=login.phish.example').expect(200);
        assert.match(value.text, /<h1>Value login\.phish\.example<\/h1>/);
      });

      it('a query nothing matches › says so', async () => {
        const res = await explore({ q: 'ioc=*.nowhere.example' });
        assert.match(res.text, /<p id="explore-none">No indicator matches this query\.<\/p>/);
        assert.equal(res.text.includes('id="explore-csv"'), false);
      });

      it('type=threats › the threats table: tid, name as text, category, risk and how many indicators are linked', async () => {
        const res = await explore({ q: 'zeus or emotet', type: 'threats' });
        assert.deepEqual(tableRows(res.text, 'explore-threats'), [
          ['2', 'Emotet', 'botnet', 'critical', '5'],
          ['1', 'Zeus', 'malware', 'high', '13'],
        ]);
        assert.match(res.text, /<input type="radio" id="explore-mode-threats" name="type" value="threats" checked\/>/);
        assert.match(res.text, /<dt><code>ttp<\/code><\/dt>/, 'the help lists the fields of threats');
      });

      it('more rows than a page › 100, then the rest on the next page, each page linking to the other', async () => {
        const q = 'ioc=*.paging.example';
        const first = await explore({ q });
        assert.deepEqual(firstCells(first.text), PAGING.slice(50).reverse().map((row) => String(row.iid)));
        assert.match(first.text, /Indicators 1 to 100, more follow; newest first\./);
        const next = /<a id="explore-next" rel="next" href="([^"]+)">Next 100<\/a>/.exec(first.text)?.[1]?.replace(/&amp;/g, '&');
        assert.equal(next, '/console/explore?q=ioc%3D*.paging.example&type=indicators&page=1');
        assert.equal(first.text.includes('id="explore-previous"'), false);
        const second = await client.get(next!).expect(200);
        assert.deepEqual(firstCells(second.text), PAGING.slice(0, 50).reverse().map((row) => String(row.iid)));
        assert.match(second.text, /Indicators 101 to 150; newest first\./);
        assert.match(second.text, /<a id="explore-previous" rel="prev" href="\/console\/explore\?q=ioc%3D\*\.paging\.example&amp;type=indicators">Previous 100<\/a>/);
        assert.equal(second.text.includes('id="explore-next"'), false);
      });

      it('a page past the console\u2019s last, or no page number › a 400 page naming the parameter', async () => {
        for (const page of ['100', '-1', 'two']) {
          const res = await explore({ q: 'ioc=*.paging.example', page }, 400);
          assert.match(res.text, /Parameter &quot;page&quot; must be a whole number from 0 to 99\./);
        }
        const mode = await explore({ q: 'zeus', type: 'feeds' }, 400);
        assert.match(mode.text, /Parameter &quot;type&quot; must be &quot;indicators&quot; or &quot;threats&quot;\./);
      });

      for (const [what, q, message] of [
        ['a value missing', 'risk=', /At character 6: expected a value after &quot;risk=&quot;/],
        ['an unknown field', 'colour=red', /At character 1: unknown field &quot;colour&quot; for indicators/],
        ['a wildcard too short', 'ioc=*.x', /At character 1: narrow the query: a wildcard value needs at least 3 characters in a row besides \* \(&quot;\*\.x&quot;\)/],
        ['an empty query', '  ', /Enter a query/],
      ] as const) {
        it(`${what} › 400, the form with the query kept and the reader\u2019s where and what beside the box`, async () => {
          const res = await explore({ q, type: 'indicators' }, 400);
          const error = /<p id="explore-error" class="error-text" role="alert">(.*?)<\/p>/.exec(res.text)?.[1] ?? assert.fail('no error beside the box');
          assert.match(error, message);
          assert.match(res.text, new RegExp(`value="${q.replace(/[*.]/g, '\\$&')}" required maxlength="2000" spellcheck="false" autocomplete="off" autofocus aria-invalid="true" aria-describedby="explore-error explore-help"`));
          assert.equal(res.text.includes('explore-results-heading'), false);
        });
      }

      it('markup in a value and in the query › shown as text, never as markup', async () => {
        // Quoted: a bare value ends at its first closing parenthesis.
        const res = await explore({ q: `ioc="*${SCRIPT}*"` });
        assert.equal(res.text.includes(SCRIPT), false, 'nothing of the value or the query is markup');
        assert.match(res.text, /<a href="\/console\/value\?value=http%3A%2F%2Fxss\.example%2F%3Cscript%3Ealert%281%29%3C%2Fscript%3E">http:\/\/xss\.example\/&lt;script>alert\(1\)&lt;\/script><\/a>/);
        assert.match(res.text, /value="ioc=&quot;\*&lt;script>alert\(1\)&lt;\/script>\*&quot;"/);
        assert.deepEqual(tableRows(res.text, 'explore-indicators')[0]?.slice(5), ['&lt;b>Bold&lt;/b> Kit', 'none']);
        const refused = await explore({ q: `${SCRIPT}=` }, 400);
        assert.equal(refused.text.includes(SCRIPT), false, 'nor is a refused query');
        const threats = await explore({ q: 'threat=*bold*', type: 'threats' });
        assert.equal(tableRows(threats.text, 'explore-threats')[0]?.[1], '&lt;b>Bold&lt;/b> Kit');
      });
    });

    describe('GET /console/explore.csv', () => {
      it('every page of the query as CSV: a header row, the rows newest first, names joined by |', async () => {
        const res = await client.get('/console/explore.csv').query({ q: 'ioc=*.paging.example or ioc=*calc.example', type: 'indicators' }).expect(200);
        assert.match(res.headers['content-type'] ?? '', /^text\/csv; charset=utf-8/);
        assert.equal(res.headers['content-disposition'], 'attachment; filename="explore-indicators.csv"');
        const lines = res.text.split('\r\n');
        assert.equal(lines[0], 'iid,indicator,type,risk,stamp_added,stamp_updated,stamp_seen,stamp_retired,threats,feeds');
        assert.equal(lines.length, 1 + 151 + 1, 'the header, every matching row over both pages, and the last line break');
        assert.equal(lines[1], '350,n350.paging.example,domain,low,2025-02-01 00:00:00,2025-02-02 00:00:00,2025-02-03 00:00:00,,,');
      });

      it('a cell a spreadsheet would run as a formula › begins with a quote', async () => {
        const res = await client.get('/console/explore.csv').query({ q: 'ioc=*calc.example' }).expect(200);
        assert.equal(res.text.split('\r\n')[1], "107,'=cmd|calc.example,domain,medium,2025-02-01 00:00:00,2025-02-02 00:00:00,2025-02-03 00:00:00,,,Botnet C&C (IPv4)");
      });

      it('threats as CSV › their own columns', async () => {
        const res = await client.get('/console/explore.csv').query({ q: 'threat=emotet', type: 'threats' }).expect(200);
        assert.equal(res.headers['content-disposition'], 'attachment; filename="explore-threats.csv"');
        assert.match(res.text, /^tid,threat,category,risk,othernames,stamp_added,stamp_seen,retired,indicators\r\n2,Emotet,botnet,critical,/);
      });

      it('a query the reader refuses › the page\u2019s 400 with the error beside the box, no CSV', async () => {
        const res = await client.get('/console/explore.csv').query({ q: 'risk=' }).expect(400);
        assert.match(res.headers['content-type'] ?? '', /^text\/html/);
        assert.match(res.text, /<p id="explore-error"[^>]*><strong>Error:<\/strong> At character 6/);
      });

      it('the page links to it with the same query and mode', async () => {
        const res = await explore({ q: 'threat=zeus', type: 'indicators' });
        assert.match(res.text, /<a id="explore-csv" href="\/console\/explore\.csv\?q=threat%3Dzeus&amp;type=indicators" download>/);
      });
    });

    describe('without a session', () => {
      it('the page and its CSV › 303 to the login page, which comes back to them', async () => {
        const anonymous = consoleClient(world.app);
        for (const path of ['/console/explore?q=zeus', '/console/explore.csv?q=zeus']) {
          const res = await anonymous.get(path).expect(303);
          assert.equal(res.headers.location, `/console/login?next=${encodeURIComponent(path)}`);
        }
      });
    });
  });
}
