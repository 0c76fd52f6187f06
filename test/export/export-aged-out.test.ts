// An indicator the lifecycle ages out (risk `retired`) leaves every firewall list at once: the .txt and .csv
// exports, each type and style, every collection, and `threatgate export`; TAXII tells its pollers by expiry.
// A real pull, then the lifecycle on a clock the test moves, on SQLite and (TEST_DATABASE_URL) PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { deepMerge, loadConfig } from '../../src/config.js';
import { runLifecycle } from '../../src/lifecycle/run-lifecycle.js';
import { openPullWorld, runCli, type PullWorld, type StixObject } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { GENEROUS_PLANS } from '../helpers/test-app.js';
import { basicAuth, collectionPath, INDICATORS_COLLECTION, TEST_COLLECTION, walk } from '../taxii/taxii-request.js';

const DAY = 86_400_000;
/** A saved view of the high-risk indicators: what a firewall's "block" list is often built from. */
const HIGH_COLLECTION = '3c1f6a2e-8d4b-4f7a-9e2c-5b6d7a8e9f01';
const COLLECTIONS = {
  collections: [
    { id: TEST_COLLECTION, title: 'Test collection', alias: 'test', free: true, filter: { sample: 100 } },
    { id: INDICATORS_COLLECTION, title: 'Indicators', alias: 'indicators', free: false, filter: {} },
    { id: HIGH_COLLECTION, title: 'High risk', alias: 'high-risk', free: false, filter: { minRisk: 'high' } },
  ],
};
const CONFIG = loadConfig({ overrides: deepMerge({ ...GENEROUS_PLANS, linksPageSize: 1000, cache: { versionCheckMs: 0 } }, COLLECTIONS) });

/** Listed by every pull. Enough of them that dropping the others is no suspicious fall in the list's size. */
const STAYING = ['198.51.100.21', '198.51.100.22', '198.51.100.23', 'stays.example.com', 'also-stays.example.com', 'https://stays.example.org/kit.zip'];
/** Listed by the first pull only; aged out 31 days later. */
const LEAVING = ['203.0.113.77', 'gone.example.net', 'https://gone.example.org/payload.exe'];
/** How each leaving value is written in any list: as stored, and (a URL) without its scheme for the PAN-OS style. */
const LEAVING_FORMS = [...LEAVING, 'gone.example.org/payload.exe'];

/** Every export a firewall or script reads, over HTTP. */
const EXPORTS = [
  ...[INDICATORS_COLLECTION, TEST_COLLECTION, HIGH_COLLECTION].flatMap((id) => [`/export/${id}.txt`, `/export/${id}.csv`]),
  `/export/${INDICATORS_COLLECTION}.txt?style=panos`,
  `/export/${INDICATORS_COLLECTION}.txt?type=url&style=panos`,
  `/export/${INDICATORS_COLLECTION}.csv?type=url&style=panos`,
  `/export/${INDICATORS_COLLECTION}.txt?type=ip,ipv4,ipv6,cidr`,
  `/export/${INDICATORS_COLLECTION}.txt?type=domain,hostname`,
  `/export/${INDICATORS_COLLECTION}.csv?type=ip`,
];
/** `threatgate export` arguments, by id and by alias, and the HTTP list each must equal. */
const CLI_EXPORTS = [
  [[INDICATORS_COLLECTION], `/export/${INDICATORS_COLLECTION}.txt`],
  [['indicators', '--format', 'csv'], `/export/${INDICATORS_COLLECTION}.csv`],
  [['test', '--style', 'panos'], `/export/${TEST_COLLECTION}.txt?style=panos`],
  [['high-risk', '--type', 'ip,domain,url'], `/export/${HIGH_COLLECTION}.txt?type=ip,domain,url`],
] as const;

