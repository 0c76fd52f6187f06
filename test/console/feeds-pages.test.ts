// The console's feeds page and a feed's page (docs/interface.md section 14) on each store, over real pulls of a local fixture server: each
// feed's state (one failing), the chart and its figures, a source definition with its secrets masked, "Pull now" adding a
// run (a failed one too; 409 while another holds the lease), 404 and 400 pages, and a hostile feed name escaped everywhere.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addFeedSource } from '../../src/cli/add-feed-source.js';
import { storeBackends } from '../helpers/store-backends.js';
import { FEED_SECRET, openConsoleWorld, signIn, type ConsoleClient, type ConsoleWorld } from './console-world.js';

const SCRIPT_NAME = '<script>alert(1)</script>';
const LITERAL_PASSWORD = 'pw-literal-91c2';
const LITERAL_HEADER = 'hdr-literal-5e8a';

/** The HTML of the feed's card on the feeds page: up to the next card, or the end of the list. */
function cardOf(html: string, fid: number): string {
  const start = html.indexOf(`<li class="feed-card" id="feed-${fid}"`);
  assert.ok(start >= 0, `no card for feed ${fid}`);
  const next = html.indexOf('<li class="feed-card"', start + 1);
  return html.slice(start, next >= 0 ? next : html.indexOf('</ul></main>', start));
}

/** The run numbers of the run history table, in order. */
const runRows = (html: string) => [...html.matchAll(/<tr data-run="(\d+)" data-outcome="([a-z-]+)"/g)].map((m) => ({ run: Number(m[1]), outcome: m[2] }));

