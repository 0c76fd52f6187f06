// Streams raw records out of an import file (NDJSON or one JSON document) in constant memory.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { ImportError } from '../errors.js';
import { decodeText } from '../text/decode-text.js';
import { splitLines } from '../text/line-splitter.js';
import { JsonDocumentScanner } from './json-document-scanner.js';
import { looksLikeNdjson } from './looks-like-ndjson.js';
import type { RecordKind } from './record-schemas.js';

export interface RawRecord {
  /** Where the record stands, for error messages: `line 12` or `indicators[41]`. */
  position: string;
  kind: RecordKind;
  raw: unknown;
}

const TAGS: Record<string, RecordKind> = { threat: 'threat', feed: 'feed', indicator: 'indicator', link: 'link' };

async function* readNdjson(path: string): AsyncGenerator<RawRecord[]> {
  // Read in 1 MiB chunks, a chunk's lines at a time and not a line at a time as readline gives
  // them: files of millions of lines spend their time here (bench:import).
  for await (const { first, lines } of splitLines(decodeText(createReadStream(path, { highWaterMark: 1 << 20 })))) {
    const records: RawRecord[] = [];
    for (let i = 0; i < lines.length; i++) {
      const position = `line ${first + i}`;
      const trimmed = lines[i]!.trim();
      if (trimmed === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch (error) {
        throw new ImportError(position, `not valid JSON (${(error as Error).message})`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new ImportError(position, 'each line must be a JSON object');
      }
      const { record, ...raw } = parsed as Record<string, unknown>;
      const kind = typeof record === 'string' ? TAGS[record] : undefined;
      if (kind === undefined) {
        throw new ImportError(position, '"record" must be one of "threat", "feed", "indicator", "link"');
      }
      records.push({ position, kind, raw });
    }
    if (records.length > 0) yield records;
  }
}

const SECTIONS: Record<string, RecordKind> = { threats: 'threat', feeds: 'feed', indicators: 'indicator', links: 'link' };

async function* readJsonDocument(path: string): AsyncGenerator<RawRecord[]> {
  const scanner = new JsonDocumentScanner(Object.keys(SECTIONS));
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 256 * 1024 })) {
    const records: RawRecord[] = [];
    for (const element of scanner.push(chunk as string)) {
      records.push({ position: `${element.section}[${element.index}]`, kind: SECTIONS[element.section]!, raw: element.value });
    }
    if (records.length > 0) yield records;
  }
  scanner.end();
}

/**
 * Yields every record of the file in file order, as many at a time as a chunk of the file holds;
 * throws ImportError naming the position of a bad one.
 */
export async function* readRecords(path: string): AsyncGenerator<RawRecord[]> {
  try {
    await open(path, 'r').then((handle) => handle.close());
  } catch (error) {
    throw new ImportError(path, `cannot open the file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  yield* (await looksLikeNdjson(path)) ? readNdjson(path) : readJsonDocument(path);
}