for (const backend of storeBackends()) {
  describe(`an indicator aged out by the lifecycle (${backend.name})`, () => {
    let world: PullWorld;
    let dir: string;
    let configFile: string;
    let fid: number;
    /** The exports' bodies and ETags before the lifecycle ran. */
    const before_: Map<string, { text: string; etag: string }> = new Map();
    /** Where the risk view's pollers stood before the lifecycle ran. */
    let highCursor: string | undefined;

    const exportResponse = (path: string) => request(world.app).get(path).set('Authorization', basicAuth(world.key)).set('Accept-Encoding', 'identity').expect(200);
    const exportText = async (path: string) => (await exportResponse(path)).text;
    const cliExport = async (args: readonly string[]) => {
      const run = await runCli(['export', ...args, '--db', world.location, '--config', configFile]);
      assert.equal(run.status, 0, run.stderr);
      return run.stdout;
    };
    const viewPages = (id: string, query = '') => walk(world.app, world.key, `${collectionPath(id)}objects/?limit=50&match[type]=indicator${query}`);
    const viewIndicators = async (id: string, query = '') => (await viewPages(id, query)).flatMap((p) => (p.body.objects ?? []) as StixObject[]);

    before(async () => {
      world = await openPullWorld(backend, {}, CONFIG);
      dir = mkdtempSync(join(tmpdir(), 'threatgate-aged-out-'));
      configFile = join(dir, 'config.json');
      writeFileSync(configFile, JSON.stringify(COLLECTIONS));
      const list = join(dir, 'list.txt');
      writeFileSync(list, [...STAYING, ...LEAVING].join('\n') + '\n');
      fid = await world.addSource('Block list', { url: pathToFileURL(list).href, format: 'text', risk: 'high' });
      assert.equal((await world.pull(fid)).ok, true);
      writeFileSync(list, STAYING.join('\n') + '\n');
      assert.equal((await world.pull(fid)).ok, true);
      for (const path of EXPORTS) {
        const res = await exportResponse(path);
        before_.set(path, { text: res.text, etag: res.headers.etag as string });
      }
      highCursor = (await viewPages(HIGH_COLLECTION)).findLast((p) => p.last)?.last;
      world.clock.advance(31 * DAY);
      assert.equal((await runLifecycle(world.store, CONFIG.lifecycle, world.clock)).agedIndicators, LEAVING.length);
    });
    after(async () => {
      await world?.close();
      rmSync(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    it('the lookup API shows it with risk retired (what the exports must then leave out)', async () => {
      const risks = new Map((await world.feedLinks(fid)).map((l) => [l.indicator, l.risk]));
      for (const value of LEAVING) assert.equal(risks.get(value), 'retired', value);
      for (const value of STAYING) assert.equal(risks.get(value), 'high', value);
    });

    for (const path of EXPORTS) {
      it(`GET ${path} › lists it no more, under a new ETag, and still lists what its source lists`, async () => {
        const { text: was, etag } = before_.get(path)!;
        // A firewall polls with the ETag of its copy: it must get the new list, not a 304.
        const res = await exportResponse(path).set('If-None-Match', etag);
        const now = res.text;
        assert.notEqual(res.headers.etag, etag);
        assert.ok(LEAVING_FORMS.some((form) => was.includes(form)), `the list held no leaving value before the lifecycle:\n${was}`);
        for (const form of LEAVING_FORMS) assert.ok(!now.includes(form), `${form} is still listed:\n${now}`);
        assert.ok(!/,retired,/.test(now), `a row with risk retired:\n${now}`);
        assert.ok(STAYING.some((value) => now.includes(value.replace(/^https:\/\//, ''))), `nothing of what stays is listed:\n${now}`);
      });
    }

    for (const [args, path] of CLI_EXPORTS) {
      it(`threatgate export ${args.join(' ')} › lists it no more, byte for byte as GET ${path}`, async () => {
        const out = await cliExport(args);
        for (const form of LEAVING_FORMS) assert.ok(!out.includes(form), `${form} is still listed:\n${out}`);
        assert.ok(out.length > 0);
        assert.equal(out, await exportText(path));
      });
    }

    it('TAXII › the unfiltered collection serves its final version, expired by valid_until', async () => {
      const expired = (await viewIndicators(INDICATORS_COLLECTION)).filter((o) => typeof o.valid_until === 'string');
      assert.deepEqual(
        expired.map((o) => o.pattern).sort(),
        ["[domain-name:value = 'gone.example.net']", "[ipv4-addr:value = '203.0.113.77']", "[url:value = 'https://gone.example.org/payload.exe']"],
      );
      for (const o of expired) assert.equal(o.revoked, undefined, 'retirement is expiry, not revocation (docs/stix-mapping.md)');
    });

    it('TAXII › a risk view that held it serves its expired version after its pollers\u2019 cursor, so they learn it expired', async () => {
      assert.equal(typeof highCursor, 'string');
      const since = await viewIndicators(HIGH_COLLECTION, `&added_after=${encodeURIComponent(highCursor!)}`);
      assert.deepEqual(
        since.map((o) => [o.pattern, typeof o.valid_until]).sort(),
        [["[domain-name:value = 'gone.example.net']", 'string'], ["[ipv4-addr:value = '203.0.113.77']", 'string'], ["[url:value = 'https://gone.example.org/payload.exe']", 'string']],
      );
      assert.equal((await viewIndicators(HIGH_COLLECTION)).length, STAYING.length + LEAVING.length);
    });
  });
}
