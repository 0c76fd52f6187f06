// The `json` format: an array of objects, an array wrapped in a document, an object of arrays (ThreatFox), or NDJSON.
import type { JsonOptions } from '../formats/json-options.js';
import { scoreReader, type ScoreRisk } from '../formats/risk-from.js';
import { decodeText } from '../../text/decode-text.js';
import { splitLines } from '../../text/line-splitter.js';
import { addAttribute, attributeValues, splitPort } from './entry-attributes.js';
import type { FeedBody } from './feed-body.js';
import { FeedFormatError, type FeedBatch, type FeedEntry } from './feed-entry.js';
import { valueAtPath } from './json-document.js';
import { JsonItemsScanner, type JsonItem } from './json-items-scanner.js';

export type { JsonOptions } from '../formats/json-options.js';

const FIELDS = ['type', 'threat', 'risk', 'lastSeen'] as const;

/** The options as each item is read, with the score reader made once per body. */
interface ItemReader {
  options: JsonOptions;
  score: ((cell: unknown) => ScoreRisk | undefined) | undefined;
}

/**
 * Every object of a json body. With `items`, or when the body starts with `[`, the body is one
 * document whose items json-items-scanner.ts finds (`items: "*"`: the records of every top-level
 * value, as ThreatFox's export keys them by id, each given its key as the field `key` names);
 * otherwise it is NDJSON, one object a line (blank lines ignored).
 *
 * Both are read as they arrive, a batch per chunk of the body: a document is cut into its items
 * and each parsed alone (docs/sources.md, "Feed shapes"), so memory holds a chunk's items, never
 * the document (ThreatFox's full export is over 100 MB). A document found malformed part way
 * fails the read after the batches before it, which a pull then drops.
 *
 * Values and other fields are read at dotted paths (`ioc`, `malware.name`, `tags.0`); a string is
 * trimmed, a finite number becomes its decimal text (an AS number, a port-less id); booleans, null,
 * objects and arrays are not values. An item without a usable value (a trailing metadata object,
 * as `drop_v4.json` ends with) is skipped and counted; other fields without one are left out. An
 * `ADDRESS:PORT` value gives its address and the `port` attribute (entry-attributes.ts), `riskFrom`
 * reads a score as a risk (risk-from.ts), and `attributes` give each named field's values.
 */
export async function* readJson(body: FeedBody, options: JsonOptions): AsyncGenerator<FeedBatch> {
  const reader: ItemReader = { options, score: options.riskFrom === undefined ? undefined : scoreReader(options.riskFrom.map) };
  const chunks = decodeText(body)[Symbol.asyncIterator]();
  const head = await firstNonBlank(chunks);
  if (head === undefined) return;
  const rest: AsyncIterable<string> = { [Symbol.asyncIterator]: () => prepend(head.text, chunks) };

  if (options.items !== undefined || head.char === '[') {
    const scanner = new JsonItemsScanner(options);
    for await (const chunk of rest) {
      const items = scanner.push(chunk);
      if (items.length > 0) yield itemsBatch(items, reader);
    }
    const last = scanner.end();
    if (last.length > 0) yield itemsBatch(last, reader);
    return;
  }

  for await (const { first, lines } of splitLines(rest)) {
    const batch: FeedBatch = { entries: [], skipped: 0 };
    lines.forEach((line, i) => {
      if (line.trim() === '') return;
      const position = `line ${first + i}`;
      add(batch, toEntry(parseLine(line, position), reader, position));
    });
    yield batch;
  }
}

function itemsBatch(items: readonly JsonItem[], reader: ItemReader): FeedBatch {
  const batch: FeedBatch = { entries: [], skipped: 0 };
  for (const { record, position } of items) add(batch, toEntry(record, reader, position));
  return batch;
}

function toEntry(item: unknown, { options, score }: ItemReader, position: string): FeedEntry | undefined {
  const value = textAt(item, options.value);
  if (value === undefined) return undefined;
  const entry: FeedEntry = { value, position };
  splitPort(entry);
  for (const field of FIELDS) {
    const path = options[field];
    const text = path === undefined ? undefined : textAt(item, path);
    if (text !== undefined) entry[field] = text;
  }
  if (score !== undefined && options.riskFrom !== undefined) {
    const risk = score(valueAtPath(item, options.riskFrom.field));
    if (risk !== undefined) entry.risk = risk;
  }
  for (const [name, { from, split }] of Object.entries(options.attributes ?? {})) addAttribute(entry, name, attributeValues(valueAtPath(item, from), split));
  return entry;
}

function add(batch: FeedBatch, entry: FeedEntry | undefined): void {
  if (entry) batch.entries.push(entry);
  else batch.skipped++;
}

function parseLine(line: string, position: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    // A line cut short is a body cut short; a document that wraps its array needs json.items.
    const hint = line.trimStart().startsWith('{') && !line.trimEnd().endsWith('}') ? ' (set json.items if the body is one document wrapping an array)' : '';
    throw new FeedFormatError(position, `not valid JSON: ${(error as Error).message}${hint}`);
  }
}

function textAt(item: unknown, path: string): string | undefined {
  const value = valueAtPath(item, path);
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' && Number.isFinite(value) ? String(value) : '';
  return text === '' ? undefined : text;
}

async function firstNonBlank(chunks: AsyncIterator<string>): Promise<{ char: string; text: string } | undefined> {
  let skipped = '';
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    const text = skipped + next.value;
    const char = /\S/.exec(text)?.[0];
    if (char !== undefined) return { char, text };
    skipped = text;
  }
  return undefined;
}

async function* prepend(head: string, chunks: AsyncIterator<string>): AsyncGenerator<string> {
  yield head;
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
}
