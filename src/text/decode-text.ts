// Bytes or strings as they arrive, turned into text chunks for the line splitter and the JSON scanner.

/** Bytes (a `fetch` body, a file stream) decoded as UTF-8 here, or text already decoded. */
export type TextSource = AsyncIterable<Uint8Array | string>;

/** The source as text chunks: UTF-8 decoded across chunk boundaries, a leading byte order mark dropped, no empty chunk. */
export async function* decodeText(source: TextSource): AsyncGenerator<string> {
  // Not fatal: a stray invalid byte becomes U+FFFD in one value (rejected later) rather than failing the read.
  const decoder = new TextDecoder('utf-8');
  let first = true;
  for await (const chunk of source) {
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
