// A feed body as it arrives, turned into text chunks or numbered lines for the readers.

/** Bytes from `fetch` or a file stream (decoded as UTF-8 here), or already-decoded text. */
export type FeedBody = AsyncIterable<Uint8Array | string>;

/** The body as text chunks: UTF-8 decoded across chunk boundaries, a leading byte order mark dropped. */
export async function* decodeBody(body: FeedBody): AsyncGenerator<string> {
  // Not fatal: a stray invalid byte becomes U+FFFD in one value (rejected later) rather than failing the pull.
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of body) {
    let text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (first && text !== '') {
      // TextDecoder already drops the BOM of bytes; text given as strings may still start with one.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text !== '') yield text;
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

/** The body's lines with the 1-based number of the first, a chunk's complete lines at a time; `\r\n` or `\n` ends a line. */
export async function* splitLines(body: FeedBody): AsyncGenerator<{ first: number; lines: string[] }> {
  // The unfinished line is kept in parts and joined once its end arrives, so a very long line costs linear time.
  let pending: string[] = [];
  let next = 1;
  for await (const text of decodeBody(body)) {
    const cut = text.lastIndexOf('\n');
    if (cut < 0) {
      pending.push(text);
      continue;
    }
    pending.push(text.slice(0, cut));
    const lines = pending.join('').split('\n').map(stripCr);
    pending = cut + 1 < text.length ? [text.slice(cut + 1)] : [];
    yield { first: next, lines };
    next += lines.length;
  }
  if (pending.length > 0) yield { first: next, lines: [stripCr(pending.join(''))] };
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
