// Every source format, by name (docs/interface.md section 10, "Feed sources"): a format is one entry here and its own file.
import { csvFormat } from './csv-format.js';
import type { FormatEntry } from './format-entry.js';
import { hostsFormat } from './hosts-format.js';
import { jsonFormat } from './json-format.js';
import { lookupApiFormat } from './lookup-api-format.js';
import { mispFormat } from './misp-format.js';
import { stixFormat } from './stix-format.js';
import { taxiiFormat } from './taxii-format.js';
import { textFormat } from './text-format.js';

/** In the order docs/interface.md and messages list them: the one-body formats, then those walked page by page. */
export const FORMATS = {
  text: textFormat,
  csv: csvFormat,
  json: jsonFormat,
  stix: stixFormat,
  hosts: hostsFormat,
  taxii: taxiiFormat,
  'lookup-api': lookupApiFormat,
  misp: mispFormat,
} as const;

export type SourceFormat = keyof typeof FORMATS;
export const SOURCE_FORMATS = Object.keys(FORMATS) as SourceFormat[];

/** The entry of a format, typed loosely: its `open` is given a source that its schema has read. */
export function formatEntry(format: SourceFormat): FormatEntry {
  return FORMATS[format] as unknown as FormatEntry;
}