for (const backend of storeBackends()) {
  describe(`console feed pages (${backend.name})`, () => {
    let world: ConsoleWorld;
    let client: ConsoleClient;
    let secretFid: number;
    let hostileFid: number;
    before(async () => {
      world = await openConsoleWorld(backend);
      world.server.publish('/secret.txt', '198.51.100.7\n');
      secretFid = await addFeedSource(
        world.store,
        {
          feed: 'Literal secrets',
          organization: 'Console Tests',
          source: { url: `${world.server.base.replace('://', `://reader:${LITERAL_PASSWORD}@`)}/secret.txt?list=ips`, format: 'text', headers: { 'X-Api-Key': LITERAL_HEADER, Authorization: 'Bearer ${env:FEED_TOKEN}' } },
        },
        world.clock,
        world.env,
      );
      hostileFid = await addFeedSource(world.store, { feed: SCRIPT_NAME, organization: `${SCRIPT_NAME} Org`, source: { url: `${world.server.base}/blocklist-de.txt`, format: 'text' } }, world.clock, world.env);
      client = await signIn(world.app, world.adminKey);
    });
    after(async () => {
      await world?.close();
      await backend.cleanup();
    });

    /** "Pull now", then the puller's pull of that feed, as serve's pull thread makes it when woken. */
    const pullNow = async (fid: number) => {
      world.clock.advance(60_000);
      const res = await client.post(`/console/feeds/${fid}/pull`);
      if (res.status === 303) await world.runPuller(fid);
      return res;
    };

    describe('POST /console/feeds/{fid}/pull', () => {
      it('hands the pull to the puller and redirects 303 to the feed page, which waits for the run and reloads itself', async () => {
        world.clock.advance(60_000);
        const wakes = world.wakes;
        const res = await client.post(`/console/feeds/${world.goodFid}/pull`);
        assert.equal(res.status, 303, res.text);
        assert.equal(res.headers.location, `/console/feeds/${world.goodFid}?requested=${world.clock.now()}`);
        assert.equal(world.wakes, wakes + 1);
        // Nothing was pulled by the serving app.
        assert.equal(world.server.requestsFor('/blocklist-de.txt').length, 0);
        const waiting = await client.get(res.headers.location!).expect(200);
        assert.match(waiting.text, /Pull requested: waiting for the puller \(a puller checks at least every \d+ s\)\./);
        assert.match(waiting.text, /<meta http-equiv="refresh" content="2"\/>/);

        await world.runPuller(world.goodFid);
        const [run] = await world.store.listFeedRuns(world.goodFid, 1);
        assert.equal(run?.trigger, 'console');
        assert.equal(run?.outcome, 'ok');
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(page.text, new RegExp(`Pulled now: run ${run!.run}, ok: ${run!.values} values listed, ${run!.new_indicators} new\\.`));
        assert.doesNotMatch(page.text, /http-equiv="refresh"/);
        assert.deepEqual(runRows(page.text)[0], { run: run!.run, outcome: 'ok' });
        assert.equal(world.server.requestsFor('/blocklist-de.txt').length, 1);
      });

      it('a second pull adds a second run, newest first', async () => {
        const res = await pullNow(world.goodFid);
        const page = await client.get(res.headers.location!).expect(200);
        const rows = runRows(page.text);
        assert.equal(rows.length, 2);
        assert.ok(rows[0]!.run > rows[1]!.run);
        assert.equal((await world.store.listFeedRuns(world.goodFid, 10)).length, 2);
      });

      it('a failing upstream › the failed run is reported with its error, and no secret shows', async () => {
        const res = await pullNow(world.failingFid);
        assert.equal(res.status, 303);
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(page.text, /Pulled now: run \d+ failed\. .*HTTP status 500/);
        assert.equal(runRows(page.text)[0]!.outcome, 'failed');
        assert.equal(page.text.includes(FEED_SECRET), false);
      });

      it('while another holder has the lease › the feed page says who is pulling, and the requested pull follows', async () => {
        const before = (await world.store.listFeedRuns(world.goodFid, 100)).length;
        const now = world.clock.now();
        assert.ok(await world.store.claimPullLease(world.goodFid, 'feeds pull on elsewhere pid 9', now, now + 60_000));
        let location: string;
        try {
          const res = await client.post(`/console/feeds/${world.goodFid}/pull`);
          assert.equal(res.status, 303);
          location = res.headers.location!;
          const page = await client.get(location).expect(200);
          assert.match(page.text, /Pulling now: feeds pull on elsewhere pid 9 since [0-9: -]+ UTC\. Your pull starts when it ends\./);
          await world.runPuller(world.goodFid);
          assert.equal((await world.store.listFeedRuns(world.goodFid, 100)).length, before);
        } finally {
          await world.store.releasePullLease(world.goodFid, 'feeds pull on elsewhere pid 9');
        }
        await world.runPuller(world.goodFid);
        assert.equal((await world.store.listFeedRuns(world.goodFid, 100)).length, before + 1);
        assert.match((await client.get(location).expect(200)).text, /Pulled now: run \d+, not-modified/);
      });

      it('an unknown feed › 404 page; a fid that is no number › 400 naming it', async () => {
        assert.match((await client.post('/console/feeds/999/pull')).text, /Feed not found\./);
        assert.equal((await client.post('/console/feeds/999/pull')).status, 404);
        const bad = await client.post('/console/feeds/abc/pull');
        assert.equal(bad.status, 400);
        assert.match(bad.text, /The feed id in the path must be a positive whole number\./);
      });
    });

    describe('GET /console/', () => {
      it('lists every feed with its state in words: ok, failing with its last error, never pulled', async () => {
        const res = await client.get('/console/').expect(200);
        const good = cardOf(res.text, world.goodFid);
        assert.match(good, /data-state="ok"[^>]*>ok<\/span>/);
        const [run] = await world.store.listFeedRuns(world.goodFid, 1);
        assert.match(good, new RegExp(`<dt>Values listed</dt><dd>${run!.values}</dd>`));
        assert.match(good, /<dt>Last good pull<\/dt><dd>2026-03-02 08:0\d:00 UTC \((just now|\d+ min ago)\)<\/dd>/);
        const failing = cardOf(res.text, world.failingFid);
        assert.match(failing, /data-state="failing"[^>]*>failing<\/span>/);
        assert.match(failing, /<dt>Last error<\/dt><dd class="error-text">[^<]*HTTP status 500<\/dd>/);
        assert.match(cardOf(res.text, secretFid), /data-state="never-pulled"/);
        assert.match(res.text, /4 feeds: 2 never-pulled, 1 failing, 1 ok\./);
      });

      it('draws each pulled feed\'s runs as an SVG chart, named and described, with its figures in a table', async () => {
        const good = cardOf((await client.get('/console/').expect(200)).text, world.goodFid);
        assert.match(good, /<svg role="img" aria-labelledby="feed-\d+-chart-title feed-\d+-chart-desc"/);
        assert.match(good, /<title id="feed-\d+-chart-title">Values listed and new values per run of Blocklist<\/title>/);
        assert.match(good, /<desc id="feed-\d+-chart-desc">3 runs, from [^<]+\. Values listed: latest \d+, highest \d+; New: latest 0, highest \d+\.<\/desc>/);
        assert.match(good, /<path class="series series-0" d="M[0-9.,L]+"/);
        assert.equal([...good.matchAll(/<tr><th scope="row">2026-03-02 /g)].length, 3);
      });
    });

    describe('GET /console/feeds/{fid}', () => {
      it('shows the source definition with literal secrets masked and ${env:NAME} placeholders as written', async () => {
        const res = await client.get(`/console/feeds/${secretFid}`).expect(200);
        assert.equal(res.text.includes(LITERAL_PASSWORD), false);
        assert.equal(res.text.includes(LITERAL_HEADER), false);
        assert.match(res.text, /&quot;url&quot;: &quot;http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/secret\.txt\?list=\*\*\*&quot;/);
        assert.match(res.text, /&quot;X-Api-Key&quot;: &quot;\*\*\*&quot;/);
        assert.match(res.text, /&quot;Authorization&quot;: &quot;Bearer \$\{env:FEED_TOKEN\}&quot;/);
      });

      it('shows the runs as a chart over time (values, new, no longer listed, rejected) and a table with each failure\'s error', async () => {
        const good = await client.get(`/console/feeds/${world.goodFid}`).expect(200);
        assert.match(good.text, /<title id="runs-chart-title">Runs of Blocklist over time: values listed, new, no longer listed and rejected<\/title>/);
        for (const label of ['Values listed', 'New', 'No longer listed', 'Rejected']) assert.match(good.text, new RegExp(`<th scope="col" class="number">${label}</th>`));
        // Churn as a percentage: none for the first pull, 0% for the later ones, which listed the same values.
        assert.match(good.text, /<th scope="col" class="number" title="[^"]+">Churn<\/th>/);
        assert.deepEqual([...good.text.matchAll(/<td class="number">(\d+)<\/td><td class="number">(none|[\d.]+%)<\/td>/g)].map((m) => m[2]), ['0%', '0%', 'none']);
        assert.match(good.text, /<dt>Churn of last good pull<\/dt><dd>0%<\/dd>/);
        const failing = await client.get(`/console/feeds/${world.failingFid}`).expect(200);
        assert.match(failing.text, /<tr data-run="\d+" data-outcome="failed">.*<td class="error-text">[^<]*HTTP status 500<\/td><\/tr>/);
        assert.match(failing.text, /data-state="failing"/);
      });

      it('?limit= bounds the runs listed; a bad limit › 400 naming it', async () => {
        assert.equal(runRows((await client.get(`/console/feeds/${world.goodFid}?limit=1`).expect(200)).text).length, 1);
        assert.match((await client.get(`/console/feeds/${world.goodFid}?limit=0`).expect(400)).text, /Parameter &quot;limit&quot; must be a whole number from 1 to 1000\./);
      });

      it('an unknown feed › 404 page; a fid that is no number › 400', async () => {
        assert.match((await client.get('/console/feeds/999').expect(404)).text, /There is no feed 999\./);
        assert.match((await client.get('/console/feeds/x1').expect(400)).text, /The feed id in the path must be a positive whole number\./);
      });

      it('a feed whose source was removed › paused, its definition gone and no Pull now', async () => {
        assert.equal((await pullNow(secretFid)).status, 303);
        assert.ok(await world.store.removeFeedSource(secretFid));
        const res = await client.get(`/console/feeds/${secretFid}`).expect(200);
        assert.match(res.text, /data-state="paused"/);
        assert.match(res.text, /This feed has no source: nothing is pulled/);
        assert.doesNotMatch(res.text, /Pull now/);
      });
    });

    describe('a feed named like markup', () => {
      it('is shown as text on the feeds page, its own page, and after a pull', async () => {
        const pulled = await pullNow(hostileFid);
        // preact-render-to-string escapes `<` and `&` in text (a `>` alone starts no markup).
        const escaped = '&lt;script>alert(1)&lt;/script>';
        for (const path of ['/console/', `/console/feeds/${hostileFid}`, pulled.headers.location!]) {
          const res = await client.get(path).expect(200);
          assert.equal(res.text.includes(SCRIPT_NAME), false, path);
          assert.ok(res.text.includes(escaped), path);
        }
        assert.ok((await client.get(`/console/feeds/${hostileFid}`).expect(200)).text.includes(`<title>Feed ${escaped} · threatgate console</title>`));
      });
    });
  });
}
