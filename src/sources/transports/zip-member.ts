// One member of a zip archive read from the spooled body (docs/sources.md, "Compressed bodies"): the central directory found from the file's end, the member stored or deflated, its size and CRC-32 checked.
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline, Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { CompressedBodyError, quoteMember, zlibReason } from './compressed-body-error.js';

// Record signatures and layouts of PKWARE's APPNOTE.TXT (the .ZIP File Format Specification), section 4.3.
const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_RECORD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const LOCAL_HEADER_BYTES = 30;
const CENTRAL_HEADER_BYTES = 46;
const END_RECORD_BYTES = 22;
const ZIP64_LOCATOR_BYTES = 20;
const MAX_COMMENT_BYTES = 0xffff;
/** A 16- or 32-bit field at its maximum: the real value is in a zip64 record (APPNOTE 4.4.1.4). */
const ZIP64_COUNT = 0xffff;
const ZIP64_SIZE = 0xffffffff;
/** A feed's archive holds a few files; a directory larger than this is no such archive, and is not read into memory. */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024;
/** Files a message names before it says how many more there are. */
const NAMED_FILES = 10;

const STORED = 0;
const DEFLATED = 8;
/** The methods a refusal names (APPNOTE 4.4.5); any other is given by its number. */
const METHOD_NAMES: Readonly<Record<number, string>> = { 1: 'shrink', 6: 'implode', 9: 'deflate64', 12: 'bzip2', 14: 'lzma', 93: 'zstandard', 95: 'xz', 99: 'AES encryption' };
/** General purpose flags (APPNOTE 4.4.4): bit 0 encrypted, bit 6 strong encryption, bit 11 the name is UTF-8. */
const ENCRYPTED = 0x0001;
const STRONG_ENCRYPTION = 0x0040;
const UTF8_NAME = 0x0800;

