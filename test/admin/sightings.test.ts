// The operator API's sightings (docs/observations.md, "On the operator API"): POST /admin/api/sightings records one
// under the admin key, GET lists an indicator's or a threat's newest first a page at a time, why shows the latest,
// and every refusal names its field and changes nothing. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAdminKey, createKey } from '../../src/cli/keys-command.js';
import { importDataset } from '../../src/import/import-file.js';
import { buildFixture } from '../helpers/fixture.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

for (const backend of storeBackends()) {
  describe(`/admin/api/sightings (${backend.name})`, () => {
    let world: PullWorld;
    let admin: { id: string; key: string };
    const auth = () => `Bearer ${admin.key}`;
    const post = (body: unknown) => request(world.app).post('/admin/api/sightings').set('Authorization', auth()).send(body as object);
    const list = (query: string) => request(world.app).get(`/admin/api/sightings?${query}`).set('Authorization', auth());

    before(async () => {
      world = await openPullWorld(backend);
      await importDataset(world.store, buildFixture(), world.clock);
      admin = await createAdminKey(world.store, world.clock, 'soc desk');
    });
    after(async () => {
      await world.close();
      await backend.cleanup();
    });

    describe('POST', () => {
      it('a value as pasted › 201 with the sighting as stored, reported by the admin key and its label', async () => {
        world.clock.advance(60_000);
        const res = await post({ value: 'host9[.]example[.]net', note: 'alert 17', at: '2026-03-01 12:00:00', count: 2 }).expect(201);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.deepEqual({ ...res.body, id: 0 }, {
          id: 0, iid: 9, tid: null, reported_by: admin.id, reported_by_label: 'soc desk', reported_at: world.clock.stamp(), seen_at: '2026-03-01 12:00:00', count: 2, note: 'alert 17',
        });
        const body = await world.api('indicator.php', { iid: 9 });
        assert.deepEqual([body.sightings, body.stamp_sighted, body.stamp_seen], [2, '2026-03-01 12:00:00', '2026-03-01 12:00:00']);
        assert.deepEqual((await world.api('threat.php', { tid: 1 })).stamp_seen, '2026-03-01 12:00:00');
      });

      it('a threat by tid, nothing else › seen now, count 1, no note', async () => {
        world.clock.advance(60_000);
        const res = await post({ tid: 1 }).expect(201);
        assert.deepEqual([res.body.tid, res.body.iid, res.body.seen_at, res.body.count, res.body.note], [1, null, world.clock.stamp(), 1, null]);
        assert.equal((await world.api('threat.php', { tid: 1 })).stamp_seen, world.clock.stamp());
      });

      it('null note and at › as left out', async () => {
        const res = await post({ value: 'host9.example.net', note: null, at: null }).expect(201);
        assert.deepEqual([res.body.note, res.body.seen_at], [null, world.clock.stamp()]);
      });
    });

    describe('POST refusals, none of which changes anything', () => {
      const refusals: [what: string, send: () => request.Test, status: number, error: RegExp][] = [
        ['a value no indicator holds › 404', () => post({ value: 'nowhere.example' }), 404, /^Field "value" names no stored indicator: "nowhere\.example"\.$/],
        ['a tid no threat has › 404', () => post({ tid: 4242 }), 404, /^Field "tid" names no stored threat: 4242\.$/],
        ['text that is no indicator › 400', () => post({ value: 'not a value' }), 400, /^Field "value" must be an indicator/],
        ['neither value nor tid › 400', () => post({ count: 2 }), 400, /^Give exactly one of "value" \(an indicator\) and "tid" \(a threat\)\.$/],
        ['both › 400', () => post({ value: 'host9.example.net', tid: 1 }), 400, /^Give exactly one of/],
        ['count 0 › 400', () => post({ tid: 1, count: 0 }), 400, /^Field "count" must be a whole number from 1 to 1000000000\.$/],
        ['count as a string › 400', () => post({ tid: 1, count: '2' }), 400, /^Field "count" must be a whole number\.$/],
        ['tid as a string › 400', () => post({ tid: '1' }), 400, /^Field "tid" must be a positive whole number/],
        ['a note too long › 400', () => post({ tid: 1, note: 'x'.repeat(1001) }), 400, /^Field "note" is at most 1000 characters\.$/],
        ['a note with a line break › 400', () => post({ tid: 1, note: 'one\ntwo' }), 400, /^Field "note" must not hold control characters/],
        ['an at that is no time › 400', () => post({ tid: 1, at: 'Tuesday' }), 400, /^Field "at" must be a timestamp: RFC 3339/],
        ['an at in the future › 400', () => post({ tid: 1, at: '2030-01-01T00:00:00Z' }), 400, /^Field "at" is in the future/],
        ['an unknown field › 400 naming it', () => post({ tid: 1, seen: true }), 400, /^Field "seen" is not known; the fields are value, tid, note, at and count\.$/],
        ['a JSON array › 400', () => post([1]), 400, /^The body must be a JSON object/],
        ['malformed JSON › 400', () => post('{"tid": ').type('json'), 400, /^The body is not valid JSON/],
        ['a form body › 415', () => post('tid=1').type('form'), 415, /^The body must be JSON \(Content-Type: application\/json\)/],
        ['a body over 16384 bytes › 413', () => post({ tid: 1, note: 'x'.repeat(20_000) }), 413, /^The body is larger than 16384 bytes\.$/],
      ];
      for (const [what, send, status, error] of refusals) {
        it(what, async () => {
          const before = await snapshotStore(world.store);
          const res = await send().expect(status);
          assert.match(res.body.error, error);
          assertSameStore(await snapshotStore(world.store), before, what);
        });
      }

      it('without credentials › 401; a key of a plan › 403; a request from another site › 403', async () => {
        const before = await snapshotStore(world.store);
        await request(world.app).post('/admin/api/sightings').send({ tid: 1 }).expect(401);
        const { key } = await createKey(world.store, world.config, world.clock, 'pro', 'a customer');
        await request(world.app).post('/admin/api/sightings').set('Authorization', `Bearer ${key}`).send({ tid: 1 }).expect(403);
        await post({ tid: 1 }).set('Sec-Fetch-Site', 'cross-site').expect(403);
        // The plan key is the one row a refusal here did not write.
        const after = await snapshotStore(world.store);
        assertSameStore({ ...after, api_keys: before.api_keys! }, before, 'refused by credentials');
      });
    });

    describe('GET', () => {
      it('?value= as pasted › the indicator, its counts and its sightings newest first', async () => {
        const res = await list('value=HOST9.example.net.').expect(200);
        assert.deepEqual(res.body.target, { iid: 9 });
        // The latest seen: the sighting of no time, seen when it was reported.
        assert.deepEqual(res.body.counts, { sightings: 3, stamp_sighted: world.clock.stamp(), submissions: 0 });
        assert.deepEqual(res.body.sightings.map((s: { note: string | null }) => s.note), [null, 'alert 17']);
        assert.equal(res.body.next, null);
      });

      it('a page at a time › limit and the next page\u2019s path, down to the oldest', async () => {
        for (let i = 1; i <= 4; i++) await post({ value: '198.51.100.5', note: `n${i}` }).expect(201);
        const first = await list('iid=5&limit=3').expect(200);
        assert.deepEqual(first.body.sightings.map((s: { note: string }) => s.note), ['n4', 'n3', 'n2']);
        assert.match(first.body.next, /^\/admin\/api\/sightings\?iid=5&limit=3&before=\d+$/);
        const second = await request(world.app).get(first.body.next).set('Authorization', auth()).expect(200);
        assert.deepEqual(second.body.sightings.map((s: { note: string }) => s.note), ['n1']);
        assert.equal(second.body.next, null);
      });

      it('?tid= › the threat\u2019s own sightings', async () => {
        const res = await list('tid=1').expect(200);
        assert.deepEqual(res.body.target, { tid: 1 });
        assert.equal(res.body.sightings.length, 1);
        assert.equal(res.body.counts.sightings, 1);
      });

      it('an indicator never sighted › counts of nothing, no sightings', async () => {
        const res = await list('iid=2').expect(200);
        assert.deepEqual([res.body.counts, res.body.sightings, res.body.next], [{ sightings: 0, stamp_sighted: null, submissions: 0 }, [], null]);
      });

      const refusals: [string, string, number, RegExp][] = [
        ['no target', '', 400, /^Give exactly one of the parameters "value", "iid" and "tid"\.$/],
        ['two targets', 'iid=1&tid=1', 400, /^Give exactly one/],
        ['iid not a number', 'iid=x', 400, /^Parameter "iid" must be a positive whole number\.$/],
        ['limit 0', 'iid=1&limit=0', 400, /^Parameter "limit" must be a whole number from 1 to 100\.$/],
        ['before not a number', 'iid=1&before=-3', 400, /^Parameter "before" must be a positive whole number\.$/],
        ['a value that is no indicator', 'value=no%20thing', 400, /^Parameter "value" must be an indicator/],
        ['an unknown value', 'value=nowhere.example', 404, /^Indicator not found\.$/],
        ['an unknown iid', 'iid=9999', 404, /^Indicator not found\.$/],
        ['an unknown tid', 'tid=9999', 404, /^Threat not found\.$/],
      ];
      for (const [what, query, status, error] of refusals) {
        it(`${what} › ${status}`, async () => assert.match((await list(query).expect(status)).body.error, error));
      }
    });

    it('GET /admin/api/why lists the value\u2019s latest sightings and submissions', async () => {
      const res = await request(world.app).get('/admin/api/why?value=host9.example.net').set('Authorization', auth()).expect(200);
      assert.deepEqual(res.body.sightings.map((s: { note: string | null }) => s.note), [null, 'alert 17']);
      assert.deepEqual(res.body.submissions, []);
    });
  });
}
