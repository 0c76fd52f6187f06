// Compressed feed bodies (docs/sources.md, "Compressed bodies"): a gzip body, or one member of a zip archive, unpacked from the spooled download into a spool of its own, held to maxMegabytes of unpacked bytes.
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { CommonSource } from '../formats/source-fields.js';
import { CompressedBodyError, zlibReason } from './compressed-body-error.js';
import { bodyLimit, bodyTooLarge, type FetchOptions } from './fetch-source.js';
import { spoolBody, type SpooledBody } from './spool-body.js';
import { openZipMember } from './zip-member.js';

export type Compression = 'gzip' | 'zip';

/** RFC 1952 section 2.3.1: every gzip member starts with ID1 ID2. */
const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);
/** A zip archive starts with a local file header, or, when it holds nothing, with its end record (APPNOTE 4.3.7, 4.3.16). */
const ZIP_MAGICS = [Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('PK\x05\x06', 'latin1')];
const GZIP_TYPES = new Set(['application/gzip', 'application/x-gzip']);
const ZIP_TYPES = new Set(['application/zip', 'application/x-zip-compressed', 'application/x-zip']);
/** Content codings fetch has already undone (content-coding.ts, as the body arrives) by the time the body is spooled. */
const UNDONE_CODINGS = new Set(['gzip', 'x-gzip']);

/** What the body's first bytes say it is. They decide, whatever the labels say: a label can be wrong, the bytes cannot. */
export function compressionOf(head: Buffer): Compression | undefined {
  if (head.subarray(0, 2).equals(GZIP_MAGIC)) return 'gzip';
  if (ZIP_MAGICS.some((magic) => head.subarray(0, 4).equals(magic))) return 'zip';
  return undefined;
}

/** What the labels of the body say it is, and which label: its Content-Type, else its URL's path. */
export function labelledCompression(url: string, headers: Headers): { compression: Compression; label: string } | undefined {
  const type = (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (GZIP_TYPES.has(type)) return { compression: 'gzip', label: `its Content-Type (${type})` };
  if (ZIP_TYPES.has(type)) return { compression: 'zip', label: `its Content-Type (${type})` };
  const path = URL.canParse(url) ? new URL(url).pathname.toLowerCase() : '';
  if (path.endsWith('.gz')) return { compression: 'gzip', label: 'its path (.gz)' };
  if (path.endsWith('.zip')) return { compression: 'zip', label: 'its path (.zip)' };
  return undefined;
}

/** A spooled body as its parser reads it. */
export interface UnpackedBody {
  body: SpooledBody;
  /**
   * The labels said compressed and the bytes are not, for the pull's log. The body is read as what
   * its bytes are: a publisher's wrong label must not leave a feed no source option can fix, and a
   * body that is no list after all (an error page, noise) meets the sanity gate as any other does.
   */
  mislabelled?: string;
}

/**
 * The body as its parser reads it: `raw` itself when it is not compressed; else the gzip body or the
 * zip member (`source.zip.member`, or the only file) unpacked into a new spool, and `raw` removed.
 * The unpacked bytes are held to `maxMegabytes` as they come, with the error of any oversized body,
 * and a zip member that says it is larger fails before a byte is unpacked. Nothing is left on a failure.
 */
export async function unpackBody(raw: SpooledBody, source: CommonSource, headers: Headers, options: Pick<FetchOptions, 'displayUrl'>): Promise<UnpackedBody> {
  const compression = compressionOf(raw.head);
  if (compression === undefined) return { body: raw, ...mislabelling(source.url, headers) };
  try {
    const limit = bodyLimit(source);
    const tooLarge = () => bodyTooLarge(source, options);
    const bytes = compression === 'gzip' ? gunzipped(raw.path) : await zipMember(raw.path, source.zip?.member, limit, tooLarge);
    return { body: await spoolBody(limited(bytes, limit, tooLarge)) };
  } finally {
    await raw.remove();
  }
}

function mislabelling(url: string, headers: Headers): { mislabelled?: string } {
  const labelled = labelledCompression(url, headers);
  if (labelled === undefined) return {};
  // A server may send a .gz file with Content-Encoding gzip (Apache's AddEncoding does): fetchSource has unpacked it already.
  const coding = (headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (labelled.compression === 'gzip' && UNDONE_CODINGS.has(coding)) return {};
  return { mislabelled: `the body is labelled ${labelled.compression} by ${labelled.label}, but its bytes are not ${labelled.compression} data: read as they are` };
}

async function* gunzipped(path: string): AsyncGenerator<Buffer> {
  // A body of several gzip members one after another (RFC 1952 section 2.2) is one body: zlib reads on past each member's end.
  const bytes: AsyncIterable<Buffer> = pipeline(createReadStream(path), createGunzip(), () => undefined);
  try {
    yield* bytes;
  } catch (error) {
    const reason = zlibReason(error);
    throw reason === undefined ? error : new CompressedBodyError(`the gzip body is damaged: ${reason}`);
  }
}

async function zipMember(path: string, wanted: string | undefined, limit: number, tooLarge: () => Error): Promise<AsyncIterable<Buffer>> {
  const member = await openZipMember(path, wanted);
  if (member.size > limit) throw tooLarge();
  return member.read();
}

async function* limited(chunks: AsyncIterable<Buffer>, limit: number, tooLarge: () => Error): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.length;
    if (total > limit) throw tooLarge();
    yield chunk;
  }
}
