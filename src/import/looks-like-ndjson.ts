// Tells an NDJSON import file from a JSON document by its first line, read as a stream.
import { createReadStream } from 'node:fs';

/** The document's sections: a top-level key of one of these names is a document, never a record. */
const SECTION_KEYS: ReadonlySet<string> = new Set(['threats', 'feeds', 'indicators', 'links']);

/** Longer keys, even written with \u escapes, are neither `record` nor a section: only this much is kept. */
const KEY_PREFIX = 64;

/**
 * NDJSON when the first non-blank line is a JSON object with a top-level `record` key; a JSON
 * document otherwise. The first line may be any length (a threat with a long description), and a
 * minified document is one line as long as the file: so the line is not collected but scanned a
 * chunk at a time, tracking only nesting, strings and the top-level key being read, and the scan
 * stops at the first answer. The first non-blank character not being `{` answers at once; a
 * top-level key `record` answers NDJSON, and a section name, the line ending or the first object
 * closing answer a document. A `record` line that is not valid JSON is thus read as NDJSON, and
 * fails with its line number rather than as a document.
 */
export async function looksLikeNdjson(path: string): Promise<boolean> {
  const scan = new FirstLineScan();
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 })) {
    const answer = scan.push(chunk as string);
    if (answer !== undefined) return answer;
  }
  return false;
}

class FirstLineScan {
  private started = false;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** At depth 1, the next string is a key (after `{` or `,`), not a value (after `:`). */
  private expectingKey = false;
  /** The top-level key being read, or undefined when the string being read is not one. */
  private key: string | undefined;

  /** The answer once this chunk decides it, else undefined. */
  push(chunk: string): boolean | undefined {
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      if (!this.started) {
        if (ch === '\uFEFF' || ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r') continue;
        if (ch !== '{') return false;
        this.started = true;
        this.depth = 1;
        this.expectingKey = true;
        continue;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          const answer = this.keyRead();
          if (answer !== undefined) return answer;
          continue;
        } else if (ch === '\n' || ch === '\r') return false;
        if (this.key !== undefined && this.key.length < KEY_PREFIX) this.key += ch;
        continue;
      }
      switch (ch) {
        case '\n':
        case '\r':
          return false;
        case '"':
          this.inString = true;
          this.key = this.depth === 1 && this.expectingKey ? '' : undefined;
          this.expectingKey = false;
          break;
        case '{':
        case '[':
          this.depth++;
          break;
        case '}':
        case ']':
          if (--this.depth === 0) return false;
          break;
        case ',':
          if (this.depth === 1) this.expectingKey = true;
          break;
      }
    }
    return undefined;
  }

  /** A string just ended: when it was a top-level key, whether it decides. */
  private keyRead(): boolean | undefined {
    const raw = this.key;
    this.key = undefined;
    if (raw === undefined) return undefined;
    let key = raw;
    // An escaped key (`"rec\u006frd"`) is the name JSON.parse gives it, as it would be for NDJSON.
    if (raw.includes('\\')) {
      try {
        key = JSON.parse(`"${raw}"`) as string;
      } catch {
        return undefined;
      }
    }
    if (key === 'record') return true;
    return SECTION_KEYS.has(key) ? false : undefined;
  }
}
