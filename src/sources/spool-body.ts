// A feed body written to a temporary file as it arrives, with its SHA-256: a pull compares the hash
// with the previous pull's before reading anything, so an unchanged list costs a download and a
// hash, not a parse of every value (DESIGN 7: an identical body is a successful pull that sees the
// same values again).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import type { FeedBody } from './formats/feed-body.js';
import { makePullDir } from './pull-temp.js';

export interface SpooledBody {
  /** SHA-256 of the body's bytes, hex. */
  hash: string;
  /** The body again, read from the file. */
  open(): FeedBody;
  /** Deletes the file; safe to call more than once. */
  remove(): Promise<void>;
}

/**
 * Reads `body` to its end into a file of a new temporary directory. The body's own errors (a
 * timeout, the size limit) pass through, and the file is removed then. The file holds at most
 * `maxMegabytes`, which the body enforces while it streams.
 */
export async function spoolBody(body: FeedBody): Promise<SpooledBody> {
  const dir = await makePullDir();
  const path = join(dir, 'body');
  const remove = () => rm(dir, { recursive: true, force: true });
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  try {
    for await (const chunk of body) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      hash.update(bytes);
      if (!out.write(bytes)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    out.end();
    await finished(out);
  } catch (error) {
    out.destroy();
    await remove();
    throw error;
  }
  return { hash: hash.digest('hex'), open: () => createReadStream(path), remove };
}
