// A pull's response body with its content codings undone as it arrives (RFC 9110 section 8.4): gzip, x-gzip, deflate and br, as fetch undid them; maxMegabytes then counts the decoded bytes (docs/sources.md, "How a pull fetches").
import { pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';

/** More codings than this on one body is no server of ours but a decompression bomb in layers; fetch refused it too. */
const MAX_CODINGS = 5;

/**
 * "deflate" is zlib data (RFC 9110 section 8.4.1.2), but some servers send raw deflate: the first
 * byte tells them apart (RFC 1950 section 2.2: compression method 8 in its low bits), as fetch did.
 */
class InflateEither extends Transform {
  #inner: Transform | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.#inner === undefined) {
      if (chunk.length === 0) return done();
      const inner = (this.#inner = (chunk[0]! & 0x0f) === 8 ? createInflate() : createInflateRaw());
      inner.on('data', (data: Buffer) => this.push(data));
      inner.on('error', (error) => this.destroy(error));
    }
    this.#inner.write(chunk, () => done());
  }

  override _flush(done: TransformCallback): void {
    if (this.#inner === undefined) return done();
    this.#inner.once('end', () => done());
    this.#inner.end();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.#inner?.destroy();
    done(error);
  }
}

const DECODERS: Record<string, () => Transform> = {
  gzip: () => createGunzip(),
  'x-gzip': () => createGunzip(),
  deflate: () => new InflateEither(),
  br: () => createBrotliDecompress(),
};

/**
 * `body` decoded by its `Content-Encoding`, last coding first (RFC 9110 section 8.4: codings are listed
 * in the order they were applied). A body in a coding not listed here is given as it is, with its
 * header, as fetch gave it. A body cut short inside its coding fails with zlib's error: its framing
 * may not tell (a close-delimited body ends wherever the connection does), its coding does. Throws
 * for more than MAX_CODINGS codings.
 */
export function decodedBody(body: Readable, contentEncoding: string | undefined): Readable {
  const codings = (contentEncoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > MAX_CODINGS) throw Object.assign(new Error(`more than ${MAX_CODINGS} content codings`), { code: 'ERR_TOO_MANY_CODINGS' });
  if (codings.length === 0 || !codings.every((coding) => Object.hasOwn(DECODERS, coding))) return body;
  const decoders = codings.reverse().map((coding) => DECODERS[coding]!());
  // The pipeline's errors reach whoever reads its last stream; the callback only keeps them from being thrown.
  return pipeline([body, ...decoders], () => undefined) as unknown as Readable;
}
