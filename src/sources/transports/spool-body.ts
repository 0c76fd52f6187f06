// A feed body written to a temporary file as it arrives, with its SHA-256: a pull compares the hash
// with the previous pull's before reading anything, so an unchanged list costs a download and a
// hash, not a parse of every value (an identical body is a successful pull that sees the same values
// again: docs/interface.md section 10, "Pulls").
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FeedBody } from '../parsers/feed-body.js';
import { makePullDir } from '../pull-temp.js';

/** Bytes of the body's start kept for a sniff: enough for a BOM, blank lines and a doctype. */
const HEAD_BYTES = 1024;

export interface SpooledBody {
  /** SHA-256 of the body's bytes, hex. */
  hash: string;
  /** The body's size in bytes, and its first HEAD_BYTES (a sanity check's sniff). */
  bytes: number;
  head: Buffer;
  /** The file itself, for a reader that needs to seek (a zip archive's central directory sits at its end). */
  path: string;
  /** The body again, read from the file. */
  open(): FeedBody;
  /** Deletes the file; safe to call more than once. */
  remove(): Promise<void>;
}

/**
 * Reads `body` to its end into a file of a new temporary directory. The body's own errors (a
 * timeout, the size limit, a connection cut) pass through, and the file is removed then. The file
 * holds at most `maxMegabytes`, which the body enforces while it streams.
 */
export async function spoolBody(body: FeedBody): Promise<SpooledBody> {
  const dir = await makePullDir();
  const path = join(dir, 'body');
  const remove = () => rm(dir, { recursive: true, force: true });
  const hash = createHash('sha256');
  let bytes = 0;
  const heads: Buffer[] = [];
  async function* measured(parts: FeedBody): AsyncGenerator<Uint8Array> {
    for await (const part of parts) {
      const chunk = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      hash.update(chunk);
      if (bytes < HEAD_BYTES) heads.push(Buffer.from(chunk.subarray(0, HEAD_BYTES - bytes)));
      bytes += chunk.byteLength;
      yield chunk;
    }
  }
  try {
    // A pipeline, not writes by hand: a body that fails while a write is in flight has the file
    // stream destroyed under that write, which Node reports as an 'error' (ERR_STREAM_DESTROYED) that
    // must have a listener, or it is thrown at the process. The body's error is the one thrown.
    await pipeline(body, measured, createWriteStream(path));
  } catch (error) {
    await remove();
    throw error;
  }
  return { hash: hash.digest('hex'), bytes, head: Buffer.concat(heads), path, open: () => createReadStream(path), remove };
}
