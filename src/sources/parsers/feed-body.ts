// A feed body as it arrives; the readers decode it with decodeText and cut it with splitLines (src/text).
import type { TextSource } from '../../text/decode-text.js';

/** Bytes from `fetch` or a file stream (decoded as UTF-8 by decodeText), or already-decoded text. */
export type FeedBody = TextSource;
