// What a csv row's cells mean (docs/sources.md, "Feed shapes"): the columns the source names, found in the header, and a row read through them as a feed entry.
import { CSV_COLUMNS, type CsvOptions } from '../formats/csv-options.js';
import { scoreReader, type ScoreRisk } from '../formats/risk-from.js';
import { addAttribute, attributeValues, splitPort } from './entry-attributes.js';
import { FeedFormatError, type FeedEntry } from './feed-entry.js';

type Column = (typeof CSV_COLUMNS)[number];

/** Where each named column is in a row, with what reads it. */
export interface CsvColumns {
  value: number;
  /** The other named columns, each a text cell copied as it is (trimmed). */
  text: [Exclude<Column, 'value'>, number][];
  score?: { index: number; risk: (cell: unknown) => ScoreRisk | undefined };
  attributes: { name: string; index: number; split?: string }[];
}

/**
 * The row the other `csv.header` mode would read the names from: the first row for `"first-row"`,
 * the last `#` line before the data for `"comment"`. It is read only to word a failure, so that a
 * source set to the wrong mode is told the one to set (docs/sources.md, "Feed shapes").
 */
export interface OtherHeader {
  mode: 'first-row' | 'comment';
  names: readonly string[];
  line: number;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** `; line 9, the first row, holds "dst_ip": ...` when `other` has the column, else nothing. */
export function otherHeaderHint(other: OtherHeader | undefined, name: string): string {
  if (other === undefined || !other.names.some((n) => sameName(n, name))) return '';
  const where = other.mode === 'first-row' ? 'the first row, holds' : 'the last "#" line before the data, names';
  return `; line ${other.line}, ${where} "${name.trim()}": if it names the columns, set csv.header to "${other.mode}"`;
}

/**
 * The columns the options name, found in `header` (trimmed, without regard to case: feeds change
 * `dst_ip` to `DST_IP` more often than they mean a different column). A column the header lacks
 * fails the pull, naming the option and the header's columns (or saying it names none), and the
 * header mode to set when `other` has the column: the feed has changed its layout, or the source
 * reads the wrong line, and reading on would silently drop values, threats or attributes.
 */
export function csvColumns(header: readonly string[], options: CsvOptions, position: string, other?: OtherHeader): CsvColumns {
  const names = header.map((name) => name.trim().toLowerCase());
  const found = names.some((name) => name !== '') ? `; its columns are ${header.map((n) => `"${n.trim()}"`).join(', ')}` : ': no column names were found in it';
  const find = (name: string, option: string): number => {
    const index = names.indexOf(name.trim().toLowerCase());
    if (index < 0) throw new FeedFormatError(position, `the header has no column "${name}" (${option})${found}${otherHeaderHint(other, name)}`);
    return index;
  };
  const columns: CsvColumns = { value: find(options.value, 'csv.value'), text: [], attributes: [] };
  for (const column of CSV_COLUMNS) {
    const name = options[column];
    if (column !== 'value' && name !== undefined) columns.text.push([column, find(name, `csv.${column}`)]);
  }
  if (options.riskFrom !== undefined) columns.score = { index: find(options.riskFrom.column, 'csv.riskFrom.column'), risk: scoreReader(options.riskFrom.map) };
  for (const [name, { from, split }] of Object.entries(options.attributes ?? {})) {
    columns.attributes.push({ name, index: find(from, `csv.attributes.${name}`), ...(split === undefined ? {} : { split }) });
  }
  return columns;
}

/**
 * The entry of a row, or undefined when its value cell is empty or missing (skipped and counted).
 * Other empty cells are left out; a score below every threshold gives no risk (the source's
 * applies); an `ADDRESS:PORT` value gives its address and the `port` attribute (entry-attributes.ts).
 */
export function csvEntry(fields: readonly string[], line: number, columns: CsvColumns): FeedEntry | undefined {
  const value = fields[columns.value]?.trim() ?? '';
  if (value === '') return undefined;
  const entry: FeedEntry = { value, position: `line ${line}` };
  splitPort(entry);
  for (const [column, index] of columns.text) {
    const cell = fields[index]?.trim() ?? '';
    if (cell !== '') entry[column] = cell;
  }
  if (columns.score !== undefined) {
    const risk = columns.score.risk(fields[columns.score.index]);
    if (risk !== undefined) entry.risk = risk;
  }
  for (const { name, index, split } of columns.attributes) addAttribute(entry, name, attributeValues(fields[index], split));
  return entry;
}
