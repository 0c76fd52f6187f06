// The `text` format: one value a line, as Spamhaus DROP, blocklist.de and OpenPhish publish.
import { decodeText } from '../../text/decode-text.js';
import { splitLines } from '../../text/line-splitter.js';
import type { FeedBody } from './feed-body.js';
import type { FeedBatch, FeedEntry } from './feed-entry.js';

/** A whole-line comment starts with one of these (`;` Spamhaus, `#` most lists, `//` a few). */
const COMMENT_LINE = /^(?:#|;|\/\/)/;
/** The value ends at the first blank, `;` or `#`: the rest (`; SBL000001`) is a comment. */
const VALUE = /^[^\s;#]+/;

/**
 * Every value of a text body. A `#` ends the value even inside a URL (docs/sources.md, "Values"): feeds in
 * this format publish URLs without fragments, and a fragment never changes what a URL serves.
 * Comment and blank lines are not rows, so a text body never counts a row as skipped.
 */
export async function* readText(body: FeedBody): AsyncGenerator<FeedBatch> {
  for await (const { first, lines } of splitLines(decodeText(body))) {
    const entries: FeedEntry[] = [];
    lines.forEach((line, i) => {
      const trimmed = line.trim();
      if (trimmed === '' || COMMENT_LINE.test(trimmed)) return;
      const value = VALUE.exec(trimmed)?.[0];
      if (value !== undefined) entries.push({ value, position: `line ${first + i}` });
    });
    yield { entries, skipped: 0 };
  }
}
