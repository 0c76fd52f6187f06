// Streams raw records out of an import file (NDJSON or one JSON document) in constant memory.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { ImportError } from '../errors.js';
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

/**
 * The lines of a file, split on LF, CRLF or a lone CR as readline does, read in 1 MiB chunks and
 * given a chunk's lines at a time: split by hand rather than by readline, and awaited once per chunk
 * rather than once per line, because files of millions of lines spend their time here (bench:import).
 */
async function* readLines(path: string): AsyncGenerator<string[]> {
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = rest + (chunk as string);
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      start = end + 1;
      if (line.includes('\r')) lines.push(...line.replace(/\r$/, '').split('\r'));
      else lines.push(line);
    }
    rest = text.slice(start);
    if (lines.length > 0) yield lines;
  }
  if (rest !== '') yield rest.replace(/\r$/, '').split('\r');
}

async function* readNdjson(path: string): AsyncGenerator<RawRecord[]> {
  let lineNumber = 0;
  for await (const lines of readLines(path)) {
    const records: RawRecord[] = [];
    for (const line of lines) {
      lineNumber += 1;
      const position = `line ${lineNumber}`;
      const trimmed = lineNumber === 1 ? line.replace(/^\uFEFF/, '').trim() : line.trim();
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
