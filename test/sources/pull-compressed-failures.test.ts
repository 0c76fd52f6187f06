// Compressed bodies that cannot be read fail the pull and change nothing (docs/sources.md, "Compressed bodies"): gzip and
// zip bombs with the error of any body over maxMegabytes, damaged archives, a zip of several members without
// zip.member, a member missing, an encrypted one, a page or noise where the labels promise an archive. Each case starts from a good pull, and
// the store is the same row for row after the failure, with no pull folder left behind. SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { assertSameStore, openPullWorld, snapshotStore, type PullWorld } from '../helpers/pull-harness.js';
import { storeBackends } from '../helpers/store-backends.js';
import { compressedFixture, pullDirsOfThisProcess, startBinaryFeedServer, type BinaryFeedServer } from './pull-compressed-server.js';
import { zipArchive } from './transports/zip-archive.js';

const LIST = compressedFixture('list.txt');
const FULL_CSV = compressedFixture('full.csv');
/** Two mebibytes of newlines: they pack into a few kilobytes and unpack past a maxMegabytes of 1. */
const BOMB = Buffer.alloc(2 * 1024 * 1024, '\n');
const OVERSIZED = /^http:\/\/127\.0\.0\.1:\d+\/[^:]*: body larger than maxMegabytes \(1\)$/;

interface FailureCase {
  what: string;
  /** Fields of the source besides its URL (format text unless said). */
  source?: Record<string, unknown>;
  /** The path it is served at. */
  path: string;
  /** What a good pull reads first, and then what fails. */
  good: Buffer | string;
  bad: Buffer | string;
  headers?: Record<string, string>;
  reason: RegExp;
}

const listZip = (name = 'list.txt') => zipArchive([{ name, data: LIST }]);

const CASES: FailureCase[] = [
  { what: 'a gzip bomb', path: '/bomb.txt.gz', good: gzipSync(LIST), bad: gzipSync(BOMB), reason: OVERSIZED },
  { what: 'a zip bomb whose directory tells its size', path: '/bomb.zip', good: listZip(), bad: zipArchive([{ name: 'list.txt', data: BOMB }]), reason: OVERSIZED },
  { what: 'a zip bomb whose directory lies about its size', path: '/liar.zip', good: listZip(), bad: zipArchive([{ name: 'list.txt', data: BOMB, claimedSize: 100 }]), reason: OVERSIZED },
  {
    what: 'a zip of two files without zip.member', path: '/two.zip', good: listZip(),
    bad: zipArchive([{ name: 'list.txt', data: LIST }, { name: 'full.csv', data: FULL_CSV }]),
    reason: /^the zip archive holds 2 files \("list\.txt", "full\.csv"\): set zip\.member to the one to read$/,
  },
  {
    what: 'a zip without the member zip.member names', path: '/renamed.zip', source: { zip: { member: 'list.txt' } }, good: listZip(), bad: listZip('blocklist.txt'),
    reason: /^the zip archive has no member "list\.txt" \(zip\.member\); it holds "blocklist\.txt"$/,
  },
  { what: 'a zip cut short', path: '/cut.zip', good: listZip(), bad: listZip().subarray(0, 60), reason: /^the zip archive is damaged: it has no end of central directory record/ },
  {
    what: 'an encrypted zip member', path: '/locked.zip', good: listZip(), bad: zipArchive([{ name: 'list.txt', data: LIST, method: 0, flags: 1 }]),
    reason: /^the zip archive's member "list\.txt" is encrypted, which is not read$/,
  },
  { what: 'a gzip body cut short', path: '/cut.txt.gz', good: gzipSync(LIST), bad: gzipSync(LIST).subarray(0, 30), reason: /^the gzip body is damaged: unexpected end of file$/ },
  {
    // Labels the bytes contradict are logged, and the body read as what it is: here, no list.
    what: 'a .zip path serving bytes that are no list', path: '/noise.zip', good: listZip(), bad: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)),
    reason: /^the source listed no values where its last pull listed 3; kept as an outage$/,
  },
  {
    // The sanity gate's reason says more than "not zip data" does.
    what: 'an HTML page at a .zip path', path: '/moved.zip', good: listZip(), bad: '<!DOCTYPE html><html><body>Please log in</body></html>\n', headers: { 'content-type': 'text/html' },
    reason: /^the body is an HTML page \(text\/html\) where a text list was expected/,
  },
];

for (const backend of storeBackends()) {
  describe(`a compressed body that cannot be read (${backend.name})`, () => {
    let server: BinaryFeedServer;
    let world: PullWorld;

    before(async () => {
      server = await startBinaryFeedServer();
      world = await openPullWorld(backend);
    });
    after(async () => {
      await world?.close();
      await server?.close();
      await backend.cleanup();
    });

    for (const failure of CASES) {
      it(`${failure.what}: fails the pull, naming what is wrong, and changes nothing`, async () => {
        server.publish(failure.path, failure.good, failure.headers);
        const fid = await world.addSource(`Compressed: ${failure.what}`, { url: `${server.base}${failure.path}`, format: 'text', maxMegabytes: 1, ...failure.source });
        const good = await world.pull(fid);
        assert.ok(good.ok, `the good pull failed: ${!good.ok && good.reason}`);
        const before = await snapshotStore(world.store);
        server.publish(failure.path, failure.bad, failure.headers);
        const outcome = await world.pull(fid);
        assert.match(outcome.ok ? 'ok' : outcome.reason, failure.reason);
        assertSameStore(await snapshotStore(world.store), before, failure.what);
        assert.deepEqual(pullDirsOfThisProcess(), [], 'pull folders left behind');
        const listed = (await world.feeds(['list'])).lines.find((line) => line.startsWith(`${fid}\t`)) ?? '';
        assert.ok(listed.includes(outcome.ok ? '' : outcome.reason.slice(0, 40)), `feeds list shows the error: ${listed}`);
      });
    }
  });
}
