// Compressed feed bodies pulled end to end (docs/sources.md, "Compressed bodies"): gzip by its bytes, its Content-Type, its .gz path or the
// transport's Content-Encoding, and zip archives (abuse.ch's full.csv.zip shape, a member named by zip.member), over
// HTTP from a local server and from file:// paths, into a real store; the body's hash is of the unpacked list, so a
// list packed again unchanged is the same body. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { openPullWorld, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { dbOf } from '../helpers/store-db.js';
import { COMPRESSED_FIXTURES, compressedFixture, pullDirsOfThisProcess, startBinaryFeedServer, type BinaryFeedServer } from './pull-compressed-server.js';
import { zipArchive } from './transports/zip-archive.js';

const LIST = compressedFixture('list.txt');
const FULL_CSV = compressedFixture('full.csv');
const LIST_VALUES = ['192.0.2.14', '198.51.100.0/26', '203.0.113.200'];
/** What full.csv lists, as stored: ThreatFox's `ip:port` is its address. */
const FULL_VALUES = ['0f343b0931126a20f133d67c2b018a3b', '203.0.113.41', 'http://198.51.100.61/load/stage2.bin', 'update-check.example.net'];
/** ThreatFox's full export, as its documentation describes the columns (a `#` comment line names them). */
const THREATFOX_CSV = { header: 'comment', value: 'ioc_value', type: 'ioc_type', threat: 'malware_printable' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

for (const backend of storeBackends()) {
  describe(`compressed feed bodies (${backend.name})`, () => {
    let server: BinaryFeedServer;
    let world: PullWorld;
    let dir = '';

    before(async () => {
      server = await startBinaryFeedServer();
      world = await openPullWorld(backend);
      dir = await mkdtemp(join(tmpdir(), 'pull-compressed-'));
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await rm(dir, { recursive: true, force: true });
      await backend.cleanup();
    });

    const values = async (fid: number) => (await world.feedLinks(fid)).map((l) => l.indicator).sort();
    const bodyHash = async (fid: number) => (await dbOf(world.store).selectFrom('feed_sources').select('body_hash').where('fid', '=', fid).executeTakeFirstOrThrow()).body_hash;
    /** Adds the source, pulls it and checks that it listed `expected` and left no pull folder behind. */
    const pulled = async (feed: string, source: Record<string, unknown>, expected: string[]) => {
      const fid = await world.addSource(feed, source);
      const outcome = await world.pull(fid);
      assert.ok(outcome.ok, `the pull failed: ${!outcome.ok && outcome.reason}`);
      assert.deepEqual(await values(fid), [...expected].sort());
      assert.deepEqual(pullDirsOfThisProcess(), [], 'pull folders left behind');
      return fid;
    };

    describe('gzip', () => {
      it('a .gz text list, served as plain bytes, is found by its bytes and read unpacked', async () => {
        server.publish('/lists/list.txt.gz', gzipSync(LIST), { 'content-type': 'application/octet-stream' });
        const fid = await pulled('Gzipped list', { url: `${server.base}/lists/list.txt.gz`, format: 'text', risk: 'medium' }, LIST_VALUES);
        assert.equal(await bodyHash(fid), sha256(LIST), 'the hash is of the unpacked list');
      });

      it('a csv served with Content-Type application/gzip, at a path that says nothing', async () => {
        server.publish('/export/threatfox', gzipSync(FULL_CSV), { 'content-type': 'application/gzip' });
        await pulled('Gzipped csv', { url: `${server.base}/export/threatfox`, format: 'csv', csv: THREATFOX_CSV }, FULL_VALUES);
      });

      it('a body sent with Content-Encoding gzip, which the transport unpacks as it arrives', async () => {
        server.publish('/encoded.txt', gzipSync(LIST), { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        await pulled('Encoded list', { url: `${server.base}/encoded.txt`, format: 'text' }, LIST_VALUES);
      });

      it('a .gz file a server sends with Content-Encoding gzip (unpacked by the transport, not mislabelled)', async () => {
        server.publish('/apache/list.txt.gz', gzipSync(LIST), { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        await pulled('Apache list', { url: `${server.base}/apache/list.txt.gz`, format: 'text' }, LIST_VALUES);
      });

      it('a .gz file gzipped once more in transit: both layers are undone', async () => {
        server.publish('/twice/list.txt.gz', gzipSync(gzipSync(LIST)), { 'content-type': 'application/gzip', 'content-encoding': 'gzip' });
        await pulled('Twice gzipped list', { url: `${server.base}/twice/list.txt.gz`, format: 'text' }, LIST_VALUES);
      });

      it('several gzip members one after another are one body', async () => {
        const [head, tail] = [LIST.slice(0, LIST.indexOf('198.51')), LIST.slice(LIST.indexOf('198.51'))];
        server.publish('/parts.txt.gz', Buffer.concat([gzipSync(head), gzipSync(tail)]));
        await pulled('Multi-member gzip', { url: `${server.base}/parts.txt.gz`, format: 'text' }, LIST_VALUES);
      });
    });

    describe('zip', () => {
      it('abuse.ch\'s full export: a zip of one member, full.csv, with the # comment header', async () => {
        server.publish('/export/csv/full/', zipArchive([{ name: 'full.csv', data: FULL_CSV }]), { 'content-type': 'application/zip' });
        const fid = await pulled('Zipped ThreatFox dump', { url: `${server.base}/export/csv/full/`, format: 'csv', csv: THREATFOX_CSV, risk: 'high' }, FULL_VALUES);
        const threats = await dbOf(world.store).selectFrom('threats').select('name').where('name', 'in', ['Remcos', 'QakBot']).orderBy('name').execute();
        assert.deepEqual(threats.map((t) => t.name), ['QakBot', 'Remcos'], 'the malware_printable column names the threats');
        assert.equal(await bodyHash(fid), sha256(FULL_CSV));
      });

      it('the member zip.member names, of an archive of two', async () => {
        const archive = zipArchive([{ name: 'full.csv', data: FULL_CSV }, { name: 'lists/list.txt', data: LIST, method: 0 }]);
        server.publish('/dumps/both.zip', archive, { 'content-type': 'application/octet-stream' });
        await pulled('Second member', { url: `${server.base}/dumps/both.zip`, format: 'text', zip: { member: 'lists/list.txt' } }, LIST_VALUES);
        await pulled('First member', { url: `${server.base}/dumps/both.zip`, format: 'csv', csv: THREATFOX_CSV, zip: { member: 'full.csv' } }, FULL_VALUES);
      });

      it('a member whose sizes follow its data (a data descriptor), as a zip written as a stream has', async () => {
        server.publish('/streamed.zip', zipArchive([{ name: 'list.txt', data: LIST, dataDescriptor: true }]));
        await pulled('Streamed zip', { url: `${server.base}/streamed.zip`, format: 'text' }, LIST_VALUES);
      });
    });

    describe('labels the bytes contradict', () => {
      for (const [what, path, headers] of [
        ['a .gz path', '/mislabelled/list.txt.gz', {}],
        ['Content-Type application/zip', '/mislabelled/export/', { 'content-type': 'application/zip' }],
      ] as const) {
        it(`${what} serving a plain list: read as the list it is, and the label logged`, async () => {
          server.publish(path, LIST, headers);
          await pulled(`Mislabelled by ${what}`, { url: `${server.base}${path}`, format: 'text' }, LIST_VALUES);
          const warning = world.logLines.find((line) => line.includes('but its bytes are not') && line.includes(path));
          assert.ok(warning, 'a warning names the label');
          assert.match(warning, /the body is labelled (gzip by its path \(\.gz\)|zip by its Content-Type \(application\/zip\)), but its bytes are not (gzip|zip) data: read as they are/);
        });
      }
    });

    describe('files on disk', () => {
      it('a file:// .gz list', async () => {
        const path = join(dir, 'list.txt.gz');
        await writeFile(path, gzipSync(LIST));
        await pulled('Local gzip', { url: pathToFileURL(path).href, format: 'text' }, LIST_VALUES);
      });

      it('a file:// .zip that another tool wrote as a stream (Python\'s zipfile)', async () => {
        const url = new URL('full-streamed.csv.zip', COMPRESSED_FIXTURES);
        await pulled('Local zip', { url: pathToFileURL(fileURLToPath(url)).href, format: 'csv', csv: THREATFOX_CSV }, FULL_VALUES);
      });
    });

    describe('the same list packed again', () => {
      it('is the same body: the pull sees the same values without reading them again', async () => {
        server.publish('/repacked', gzipSync(LIST, { level: 9 }));
        const fid = await pulled('Repacked list', { url: `${server.base}/repacked`, format: 'text' }, LIST_VALUES);
        for (const body of [gzipSync(LIST, { level: 1 }), zipArchive([{ name: 'list.txt', data: LIST }]), Buffer.from(LIST)]) {
          server.publish('/repacked', body);
          const outcome = await world.pull(fid);
          assert.deepEqual([outcome.ok, outcome.ok && outcome.notModified, outcome.ok && outcome.values], [true, true, LIST_VALUES.length]);
          assert.equal(await bodyHash(fid), sha256(LIST));
        }
      });
    });
  });
}
