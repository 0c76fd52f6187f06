// Streams raw records out of an import file (NDJSON or one JSON document) in constant memory.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { ImportError } from '../errors.js';
import { decodeText } from '../text/decode-text.js';
import { JsonMemberScanner, type ElementPlace, type JsonProblem, type MemberRead, type MemberReader } from '../text/json-member-scanner.js';
import { splitLines } from '../text/line-splitter.js';
import { looksLikeNdjson } from './looks-like-ndjson.js';
import type { RecordKind } from './record-schemas.js';

export interface RawRecord {
  /** Where the record stands, for error messages: `line 12` or `indicators[41]`. */
  position: string;
  kind: RecordKind;
  raw: unknown;
}

/**
 * The file as UTF-8 text chunks, decoded by the stream (its decoder is cheaper than TextDecoder on
 * a file of hundreds of MB, bench:import); decodeText then drops a byte order mark as for a feed body.
 */
function readText(path: string, chunkSize: number): AsyncIterable<string> {
  return createReadStream(path, { encoding: 'utf8', highWaterMark: chunkSize });
}

const TAGS: Record<string, RecordKind> = { threat: 'threat', feed: 'feed', indicator: 'indicator', link: 'link' };

async function* readNdjson(path: string): AsyncGenerator<RawRecord[]> {
  // Read in 1 MiB chunks, a chunk's lines at a time and not a line at a time as readline gives
  // them: files of millions of lines spend their time here (bench:import).
  for await (const { first, lines } of splitLines(decodeText(readText(path, 1 << 20)))) {
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

/** What a problem with the document's text says (ImportError's reason). */
function reason(problem: JsonProblem): string {
  switch (problem.code) {
    case 'not-object':
      return 'the document must be a JSON object with "threats", "feeds", "indicators" and "links" arrays';
    case 'expected-name':
      return 'expected a section name';
    case 'bad-name':
      return 'a section name is not a valid JSON string';
    case 'expected-colon':
      return 'expected ":" after a section name';
    case 'not-array':
      return `"${problem.name}" must be an array`;
    case 'empty-element':
      return 'empty element (stray comma?)';
    case 'expected-element-end':
      return 'expected "," or "]" after an element';
    case 'expected-member-end':
      return 'expected "," or "}" after a section';
    case 'trailing-text':
      return 'unexpected text after the end of the document';
    case 'empty':
    case 'truncated':
      return 'the document ends early (truncated file?)';
    case 'invalid-json':
      return `not valid JSON (${problem.reason})`;
  }
}

/** The document's sections, each an array of records of one kind, each at most once. */
class DocumentSections implements MemberReader<RawRecord> {
  private readonly seen = new Set<string>();

  readAs(name: string): MemberRead {
    if (!Object.hasOwn(SECTIONS, name)) throw new ImportError('document', `unknown section "${name}"; expected one of ${Object.keys(SECTIONS).join(', ')}`);
    if (this.seen.has(name)) throw new ImportError('document', `section "${name}" appears twice`);
    this.seen.add(name);
    return 'elements';
  }

  element(section: string, index: number, raw: unknown): RawRecord {
    return { position: `${section}[${index}]`, kind: SECTIONS[section]!, raw };
  }

  fail(problem: JsonProblem, place: ElementPlace | undefined): never {
    throw new ImportError(place === undefined ? 'document' : `${place.member}[${place.index}]`, reason(problem));
  }
}

async function* readJsonDocument(path: string): AsyncGenerator<RawRecord[]> {
  const scanner = new JsonMemberScanner(new DocumentSections());
  for await (const chunk of decodeText(readText(path, 256 * 1024))) {
    const records = scanner.push(chunk);
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
