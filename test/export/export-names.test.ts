// GET /export/{collection}.txt|.csv names a collection as `threatgate export` does (its id or its alias), and
// ?type= names types as pulls store them: `cidr`, `ipv4`, `hostname` and `uri` list what pulls stored as ip,
// ipv6, domain and url. On SQLite and (TEST_DATABASE_URL) PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { createKey } from '../../src/cli/keys-command.js';
import { openPullWorld, runCli, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { basicAuth, INDICATORS_COLLECTION, TEST_COLLECTION } from '../taxii/taxii-request.js';

/** What one pull stores, by the type the pull gives it. */
const LISTED = {
  ip: ['198.51.100.7', '192.0.2.0/24'],
  ipv6: ['2001:db8:7::1', '2001:db8:8::/48'],
  domain: ['names.example.com'],
  url: ['https://names.example.org/a'],
} as const;
const lines = (...values: string[]) => values.map((v) => `${v}\n`).join('');

for (const backend of storeBackends()) {
  describe(`export names (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    let freeKey: string;
    before(async () => {
      world = await openPullWorld(backend);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-export-names-'));
      const list = join(dir, 'list.txt');
      writeFileSync(list, lines(...Object.values(LISTED).flat()));
      const fid = await world.addSource('Typed values', { url: pathToFileURL(list).href, format: 'text', risk: 'high' });
      assert.equal((await world.pull(fid)).ok, true);
      freeKey = (await createKey(world.store, world.config, world.clock, 'free', 'export names')).key;
    });
    after(async () => {
      await world?.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });
    const get = (path: string, key = world.key) => request(world.app).get(path).set('Authorization', basicAuth(key)).set('Accept-Encoding', 'identity');

    describe('GET /export/{alias}.txt|.csv', () => {
      for (const [alias, id] of [['indicators', INDICATORS_COLLECTION], ['test', TEST_COLLECTION]] as const) {
        for (const format of ['txt', 'csv']) {
          it(`/export/${alias}.${format} › answers 200 with the list of /export/${id.slice(0, 8)}….${format}, under the same ETag`, async () => {
            const byAlias = await get(`/export/${alias}.${format}?type=ip`).expect(200);
            const byId = await get(`/export/${id}.${format}?type=ip`).expect(200);
            assert.equal(byAlias.text, byId.text);
            assert.equal(byAlias.headers.etag, byId.headers.etag);
            assert.ok(byAlias.text.includes('198.51.100.7'));
          });
        }
      }

      it('with a Free key › the free test collection by its alias is 200, the unfiltered one by its alias 403, as by their ids', async () => {
        await get('/export/test.txt', freeKey).expect(200);
        await get(`/export/${TEST_COLLECTION}.txt`, freeKey).expect(200);
        await get('/export/indicators.txt', freeKey).expect(403);
        await get(`/export/${INDICATORS_COLLECTION}.txt`, freeKey).expect(403);
      });

      it('an alias no collection has › 404 naming it', async () => {
        const res = await get('/export/nope.txt').expect(404);
        assert.match(res.body.error, /nope/);
      });

      it('threatgate export ALIAS › the bytes GET /export/{alias}.txt sends', async () => {
        const run = await runCli(['export', 'indicators', '--type', 'cidr', '--db', world.location]);
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stdout, (await get('/export/indicators.txt?type=cidr').expect(200)).text);
      });
    });

    describe('GET /export/{id}.txt?type=', () => {
      for (const [asked, stored, listed] of [
        ['cidr', 'ip and ipv6, addresses and blocks', lines(...LISTED.ip, ...LISTED.ipv6)],
        ['ipv4', 'ip', lines(...LISTED.ip)],
        ['ip', 'ip', lines(...LISTED.ip)],
        ['ipv6', 'ipv6', lines(...LISTED.ipv6)],
        ['hostname', 'domain', lines(...LISTED.domain)],
        ['uri', 'url', lines(...LISTED.url)],
        ['ip,ipv4,ipv6,cidr', 'ip and ipv6', lines(...LISTED.ip, ...LISTED.ipv6)],
      ] as const) {
        it(`?type=${asked} › lists what pulls stored under ${stored}`, async () => {
          assert.equal((await get(`/export/${INDICATORS_COLLECTION}.txt?type=${asked}`).expect(200)).text, listed);
        });
      }

      it('?type=colour › 400 naming it and the types accepted', async () => {
        const res = await get(`/export/${INDICATORS_COLLECTION}.txt?type=ip,colour`).expect(400);
        assert.match(res.body.error, /"colour" is not an indicator type; use a comma-separated list of ip, ipv4, ipv6, cidr, domain/);
      });
    });
  });
}
