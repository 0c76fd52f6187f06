// openZipMember on archives written to disk: which member is read, what is refused and how, and damage found where it is.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CompressedBodyError } from '../../../src/sources/transports/compressed-body-error.js';
import { openZipMember } from '../../../src/sources/transports/zip-member.js';
import { zipArchive, type ZipEntryInput } from './zip-archive.js';

const FIXTURES = new URL('../../fixtures/feeds-compressed/', import.meta.url);
const LIST = '192.0.2.14\n198.51.100.0/26\n';

let dir = '';
let n = 0;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zip-member-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function archive(bytes: Buffer): Promise<string> {
  const path = join(dir, `archive-${++n}.zip`);
  await writeFile(path, bytes);
  return path;
}

/** The member's name and its unpacked text. */
async function read(bytes: Buffer, wanted?: string): Promise<[string, string]> {
  const member = await openZipMember(await archive(bytes), wanted);
  const chunks: Buffer[] = [];
  for await (const chunk of member.read()) chunks.push(chunk);
  return [member.name, Buffer.concat(chunks).toString('utf8')];
}

/** The message of the CompressedBodyError reading fails with. */
async function refusal(bytes: Buffer, wanted?: string): Promise<string> {
  try {
    await read(bytes, wanted);
  } catch (error) {
    assert.ok(error instanceof CompressedBodyError, `expected a CompressedBodyError, got ${String(error)}`);
    return error.message;
  }
  return assert.fail('expected the read to fail');
}

const one = (entry: Partial<ZipEntryInput> = {}) => zipArchive([{ name: 'list.txt', data: LIST, ...entry }]);

