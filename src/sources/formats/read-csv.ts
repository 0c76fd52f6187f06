// The `csv` format (DESIGN 7): named columns give each row's value, type, threat, risk and last-seen time.
import type { SourceDefinition } from '../source-definition.js';
import { SourceDefinitionError } from '../source-definition.js';
import { CsvRecords, type CsvRow } from './csv-records.js';
import { decodeBody, type FeedBody } from './feed-body.js';
import { FeedFormatError, type FeedBatch, type FeedEntry } from './feed-entry.js';

export type CsvOptions = NonNullable<SourceDefinition['csv']>;

const COLUMNS = ['value', 'type', 'threat', 'risk', 'lastSeen'] as const;
type Column = (typeof COLUMNS)[number];
type ColumnIndexes = { value: number } & Partial<Record<Exclude<Column, 'value'>, number>>;

/**
 * Every row of a csv body. `#` lines are comments in every header mode (abuse.ch also ends its
 * files with `# END`); with `header: "comment"` the last one before the first record names the
 * columns, with `"first-row"` the first record does. Column names are trimmed and matched without
 * regard to case: feeds change `dst_ip` to `DST_IP` more often than they mean a different column.
 * A column the options name but the header lacks fails the pull: the feed has changed its layout,
 * and reading on would silently drop threats or values. A row whose value cell is empty or missing
 * is skipped and counted; other empty cells are left out of the entry.
 */
export async function* readCsv(body: FeedBody, options: CsvOptions): AsyncGenerator<FeedBatch> {
  if (options.value === undefined) throw new SourceDefinitionError('source.csv.value', 'required for format csv');
  const records = new CsvRecords(options.delimiter, true);
  let lastComment: CsvRow | undefined;
  let columns: ColumnIndexes | undefined;
  if (Array.isArray(options.header)) columns = columnIndexes(options.header, options, 'csv.header');

  const read = (rows: CsvRow[]): FeedBatch => {
    const batch: FeedBatch = { entries: [], skipped: 0 };
    for (const row of rows) {
      if (row.kind === 'comment') {
        lastComment = row;
        continue;
      }
      if (columns === undefined) {
        if (options.header === 'first-row') {
          columns = columnIndexes(row.fields, options, `line ${row.line}`);
          continue;
        }
        columns = columnIndexes(commentHeader(lastComment, row, options.delimiter), options, `line ${lastComment!.line}`);
      }
      const entry = toEntry(row, columns);
      if (entry) batch.entries.push(entry);
      else batch.skipped++;
    }
    return batch;
  };

  for await (const text of decodeBody(body)) yield read(records.push(text));
  yield read(records.end());
}

/** The column names of abuse.ch's header comment, `# first_seen_utc,dst_ip,...`, parsed as a csv record. */
function commentHeader(comment: CsvRow | undefined, firstRecord: CsvRow, delimiter: string): string[] {
  if (comment?.kind !== 'comment') {
    throw new FeedFormatError(`line ${firstRecord.line}`, 'no "#" comment line before the data names the columns (csv.header is "comment")');
  }
  // Trimmed first: `# "first_seen_utc","dst_ip"` quotes its names after the blank that follows the `#`.
  const parser = new CsvRecords(delimiter, false);
  const [record] = [...parser.push(comment.text.trim()), ...parser.end()];
  return record?.kind === 'record' ? record.fields : [];
}

function columnIndexes(header: readonly string[], options: CsvOptions, position: string): ColumnIndexes {
  const names = header.map((name) => name.trim().toLowerCase());
  const indexOf = (column: Column): number | undefined => {
    const name = options[column];
    if (name === undefined) return undefined;
    const index = names.indexOf(name.trim().toLowerCase());
    if (index < 0) {
      throw new FeedFormatError(position, `the header has no column "${name}" (csv.${column}); its columns are ${header.map((n) => `"${n.trim()}"`).join(', ')}`);
    }
    return index;
  };
  const indexes: ColumnIndexes = { value: indexOf('value')! };
  for (const column of COLUMNS) {
    if (column === 'value') continue;
    const index = indexOf(column);
    if (index !== undefined) indexes[column] = index;
  }
  return indexes;
}

function toEntry(row: Extract<CsvRow, { kind: 'record' }>, columns: ColumnIndexes): FeedEntry | undefined {
  const value = row.fields[columns.value]?.trim() ?? '';
  if (value === '') return undefined;
  const entry: FeedEntry = { value, position: `line ${row.line}` };
  for (const column of COLUMNS) {
    if (column === 'value') continue;
    const index = columns[column];
    const cell = index === undefined ? '' : (row.fields[index]?.trim() ?? '');
    if (cell !== '') entry[column] = cell;
  }
  return entry;
}
