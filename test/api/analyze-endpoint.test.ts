// POST and GET /api/analyze.php as the pulsedive client sends them (docs/observations.md, "Submissions for
// analysis"): a form with `ioc` in base64 and the key, a queue id per submission read back by the same key
// only, a known value answered with the indicator lookup's body and an unknown one recorded without becoming
// an indicator; the key, size, media type and field refusals, none of which writes. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { createAdminKey, createKey } from '../../src/cli/keys-command.js';
import { deepMerge, loadConfig } from '../../src/config.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture } from '../helpers/fixture.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { TEST_NEXT_SECRET } from '../helpers/test-app.js';

const PATH = '/api/analyze.php';
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
/** What the pulsedive client's `analyze(value)` posts: every field in the form, the key among them. */
const clientForm = (value: string, key: string) => ({ ioc: b64(value), enrich: 1, probe: 0, pretty: 0, sanitize: 1, key });

for (const backend of storeBackends()) {
  describe(`/api/analyze.php (${backend.name})`, () => {
    let world: PullWorld;
    let otherKey: string;
    const submit = (form: Record<string, unknown> | string, query = '') => request(world.app).post(`${PATH}${query}`).type('form').send(form);
    const result = (qid: unknown, key = world.key, extra = '') => request(world.app).get(`${PATH}?qid=${qid}&key=${key}${extra}`);
    const submitted = async (value: string, key = world.key) => (await submit(clientForm(value, key)).expect(200)).body.qid as number;

    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, buildFixture(), world.clock);
      otherKey = (await createKey(world.store, world.config, world.clock, 'free', 'another customer')).key;
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    describe('POST, as the pulsedive client sends it', () => {
      it('a stored value › 200 "Added request to queue." with its qid; the value observed now', async () => {
        world.clock.advance(60_000);
        const res = await submit(clientForm('host12.example.net', world.key)).expect(200);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        assert.equal(res.body.success, 'Added request to queue.');
        assert.ok(Number.isInteger(res.body.qid) && res.body.qid > 0);
        assert.deepEqual(Object.keys(res.body), ['success', 'qid']);
        const body = await world.api('indicator.php', { iid: 12 });
        assert.deepEqual([body.stamp_seen, body.submissions], [world.clock.stamp(), 1]);
      });

      it('is counted against the plan\u2019s rate limits, as every lookup is', async () => {
        const res = await submit(clientForm('host12.example.net', world.key)).expect(200);
        assert.match(res.headers.ratelimit ?? '', /"second"; r=\d+; t=\d+/);
        assert.ok(res.headers['x-requests-remaining-day']);
      });

      it('the key in the query string, the rest in the form › taken', async () => {
        const { key: _key, ...form } = clientForm('host12.example.net', world.key);
        await submit(form, `?key=${world.key}`).expect(200);
      });

      it('pretty=1 in the form › indented', async () => {
        const res = await submit({ ...clientForm('host12.example.net', world.key), pretty: 1 }).expect(200);
        assert.ok(res.text.startsWith('{\n  "success"'));
      });

      it('the URL-safe alphabet, without padding, and `+` sent as a blank › the same value', async () => {
        const value = 'http://host12.example.net/?a=>>>';
        for (const ioc of [b64(value).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''), b64(value).replaceAll('+', ' ')]) {
          const qid = (await submit({ ioc, key: world.key }).expect(200)).body.qid;
          assert.equal((await result(qid).expect(200)).body.data.indicator, value);
        }
      });
    });

    describe('GET ?qid=N, the result', () => {
      it('a stored value › done, with the indicator lookup\u2019s body as it is now', async () => {
        const qid = await submitted('HOST12[.]example[.]net');
        const res = await result(qid).expect(200);
        assert.deepEqual(Object.keys(res.body), ['qid', 'status', 'data']);
        assert.deepEqual([res.body.qid, res.body.status], [qid, 'done']);
        assert.deepEqual(res.body.data, await world.api('indicator.php', { indicator: 'host12.example.net' }));
      });

      it('an unknown value › known false, and no indicator is made of it: its lookup is still a 404', async () => {
        const qid = await submitted('Brand-New.example.');
        const res = await result(qid).expect(200);
        assert.deepEqual(res.body, { qid, status: 'done', data: { indicator: 'brand-new.example', type: 'domain', risk: 'unknown', known: false } });
        assert.deepEqual((await request(world.app).get(`/api/indicator.php?indicator=brand-new.example&key=${world.key}`).expect(404)).body, { error: 'Indicator not found.' });
        assert.equal(await world.store.findIndicatorByValue('brand-new.example', ['domain', 'hostname']), undefined);
      });

      it('text that is no indicator › known false, of no type', async () => {
        const qid = await submitted('what is this?');
        assert.deepEqual((await result(qid).expect(200)).body.data, { indicator: 'what is this?', type: null, risk: 'unknown', known: false });
      });

      it('another key\u2019s qid, or one never given › 404, as if there were none', async () => {
        const qid = await submitted('host12.example.net');
        assert.deepEqual((await result(qid, otherKey).expect(404)).body, { error: 'Analysis not found.' });
        assert.deepEqual((await result(qid + 1000).expect(404)).body, { error: 'Analysis not found.' });
        await result(qid).expect(200);
      });

      it('pretty=1 › indented; HEAD › the headers alone', async () => {
        const qid = await submitted('host12.example.net');
        assert.ok((await result(qid, world.key, '&pretty=1').expect(200)).text.startsWith('{\n  "qid"'));
        const head = await request(world.app).head(`${PATH}?qid=${qid}&key=${world.key}`).expect(200);
        assert.equal(head.text, undefined);
      });

      for (const [what, query, message] of [
        ['no qid', '', 'Parameter "qid" is required.'],
        ['qid 0', 'qid=0', 'Parameter "qid" must be a positive integer.'],
        ['qid not a number', 'qid=abc', 'Parameter "qid" must be a positive integer.'],
        ['qid given twice', 'qid=1&qid=2', 'Parameter "qid" must be given once.'],
      ] as const) {
        it(`${what} › 400 naming qid`, async () => {
          assert.deepEqual((await request(world.app).get(`${PATH}?${query}&key=${world.key}`).expect(400)).body, { error: message });
        });
      }
    });

    describe('refusals, none of which writes anything', () => {
      const refusals: [what: string, send: () => request.Test, status: number, error: RegExp][] = [
        ['no key › 401', () => submit({ ioc: b64('host12.example.net') }), 401, /^An API key is required for analyze\.php/],
        ['an unknown key › 401', () => submit(clientForm('host12.example.net', 'A'.repeat(43))), 401, /^Unknown or revoked API key\.$/],
        ['the key in the form and in the query › 400', () => submit(clientForm('host12.example.net', world.key), `?key=${world.key}`), 400, /^Parameter "key" is given twice: in the body and in the query string\.$/],
        ['no ioc › 400', () => submit({ key: world.key, enrich: 1 }), 400, /^Parameter "ioc" is required: the value to analyze, base64-encoded\.$/],
        ['ioc that is no base64 › 400', () => submit({ ioc: 'not*base64!', key: world.key }), 400, /^Parameter "ioc" must be base64/],
        ['ioc of a bad length › 400', () => submit({ ioc: 'YWJjZ', key: world.key }), 400, /^Parameter "ioc" must be base64/],
        ['ioc that is no UTF-8 › 400', () => submit({ ioc: Buffer.from([0xff, 0xfe, 0x41]).toString('base64'), key: world.key }), 400, /^Parameter "ioc" must encode text in UTF-8\.$/],
        ['ioc of blanks › 400', () => submit({ ioc: b64('   '), key: world.key }), 400, /^Parameter "ioc" encodes an empty value\.$/],
        ['ioc with a line break › 400', () => submit({ ioc: b64('a.example\nb.example'), key: world.key }), 400, /^Parameter "ioc": the value must not hold control characters/],
        ['ioc given twice › 400', () => submit(`ioc=${b64('a.example')}&ioc=${b64('b.example')}&key=${world.key}`), 400, /^Parameter "ioc" must be given once\.$/],
        ['pretty=2 › 400', () => submit({ ...clientForm('host12.example.net', world.key), pretty: 2 }), 400, /^Parameter "pretty" must be 0 or 1\.$/],
        ['a JSON body › 415', () => request(world.app).post(`${PATH}?key=${world.key}`).send({ ioc: b64('host12.example.net') }), 415, /^The body must be a form \(Content-Type: application\/x-www-form-urlencoded\)/],
        ['a body over 64 KB › 413', () => submit({ ...clientForm('host12.example.net', world.key), padding: 'x'.repeat(70_000) }), 413, /^The body is larger than 65536 bytes\.$/],
        ['more than 100 fields › 413', () => submit(Array.from({ length: 120 }, (_, i) => `f${i}=1`).join('&') + `&key=${world.key}&ioc=${b64('a.example')}`), 413, /^The form has more than 100 fields\.$/],
      ];
      for (const [what, send, status, error] of refusals) {
        it(what, async () => {
          const before = await snapshotStore(world.store);
          const res = await send().expect(status);
          assert.match(res.body.error, error);
          assertSameStore(await snapshotStore(world.store), before, what);
        });
      }

      it('GET without a key › 401; an admin key › 403', async () => {
        await request(world.app).get(`${PATH}?qid=1`).expect(401);
        const admin = await createAdminKey(world.store, world.clock, 'ops');
        await request(world.app).get(`${PATH}?qid=1&key=${admin.key}`).expect(403);
      });

      it('another method › 405 naming GET, HEAD and POST', async () => {
        const res = await request(world.app).delete(`${PATH}?key=${world.key}`).expect(405);
        assert.equal(res.headers.allow, 'GET, HEAD, POST');
      });

      it('past the plan\u2019s limit › 429 with Retry-After, nothing recorded', async () => {
        const config = loadConfig({ overrides: deepMerge({ cache: { versionCheckMs: 0 } }, { plans: { pro: { perSecond: 1000, perDay: 1, perMonth: 1000 } } }) });
        const app = createApp(config, { store: world.store, clock: world.clock, nextTokenSecret: TEST_NEXT_SECRET });
        await request(app).post(PATH).type('form').send(clientForm('host12.example.net', world.key)).expect(200);
        const before = await snapshotStore(world.store);
        const res = await request(app).post(PATH).type('form').send(clientForm('host12.example.net', world.key)).expect(429);
        assert.match(res.headers['retry-after'] ?? '', /^\d+$/);
        assertSameStore(await snapshotStore(world.store), before, 'rate limited');
      });
    });
  });
}
