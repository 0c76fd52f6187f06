// The reader for a source's format: a feed body in, batches of raw entries out (DESIGN 7, Formats).
import type { SourceDefinition } from '../source-definition.js';
import type { FeedBody } from './feed-body.js';
import type { FeedBatch } from './feed-entry.js';
import { readCsv } from './read-csv.js';
import { readJson } from './read-json.js';
import { readText } from './read-text.js';

/** The formats whose body is a list of values read here; `stix`, `taxii`, `lookup-api` and `misp` have their own readers. */
export const LIST_FORMATS = ['text', 'csv', 'json'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

export function isListFormat(format: SourceDefinition['format']): format is ListFormat {
  return (LIST_FORMATS as readonly string[]).includes(format);
}

/**
 * The entries of a `text`, `csv` or `json` body, not yet normalized. Throws `FeedFormatError` while
 * iterating when the body cannot be used, and a plain error for a format that is not a list.
 */
export function readFeed(source: Pick<SourceDefinition, 'format' | 'csv' | 'json'>, body: FeedBody): AsyncIterable<FeedBatch> {
  switch (source.format) {
    case 'text':
      return readText(body);
    case 'csv':
      // parseSource requires csv.value for format csv; without it readCsv names the missing field.
      return readCsv(body, source.csv ?? { header: 'first-row', delimiter: ',' });
    case 'json':
      return readJson(body, source.json ?? {});
    default:
      throw new Error(`format ${source.format} is not a list format; it has its own reader`);
  }
}