interface Entry {
  name: string;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/** The member a pull reads. */
export interface ZipMember {
  name: string;
  /** What the central directory says the member unpacks to; `read` holds the member to it. */
  size: number;
  /** The member's bytes unpacked; fails at the end when they are not the size or CRC-32 the directory says. */
  read(): AsyncGenerator<Buffer>;
}

const damaged = (reason: string) => new CompressedBodyError(`the zip archive is damaged: ${reason}`);
const zip64 = () => new CompressedBodyError('the zip archive is a zip64 archive (over 4 GiB or 65,535 entries), which is not read');

/**
 * The member `wanted` names (`zip.member`), or the archive's only file when `wanted` is undefined,
 * from the archive at `path`. The central directory decides, not the local headers: a member
 * written as a stream (general purpose bit 3) has its sizes only there and in a data descriptor.
 */
export async function openZipMember(path: string, wanted: string | undefined): Promise<ZipMember> {
  const file = await open(path, 'r');
  try {
    const directory = await readDirectory(file, (await file.stat()).size);
    const entry = chooseMember(directory.entries, wanted);
    checkReadable(entry);
    const start = await dataStart(file, entry, directory.offset);
    return { name: entry.name, size: entry.size, read: () => readMember(path, entry, start) };
  } finally {
    await file.close();
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

/** The end record's offset in `tail`, the last one whose comment fits (APPNOTE 4.3.16); bytes after the comment are tolerated. */
function endRecordAt(tail: Buffer): number | undefined {
  for (let at = tail.length - END_RECORD_BYTES; at >= 0; at--) {
    if (tail.readUInt32LE(at) === END_RECORD && at + END_RECORD_BYTES + tail.readUInt16LE(at + 20) <= tail.length) return at;
  }
  return undefined;
}

async function readDirectory(file: FileHandle, size: number): Promise<{ entries: Entry[]; offset: number }> {
  const tailStart = Math.max(0, size - END_RECORD_BYTES - MAX_COMMENT_BYTES);
  const tail = await readAt(file, tailStart, size - tailStart);
  const at = endRecordAt(tail);
  if (at === undefined) throw damaged('it has no end of central directory record (a zip archive ends with one: is the body whole, and a zip archive?)');
  const count = tail.readUInt16LE(at + 10);
  const length = tail.readUInt32LE(at + 12);
  const offset = tail.readUInt32LE(at + 16);
  const recordPosition = tailStart + at;
  const locatorPosition = recordPosition - ZIP64_LOCATOR_BYTES;
  const locator = locatorPosition < 0 ? undefined : await readAt(file, locatorPosition, 4);
  if (locator?.readUInt32LE(0) === ZIP64_LOCATOR || count === ZIP64_COUNT || length === ZIP64_SIZE || offset === ZIP64_SIZE) throw zip64();
  if (tail.readUInt16LE(at + 4) !== 0 || tail.readUInt16LE(at + 6) !== 0 || tail.readUInt16LE(at + 8) !== count) {
    throw new CompressedBodyError('the zip archive spans several disks, which is not read');
  }
  if (offset + length > recordPosition) throw damaged('its central directory runs past the end record');
  if (length > MAX_DIRECTORY_BYTES) throw new CompressedBodyError(`the zip archive's central directory is over ${MAX_DIRECTORY_BYTES / (1024 * 1024)} MiB, which is not read`);
  return { entries: parseDirectory(await readAt(file, offset, length), count), offset };
}

function parseDirectory(bytes: Buffer, count: number): Entry[] {
  const entries: Entry[] = [];
  for (let i = 0, p = 0; i < count; i++) {
    if (p + CENTRAL_HEADER_BYTES > bytes.length || bytes.readUInt32LE(p) !== CENTRAL_HEADER) throw damaged(`entry ${i + 1} of ${count} of its central directory is missing`);
    const flags = bytes.readUInt16LE(p + 8);
    const nameEnd = p + CENTRAL_HEADER_BYTES + bytes.readUInt16LE(p + 28);
    const next = nameEnd + bytes.readUInt16LE(p + 30) + bytes.readUInt16LE(p + 32);
    if (next > bytes.length) throw damaged(`entry ${i + 1} of ${count} of its central directory is cut off`);
    // A name without the UTF-8 flag is in code page 437 (APPNOTE appendix D); Latin-1 agrees with it on ASCII, which file names of feeds are.
    const name = bytes.subarray(p + CENTRAL_HEADER_BYTES, nameEnd).toString(flags & UTF8_NAME ? 'utf8' : 'latin1');
    const entry = {
      name, flags, method: bytes.readUInt16LE(p + 10), crc: bytes.readUInt32LE(p + 16),
      compressedSize: bytes.readUInt32LE(p + 20), size: bytes.readUInt32LE(p + 24), localOffset: bytes.readUInt32LE(p + 42),
    };
    if (entry.compressedSize === ZIP64_SIZE || entry.size === ZIP64_SIZE || entry.localOffset === ZIP64_SIZE) throw zip64();
    entries.push(entry);
    p = next;
  }
  return entries;
}

/** Names of files for a message: the first NAMED_FILES, then how many more. */
function listed(files: readonly Entry[]): string {
  if (files.length === 0) return 'no file';
  const named = files.slice(0, NAMED_FILES).map((f) => quoteMember(f.name)).join(', ');
  return files.length > NAMED_FILES ? `${named} and ${files.length - NAMED_FILES} more` : named;
}

function chooseMember(entries: readonly Entry[], wanted: string | undefined): Entry {
  // Folders are no members to read, nor the resource forks an archive made on a Mac carries beside its files.
  const files = entries.filter((e) => !e.name.endsWith('/') && !e.name.startsWith('__MACOSX/'));
  if (wanted !== undefined) {
    const found = entries.find((e) => e.name === wanted && !e.name.endsWith('/'));
    if (found === undefined) throw new CompressedBodyError(`the zip archive has no member ${quoteMember(wanted)} (zip.member); it holds ${listed(files)}`);
    return found;
  }
  if (files.length === 1) return files[0]!;
  if (files.length === 0) throw new CompressedBodyError('the zip archive holds no file');
  throw new CompressedBodyError(`the zip archive holds ${files.length} files (${listed(files)}): set zip.member to the one to read`);
}

function checkReadable(entry: Entry): void {
  const name = quoteMember(entry.name);
  if (entry.flags & (ENCRYPTED | STRONG_ENCRYPTION)) throw new CompressedBodyError(`the zip archive's member ${name} is encrypted, which is not read`);
  if (entry.method !== STORED && entry.method !== DEFLATED) {
    const method = METHOD_NAMES[entry.method];
    throw new CompressedBodyError(`the zip archive's member ${name} is compressed with method ${entry.method}${method ? ` (${method})` : ''}; only stored (0) and deflate (8) members are read`);
  }
  if (entry.method === STORED && entry.compressedSize !== entry.size) throw damaged(`member ${name} is stored, yet its sizes differ`);
}

/** Where the member's data starts: after its local header, whose name and extra field may differ in length from the directory's. */
async function dataStart(file: FileHandle, entry: Entry, directoryOffset: number): Promise<number> {
  const header = await readAt(file, entry.localOffset, LOCAL_HEADER_BYTES);
  if (header.length < LOCAL_HEADER_BYTES || header.readUInt32LE(0) !== LOCAL_HEADER) throw damaged(`member ${quoteMember(entry.name)} has no local header where the directory says`);
  const start = entry.localOffset + LOCAL_HEADER_BYTES + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (start + entry.compressedSize > directoryOffset) throw damaged(`member ${quoteMember(entry.name)} runs into the central directory`);
  return start;
}

async function* readMember(path: string, entry: Entry, start: number): AsyncGenerator<Buffer> {
  const input = entry.compressedSize === 0 ? Readable.from([]) : createReadStream(path, { start, end: start + entry.compressedSize - 1 });
  // pipeline: an error of either stream ends the other, and so does the consumer stopping.
  const bytes: AsyncIterable<Buffer> = entry.method === DEFLATED ? pipeline(input, createInflateRaw(), () => undefined) : input;
  let size = 0;
  let crc = 0;
  try {
    for await (const chunk of bytes) {
      size += chunk.length;
      crc = crc32(chunk, crc);
      yield chunk;
    }
  } catch (error) {
    const reason = zlibReason(error);
    throw reason === undefined ? error : damaged(`member ${quoteMember(entry.name)}: ${reason}`);
  }
  // Checked at the end, not as bytes pass: a member larger than it says is held to maxMegabytes by the reader.
  if (size !== entry.size) throw damaged(`member ${quoteMember(entry.name)} unpacks to ${size} bytes where the directory says ${entry.size}`);
  if (crc !== entry.crc) throw damaged(`member ${quoteMember(entry.name)} fails its CRC-32 check`);
}

/** The CRC-32 of zip (and gzip): polynomial 0xEDB88320, reflected (APPNOTE 4.4.7). zlib.crc32 is newer than the Node versions this runs on. */
const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});

function crc32(bytes: Uint8Array, previous: number): number {
  let c = ~previous;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