describe('openZipMember', () => {
  describe('the member read', () => {
    it('is the only file of the archive, deflated', async () => {
      assert.deepEqual(await read(one()), ['list.txt', LIST]);
    });

    it('is the only file, stored', async () => {
      assert.deepEqual(await read(one({ method: 0 })), ['list.txt', LIST]);
    });

    it('is the only file when the archive also holds folders and a Mac\'s resource forks', async () => {
      const bytes = zipArchive([
        { name: 'export/', data: '' },
        { name: 'export/list.txt', data: LIST },
        { name: '__MACOSX/export/._list.txt', data: 'fork' },
      ]);
      assert.deepEqual(await read(bytes), ['export/list.txt', LIST]);
    });

    it('is the one zip.member names, among several', async () => {
      const bytes = zipArchive([{ name: 'a.txt', data: 'a\n' }, { name: 'b.txt', data: LIST }]);
      assert.deepEqual(await read(bytes, 'b.txt'), ['b.txt', LIST]);
    });

    it('has its sizes in a data descriptor: the central directory gives them', async () => {
      assert.deepEqual(await read(one({ dataDescriptor: true })), ['list.txt', LIST]);
    });

    it('is read from an archive another tool wrote as a stream (Python\'s zipfile, with a data descriptor)', async () => {
      const [name, text] = await read(await readFile(new URL('full-streamed.csv.zip', FIXTURES)));
      assert.deepEqual([name, text], ['full.csv', await readFile(new URL('full.csv', FIXTURES), 'utf8')]);
    });

    it('may be empty', async () => {
      assert.deepEqual(await read(one({ data: '' })), ['list.txt', '']);
    });

    it('reports the size the directory gives before a byte is unpacked', async () => {
      const member = await openZipMember(await archive(one({ data: Buffer.alloc(3_000_000) })), undefined);
      assert.equal(member.size, 3_000_000);
    });
  });

  describe('which member', () => {
    it('fails for several files without zip.member, naming them', async () => {
      const bytes = zipArchive([{ name: 'a.txt', data: 'a' }, { name: 'b.txt', data: 'b' }]);
      assert.equal(await refusal(bytes), 'the zip archive holds 2 files ("a.txt", "b.txt"): set zip.member to the one to read');
    });

    it('names at most ten of them, then how many more', async () => {
      const bytes = zipArchive(Array.from({ length: 13 }, (_, i) => ({ name: `part-${i}.txt`, data: `${i}` })));
      assert.match(await refusal(bytes), /^the zip archive holds 13 files \("part-0\.txt", .*"part-9\.txt" and 3 more\): set zip\.member/);
    });

    it('fails for a member zip.member names that is not there, naming the member and what there is', async () => {
      assert.equal(await refusal(one(), 'full.csv'), 'the zip archive has no member "full.csv" (zip.member); it holds "list.txt"');
    });

    it('quotes names without their control characters, cut short', async () => {
      const bytes = zipArchive([{ name: '\x1b[31mred\x1b[0m.txt', data: 'a' }, { name: `${'x'.repeat(200)}.txt`, data: 'b' }]);
      const message = await refusal(bytes);
      assert.ok(!/[\x00-\x1f]/.test(message), message);
      assert.match(message, /"\[31mred\[0m\.txt", "x{80}…"/);
    });

    it('fails for an archive of folders only', async () => {
      assert.equal(await refusal(zipArchive([{ name: 'empty/', data: '' }])), 'the zip archive holds no file');
    });
  });

  describe('what is not read', () => {
    it('refuses an encrypted member', async () => {
      assert.equal(await refusal(one({ flags: 0x0001, method: 0 })), 'the zip archive\'s member "list.txt" is encrypted, which is not read');
    });

    it('refuses a method other than stored and deflate, naming it', async () => {
      assert.equal(
        await refusal(one({ method: 12 })),
        'the zip archive\'s member "list.txt" is compressed with method 12 (bzip2); only stored (0) and deflate (8) members are read',
      );
    });

    it('refuses a zip64 archive', async () => {
      assert.match(await refusal(zipArchive([{ name: 'list.txt', data: LIST }], { zip64Locator: true })), /^the zip archive is a zip64 archive/);
    });
  });

  describe('a damaged archive', () => {
    const damaged = (detail: RegExp) => new RegExp(`^the zip archive is damaged: ${detail.source}`);

    it('fails when its end is cut off', async () => {
      const bytes = one();
      assert.match(await refusal(bytes.subarray(0, bytes.length - 10)), damaged(/it has no end of central directory record/));
    });

    it('fails for bytes that are no archive at all', async () => {
      assert.match(await refusal(Buffer.from('PK\x03\x04 and then nothing of a zip archive', 'latin1')), damaged(/it has no end of central directory record/));
    });

    it('fails when the member does not unpack to the size the directory gives', async () => {
      assert.match(await refusal(one({ claimedSize: 5 })), damaged(/member "list\.txt" unpacks to 27 bytes where the directory says 5/));
    });

    it('fails when the member fails its CRC-32 check', async () => {
      assert.match(await refusal(one({ claimedCrc: 0x12345678 })), damaged(/member "list\.txt" fails its CRC-32 check/));
    });

    it('fails with zlib\'s reason when the deflate data is broken', async () => {
      const bytes = one({ data: 'a long enough line of text to deflate\n'.repeat(20) });
      // The deflated data starts after the 30-byte local header and the name; its first byte's block type 3 is invalid.
      bytes[30 + 'list.txt'.length] = 0xff;
      assert.match(await refusal(bytes), damaged(/member "list\.txt": invalid block type/));
    });

    it('fails when the directory points at no local header', async () => {
      const bytes = one();
      bytes.writeUInt32LE(0, 0);
      assert.match(await refusal(bytes), damaged(/member "list\.txt" has no local header where the directory says/));
    });

    it('fails when the directory holds fewer entries than the end record counts', async () => {
      const bytes = one();
      bytes.writeUInt16LE(2, bytes.length - 12);
      bytes.writeUInt16LE(2, bytes.length - 14);
      assert.match(await refusal(bytes), damaged(/entry 2 of 2 of its central directory is missing/));
    });
  });
});
