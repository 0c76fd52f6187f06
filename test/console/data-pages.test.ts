// The console's value and allowlist pages (docs/interface.md section 14) on each store, signed in through the login form, over data from real
// pulls of a local feed server: a value's feeds, threats and allowlist entry; the dry run's count against what applying
// retires; removal; forms refused without their CSRF token or from another origin, changing nothing; text escaped.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { COMMAND_LINE } from '../../src/cli/allowlist-command.js';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { addEntry } from '../../src/sources/runtime-allowlist.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { byId, consoleClient, signIn, type ConsoleClient } from './console-world.js';

const LIST = ['198.18.0.1', '198.18.0.2', '198.19.5.5', 'bad.example.org', 'http://x.bad.example.org/path'];
const BLOCK = '198.18.0.0/24';
const SCRIPT = '<script>alert(1)</script>';

for (const backend of storeBackends()) {
  describe(`console value and allowlist pages (${backend.name})`, () => {
    let feeds: FeedServer;
    let world: PullWorld;
    let fid: number;
    let client: ConsoleClient;
    let adminId: string;
    const lookup = (value: string) => world.api('indicator.php', { indicator: value });
    /** A form post as the browser sends it (its Origin, the session's token unless told otherwise), answered with `status`. */
    const post = async (path: string, fields: Record<string, string>, status: number, options: { csrf?: string | null; origin?: string } = {}) => {
      const res = await client.post(path, fields, options);
      assert.equal(res.status, status, res.text);
      return res;
    };

    before(async () => {
      feeds = await startFeedServer();
      feeds.publish('/list.txt', `${LIST.join('\n')}\n`);
      world = await openPullWorld(backend);
      fid = await world.addSource('Allow <b>Feed</b>', { url: `${feeds.base}/list.txt`, format: 'text', risk: 'high', threat: 'Zeus Panda', schedule: 'every 1h' });
      assert.ok((await world.pull(fid)).ok);
      const admin = await createAdminKey(world.store, world.clock, 'console tests');
      adminId = admin.id;
      client = await signIn(world.app, admin.key);
    });
    after(async () => {
      await world?.close();
      await feeds?.close();
      await backend.cleanup();
    });

    describe('GET /console/value', () => {
      it('without a value › the search form, labelled', async () => {
        const res = await client.get('/console/value').expect(200);
        assert.match(res.headers['content-type'] ?? '', /^text\/html; charset=utf-8/);
        assert.match(res.text, /<label for="value-input">Value<\/label><input id="value-input" name="value"/);
        assert.equal(res.text.includes('id="value-result"'), false);
      });

      it('a pulled value, in another spelling › its indicator, the feed that lists it and gives its risk, and its threat linked by that pull', async () => {
        const res = await client.get('/console/value').query({ value: ' 198.18.0.1 ' }).expect(200);
        assert.match(byId(res.text, 'value-normalized'), /As pulls store it198\.18\.0\.1 \(type ip\)/);
        assert.match(byId(res.text, 'value-indicator'), /Risk\s*high/);
        const feedsText = byId(res.text, 'value-feeds');
        assert.match(feedsText, /Allow &lt;b>Feed&lt;\/b>Pull TestsYes/);
        assert.match(res.text, new RegExp(`<a href="/console/feeds/${fid}">Allow &lt;b>Feed&lt;/b></a>`));
        assert.match(byId(res.text, 'value-risk-from'), /Its risk \(high\) comes from Allow &lt;b>Feed&lt;\/b>\./);
        assert.match(byId(res.text, 'value-threats'), /Zeus Panda.*a pull of Allow &lt;b>Feed&lt;\/b>/);
        assert.match(byId(res.text, 'value-allowlist'), /No allowlist entry covers it/);
        assert.match(byId(res.text, 'value-collections'), /\/export\/[0-9a-f-]+\.txt/);
      });

      it('a value the config\u2019s allowlist keeps out › names the entry', async () => {
        const res = await client.get('/console/value?value=10.1.2.3').expect(200);
        assert.match(byId(res.text, 'value-allowlist'), /The allowlist entry 10\.0\.0\.0\/8 keeps it out of every pull/);
      });

      it('a value nothing knows, with markup in it › says so plainly, the markup shown as text', async () => {
        const res = await client.get('/console/value').query({ value: SCRIPT }).expect(200);
        assert.match(byId(res.text, 'value-unknown'), /Nothing knows this value/);
        assert.equal(res.text.includes(SCRIPT), false, 'the value is escaped');
        assert.match(res.text, /<code>&lt;script>alert\(1\)&lt;\/script><\/code>/);
      });

      it('an empty value › 400, the form with the problem next to the field', async () => {
        const res = await client.get('/console/value?value=%20').expect(400);
        assert.match(byId(res.text, 'value-error'), /Enter a value to explain/);
        assert.match(res.text, /aria-invalid="true" aria-describedby="value-error value-help"/);
      });
    });

    describe('the allowlist', () => {
      let dryCount: number;

      it('GET › the config\u2019s entries read-only, no run-time entry yet, an Add form with its token', async () => {
        const res = await client.get('/console/allowlist').expect(200);
        assert.match(byId(res.text, 'allowlist-config'), /10\.0\.0\.0\/8/);
        assert.match(byId(res.text, 'allowlist-runtime-empty'), /No entry has been added at run time/);
        assert.match(res.text, /<form id="allowlist-add" method="post" action="\/console\/allowlist\/preview"><input type="hidden" name="_csrf" value="[^"]+"\/>/);
      });

      it('Preview › the dry run: how many stored indicators it would retire and which, an Apply form; nothing changed', async () => {
        const before = await snapshotStore(world.store);
        const res = await post('/console/allowlist/preview', { entry: BLOCK, reason: `office ${SCRIPT}` }, 200);
        const count = /would retire (\d+) stored indicators/.exec(byId(res.text, 'preview-count'));
        dryCount = Number(count?.[1]);
        assert.equal(dryCount, 2);
        assert.match(byId(res.text, 'preview-sample'), /198\.18\.0\.1ip.*198\.18\.0\.2ip/);
        assert.match(res.text, /<form id="allowlist-apply" method="post" action="\/console\/allowlist\/apply">/);
        assert.match(res.text, /<input type="hidden" name="reason" value="office &lt;script>alert\(1\)&lt;\/script>"\/>/);
        assertSameStore(await snapshotStore(world.store), before, 'a preview');
        assert.equal((await lookup('198.18.0.1')).risk, 'high');
      });

      it('Apply › 303 to the list, which says how many it retired: as many as the dry run counted, now allowlisted', async () => {
        world.clock.advance(60_000);
        const res = await post('/console/allowlist/apply', { entry: BLOCK, reason: `office ${SCRIPT}` }, 303);
        assert.equal(res.headers.location, `/console/allowlist?added=${encodeURIComponent(BLOCK)}&retired=${dryCount}`);
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(byId(page.text, 'allowlist-message'), new RegExp(`Added ${BLOCK.replace(/\./g, '\\.')}: it retired ${dryCount} stored indicators`));
        const row = byId(page.text, 'allowlist-runtime');
        // Added by the key's label, "console tests", not its id.
        assert.ok(row.includes(`${BLOCK}console tests${world.clock.stamp()} UTCoffice &lt;script>alert(1)&lt;/script>`), row);
        assert.equal(row.includes(adminId), false, row);
        assert.equal(page.text.includes(SCRIPT), false, 'the reason is escaped');
        for (const value of ['198.18.0.1', '198.18.0.2']) {
          const body = await lookup(value);
          assert.deepEqual([body.risk, body.retired_reason], ['retired', 'allowlisted']);
        }
        assert.equal((await lookup('198.19.5.5')).risk, 'high');
        const why = await client.get('/console/value?value=198.18.0.2').expect(200);
        assert.match(byId(why.text, 'value-allowlist'), /The allowlist entry 198\.18\.0\.0\/24 keeps it out/);
      });

      it('Added by › the key\u2019s label; its id when the key has no label or is no longer in the store; "command line"', async () => {
        const unlabelled = await createAdminKey(world.store, world.clock);
        const emptyLabel = await createAdminKey(world.store, world.clock, '');
        const added = [
          ['a-unlabelled.example', unlabelled.id],
          ['b-empty-label.example', emptyLabel.id],
          ['c-gone.example', 'k_0000deadbeef'],
          ['d-typed.example', COMMAND_LINE],
        ] as const;
        // Added in the same second: listed by entry, hence the letters.
        for (const [entry, addedBy] of added) await addEntry(world.store, { entry, reason: '', addedBy }, world.clock);
        const table = (await client.get('/console/allowlist').expect(200)).text;
        const cells = [...table.matchAll(/<tr><th scope="row"><code>([^<]+)<\/code><\/th><td>([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
        assert.deepEqual(cells, [[BLOCK, 'console tests'], ...added]);
        for (const [entry] of added) assert.ok(await world.store.removeAllowlistEntry(entry));
      });

      it('the list\u2019s message is said only while the list agrees', async () => {
        const res = await client.get('/console/allowlist?added=203.0.113.0%2F24&retired=99').expect(200);
        assert.equal(res.text.includes('id="allowlist-message"'), false);
      });

      it('an entry already there › 409, the form saying so next to the field; nothing changed', async () => {
        const before = await snapshotStore(world.store);
        for (const path of ['/console/allowlist/preview', '/console/allowlist/apply']) {
          const res = await post(path, { entry: BLOCK, reason: '' }, 409);
          assert.match(byId(res.text, 'allowlist-entry-error'), /198\.18\.0\.0\/24 is on the run-time allowlist already\. Nothing was changed\./);
        }
        const config = await post('/console/allowlist/apply', { entry: '10.0.0.0/8', reason: '' }, 409);
        assert.match(byId(config.text, 'allowlist-entry-error'), /in the config's allowlist already/);
        assertSameStore(await snapshotStore(world.store), before, 'entries already there');
      });

      it('a bad entry › 400, the form re-shown with the entry and the problem next to the field', async () => {
        const res = await post('/console/allowlist/preview', { entry: '300.1.2.3/40', reason: 'typo' }, 400);
        assert.match(byId(res.text, 'allowlist-entry-error'), /Entry &quot;300\.1\.2\.3\/40&quot;: not an IPv4 address or CIDR block\./);
        assert.match(res.text, /id="allowlist-entry" name="entry" type="text" value="300\.1\.2\.3\/40"/);
        assert.match(res.text, /value="typo"/);
      });

      for (const [what, options] of [
        ['without the CSRF token', { csrf: null }],
        ['with another session\u2019s token', { csrf: 'AAAA' }],
        ['from another origin', { origin: 'https://evil.example' }],
      ] as const) {
        it(`Apply, Preview and Remove ${what} › 403, and nothing changed`, async () => {
          const before = await snapshotStore(world.store);
          await post('/console/allowlist/apply', { entry: '198.19.0.0/16', reason: '' }, 403, options);
          await post('/console/allowlist/preview', { entry: '198.19.0.0/16', reason: '' }, 403, options);
          const res = await post('/console/allowlist/remove', { entry: BLOCK }, 403, options);
          assert.match(res.text, /The form was refused/);
          assertSameStore(await snapshotStore(world.store), before, `posts ${what}`);
        });
      }

      it('Remove › 303 to the list saying so; the next pull brings back what it kept out', async () => {
        const res = await post('/console/allowlist/remove', { entry: BLOCK }, 303);
        assert.equal(res.headers.location, `/console/allowlist?removed=${encodeURIComponent(BLOCK)}`);
        const page = await client.get(res.headers.location!).expect(200);
        assert.match(byId(page.text, 'allowlist-message'), /Removed 198\.18\.0\.0\/24: the next pulls may store again what it kept out/);
        assert.equal(page.text.includes('id="allowlist-runtime"'), false);
        feeds.publish('/list.txt', `${LIST.join('\n')}\n203.0.113.78\n`);
        assert.ok((await world.pull(fid)).ok);
        assert.deepEqual([(await lookup('198.18.0.1')).risk, (await lookup('198.18.0.1')).retired_reason], ['high', null]);
      });

      it('Remove of a config entry › 409 naming the config; of an entry on neither list › 404', async () => {
        const config = await post('/console/allowlist/remove', { entry: '10.0.0.0/8' }, 409);
        assert.match(byId(config.text, 'allowlist-message'), /10\.0\.0\.0\/8 is in the config's allowlist; remove it there/);
        const missing = await post('/console/allowlist/remove', { entry: 'nothing.example' }, 404);
        assert.match(byId(missing.text, 'allowlist-message'), /nothing\.example is not on the run-time allowlist/);
      });
    });

    describe('without a session', () => {
      it('the pages lead to the login form, and a post changes nothing', async () => {
        const before = await snapshotStore(world.store);
        const stranger = consoleClient(world.app);
        assert.equal((await stranger.get('/console/allowlist').expect(303)).headers.location, '/console/login?next=%2Fconsole%2Fallowlist');
        assert.equal((await stranger.post('/console/allowlist/apply', { entry: '198.19.0.0/16' }, { csrf: 'AAAA' })).status, 303);
        assertSameStore(await snapshotStore(world.store), before, 'a post without a session');
      });
    });
  });
}
