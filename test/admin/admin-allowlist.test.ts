// The operator API's allowlist (docs/interface.md section 13: GET, POST with dryRun, DELETE under /admin/api/allowlist) on a store filled by
// real pulls of a local feed server: the dry run counts what applying retires, the retired indicators read
// `allowlisted`, later pulls keep them out until the entry is removed, and every refusal changes nothing. Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createAdminKey } from '../../src/cli/keys-command.js';
import { DEFAULT_ALLOWLIST } from '../../src/sources/allowlist.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';

const LIST = ['198.18.0.1', '198.18.0.2', '198.19.5.5', 'bad.example.org', 'http://x.bad.example.org/path', 'good.example.net'];
const BLOCK = '198.18.0.0/24';

for (const backend of storeBackends()) {
  describe(`/admin/api/allowlist (${backend.name})`, () => {
    let server: FeedServer;
    let world: PullWorld;
    let fid: number;
    let admin: { id: string; key: string };
    const auth = () => `Bearer ${admin.key}`;
    const get = () => request(world.app).get('/admin/api/allowlist').set('Authorization', auth());
    const post = (body: unknown) => request(world.app).post('/admin/api/allowlist').set('Authorization', auth()).send(body as object);
    const remove = (path: string) => request(world.app).delete(`/admin/api/allowlist/${path}`).set('Authorization', auth());
    const lookup = (value: string) => world.api('indicator.php', { indicator: value });
    const runtime = async () => (await get().expect(200)).body.entries.filter((e: { origin: string }) => e.origin === 'runtime');

    before(async () => {
      server = await startFeedServer();
      server.publish('/list.txt', `${LIST.join('\n')}\n`);
      world = await openPullWorld(backend);
      admin = await createAdminKey(world.store, world.clock, 'allowlist tests');
      fid = await world.addSource('Allow Feed', { url: `${server.base}/list.txt`, format: 'text', risk: 'high', schedule: 'every 1h' });
      assert.ok((await world.pull(fid)).ok);
    });
    after(async () => {
      await world.close();
      await server.close();
      await backend.cleanup();
    });

    describe('GET', () => {
      it('before any addition › the config\u2019s entries only, each origin config', async () => {
        const res = await get().expect(200);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.deepEqual(res.body, { entries: DEFAULT_ALLOWLIST.map((entry) => ({ entry, origin: 'config' })) });
      });
    });

    describe('POST, dry run then applied', () => {
      let dryCount: number;

      it('dryRun true › counts the stored indicators the entry covers, names them, and changes nothing', async () => {
        const before = await snapshotStore(world.store);
        const res = await post({ entry: ` ${BLOCK} `, dryRun: true }).expect(200);
        assert.equal(res.headers['cache-control'], 'no-store');
        assert.deepEqual(res.body.entry, BLOCK);
        assert.equal(res.body.dryRun, true);
        assert.deepEqual(
          res.body.sample.map((s: { value: string; type: string }) => [s.value, s.type]),
          [['198.18.0.1', 'ip'], ['198.18.0.2', 'ip']],
        );
        dryCount = res.body.count;
        assert.equal(dryCount, 2);
        assertSameStore(await snapshotStore(world.store), before, 'a dry run');
        assert.equal((await lookup('198.18.0.1')).risk, 'high');
      });

      it('applied › 201 with as many retired as the dry run counted, added by the admin key', async () => {
        world.clock.advance(60_000);
        const res = await post({ entry: BLOCK, reason: 'our own\toffice range', dryRun: false }).expect(201);
        assert.deepEqual(res.body, { entry: BLOCK, added: true, retired: dryCount });
        assert.equal(res.headers.location, '/admin/api/allowlist/198.18.0.0%2F24');
        assert.deepEqual(await runtime(), [{ entry: BLOCK, origin: 'runtime', added_by: admin.id, added_by_label: 'allowlist tests', added_at: world.clock.stamp(), reason: 'our own office range' }]);
      });

      it('the indicators it retired read allowlisted on the lookup API, the others keep their risk', async () => {
        for (const value of ['198.18.0.1', '198.18.0.2']) {
          const body = await lookup(value);
          assert.deepEqual([body.risk, body.retired, body.retired_reason], ['retired', 1, 'allowlisted']);
        }
        assert.equal((await lookup('198.19.5.5')).risk, 'high');
      });

      it('why names the run-time entry that keeps a value out', async () => {
        const res = await request(world.app).get('/admin/api/why?value=198.18.0.1').set('Authorization', auth()).expect(200);
        assert.deepEqual(res.body.allowlist, { entry: BLOCK });
        assert.equal(res.body.indicator.retired_reason, 'allowlisted');
      });

      it('the next pull keeps them out, counted as allowlisted in its run', async () => {
        server.publish('/list.txt', `${LIST.join('\n')}\n203.0.113.77\n`);
        const outcome = await world.pull(fid);
        assert.ok(outcome.ok);
        assert.equal(outcome.allowlisted, 2);
        assert.equal((await lookup('198.18.0.1')).risk, 'retired');
      });

      it('without dryRun or reason › applied, the reason null; a domain covers the URLs on it', async () => {
        const res = await post({ entry: 'bad.example.org' }).expect(201);
        assert.deepEqual(res.body, { entry: 'bad.example.org', added: true, retired: 2 });
        assert.equal((await lookup('http://x.bad.example.org/path')).retired_reason, 'allowlisted');
        assert.equal((await runtime())[1].reason, null);
      });
    });

    describe('POST refusals, none of which changes anything', () => {
      const refusals: [what: string, send: () => request.Test, status: number, error: RegExp][] = [
        ['a bad entry › 400 naming it', () => post({ entry: '300.1.2.3/40' }), 400, /^Entry "300\.1\.2\.3\/40": not an IPv4 address or CIDR block\.$/],
        ['an empty entry › 400', () => post({ entry: '  ', dryRun: true }), 400, /^An entry is required/],
        ['no entry › 400 naming the field', () => post({ reason: 'x' }), 400, /^Field "entry" is required/],
        ['dryRun not a boolean › 400', () => post({ entry: '192.0.2.9', dryRun: 'yes' }), 400, /^Field "dryRun" must be true or false\.$/],
        ['an unknown field › 400 naming it', () => post({ entry: '192.0.2.9', dry_run: true }), 400, /^Field "dry_run" is not known/],
        ['a reason too long › 400', () => post({ entry: '192.0.2.9', reason: 'x'.repeat(501) }), 400, /^The reason is at most 500 characters\.$/],
        ['a run-time entry again › 409', () => post({ entry: BLOCK }), 409, /^198\.18\.0\.0\/24 is on the run-time allowlist already\.$/],
        ['a run-time entry again, dry run › 409', () => post({ entry: BLOCK, dryRun: true }), 409, /on the run-time allowlist already/],
        ['a config entry › 409', () => post({ entry: '10.0.0.0/8' }), 409, /^10\.0\.0\.0\/8 is in the config's allowlist already\.$/],
        ['a form body › 415', () => post('entry=192.0.2.9').type('form'), 415, /^The body must be JSON \(Content-Type: application\/json\)/],
        ['malformed JSON › 400', () => post('{"entry": ').type('json'), 400, /^The body is not valid JSON/],
        ['a JSON array › 400', () => post([{ entry: '192.0.2.9' }]), 400, /^The body must be a JSON object/],
        ['no body › 400', () => request(world.app).post('/admin/api/allowlist').set('Authorization', auth()), 400, /^The body must be a JSON object/],
        ['a body over the limit › 413', () => post({ entry: '192.0.2.9', reason: 'x'.repeat(20_000) }), 413, /^The body is larger than 16384 bytes\.$/],
        ['a browser from another site › 403', () => post({ entry: '192.0.2.9' }).set('Sec-Fetch-Site', 'cross-site'), 403, /another site/],
      ];
      for (const [what, send, status, error] of refusals) {
        it(what, async () => {
          const before = await snapshotStore(world.store);
          const res = await send().expect(status);
          assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
          assert.match(res.body.error, error);
          assertSameStore(await snapshotStore(world.store), before, what);
        });
      }

      it('GET on an entry\u2019s path › 405 with Allow: DELETE; PUT on the list › 405', async () => {
        assert.equal((await request(world.app).get('/admin/api/allowlist/x').set('Authorization', auth()).expect(405)).headers.allow, 'DELETE');
        assert.equal((await request(world.app).put('/admin/api/allowlist').set('Authorization', auth()).expect(405)).headers.allow, 'GET, HEAD, POST');
      });
    });

    describe('DELETE', () => {
      it('a config entry › 409 naming the config; an entry on neither list › 404; a browser from another site › 403', async () => {
        const before = await snapshotStore(world.store);
        assert.match((await remove('10.0.0.0%2F8').expect(409)).body.error, /^10\.0\.0\.0\/8 is in the config's allowlist; remove it there/);
        assert.deepEqual((await remove('nothing.example').expect(404)).body, { error: 'nothing.example is not on the run-time allowlist.' });
        await remove('bad.example.org').set('Sec-Fetch-Site', 'cross-site').expect(403);
        assertSameStore(await snapshotStore(world.store), before, 'refused removals');
      });

      it('a run-time entry, its / as %2F › 204, and the next pull brings back what it kept out', async () => {
        const res = await remove('198.18.0.0%2F24').expect(204);
        assert.equal(res.text, '');
        assert.deepEqual((await runtime()).map((e: { entry: string }) => e.entry), ['bad.example.org']);
        server.publish('/list.txt', `${LIST.join('\n')}\n203.0.113.78\n`);
        assert.ok((await world.pull(fid)).ok);
        const body = await lookup('198.18.0.1');
        assert.deepEqual([body.risk, body.retired, body.retired_reason], ['high', 0, null]);
        assert.equal((await lookup('bad.example.org')).risk, 'retired');
      });

      it('a block written with a plain / › 204 as well; removed twice › 404', async () => {
        await post({ entry: '198.19.0.0/16' }).expect(201);
        await remove('198.19.0.0/16').expect(204);
        await remove('198.19.0.0%2F16').expect(404);
      });
    });
  });
}
