// The `csv` format: csv-parse reads the records; named columns give each row's value, type, threat, risk, last-seen time and attributes (csv-columns.ts).
//
// How the work is split between csv-parse and this file:
// - csv-parse does RFC 4180, streaming: quoted fields may hold the delimiter, line breaks and doubled
//   quotes, and chunks may be cut anywhere (inside a quoted field, between the CR and LF of a break).
//   Records end at CRLF, LF or a lone CR, all three: left to itself csv-parse settles on the break of
//   the first line and would then read a stray LF in a CRLF file as data.
// - `trim`: blanks around a field are not data, so ThreatFox's `"a", "b"` is a and b; a quoted field
//   keeps the blanks inside its quotes. `relax_quotes`: a quote inside an unquoted field is text
//   (`ab"c`). Text after a closing quote (`"ab"c`) is refused: the quoting is broken, and reading on
//   could run rows together. `relax_column_count`: a short row is fine, its missing cells are empty.
// - `#` comments count only as whole lines (`comment_no_infix`): a `#` later in a line (a URL's
//   fragment) or inside quotes is data. csv-parse drops a comment's text, and `header: "comment"`
//   needs it, so the lines before the first data row are read here: at the start of the body no
//   field is open, so each line there is blank, a comment or the first row, with no quoting to
//   track. The last of those comments is then parsed as one record by csv-parse's sync API. From the
//   first row on csv-parse reads everything, dropping later comments such as abuse.ch's `# END`.
// - Line numbers are counted here (csv-parse's `info.lines` counts a CRLF inside quotes twice): a
//   record starts after the previous one and the blank and comment lines csv-parse skipped since,
//   and spans the line breaks inside its quoted fields.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse, type Options } from 'csv-parse';
import { parse as parseRecords } from 'csv-parse/sync';
import type { CsvOptions } from '../formats/csv-options.js';
import { decodeText } from '../../text/decode-text.js';
import type { FeedBody } from './feed-body.js';
import { csvColumns, csvEntry, otherHeaderHint, type CsvColumns, type OtherHeader } from './csv-columns.js';
import { FeedFormatError, type FeedBatch } from './feed-entry.js';

export type { CsvOptions } from '../formats/csv-options.js';

/** Rows per batch: a batch holds this many entries at most, whatever the size of the body. */
const BATCH_ROWS = 1000;

/** The options both csv-parse calls share; the header line has no line break, so the break list does not matter there. */
const FIELD_OPTIONS = { trim: true, relax_quotes: true, relax_column_count: true, record_delimiter: ['\r\n', '\n', '\r'] } satisfies Options;

interface Row {
  fields: string[];
  line: number;
}

/**
 * Every row of a csv body. `#` lines are comments in every header mode (abuse.ch also ends its
 * files with `# END`); with `header: "comment"` the last one before the first row names the
 * columns, with `"first-row"` the first row does. Column names are trimmed and matched without
 * regard to case: feeds change `dst_ip` to `DST_IP` more often than they mean a different column.
 * A column the options name but the header lacks fails the pull: the feed has changed its layout,
 * and reading on would silently drop threats or values. A row whose value cell is empty or missing
 * is skipped and counted; other empty cells are left out of the entry (csv-columns.ts reads a row).
 */
export async function* readCsv(body: FeedBody, options: CsvOptions): AsyncGenerator<FeedBatch> {
  let columns = Array.isArray(options.header) ? csvColumns(options.header, options, 'csv.header') : undefined;

  const text = decodeText(body)[Symbol.asyncIterator]();
  let start: Preamble;
  /** With `header: "comment"`, the names of the last `#` line (undefined: there is none); read as the first row is. */
  let commentNames: string[] | undefined;
  try {
    start = await readPreamble(text);
    if (start.data !== undefined && options.header === 'comment' && start.lastComment !== undefined) {
      commentNames = commentHeader(start.lastComment, options.delimiter);
    }
  } catch (error) {
    await text.return?.(undefined);
    throw error;
  }
  if (start.data === undefined) return; // nothing but comments and blank lines

  const lines = new RecordLines(start.dataLine);
  const parserOptions: Options<Row, string[]> = {
    ...FIELD_OPTIONS,
    delimiter: options.delimiter,
    comment: '#',
    comment_no_infix: true,
    skip_empty_lines: true,
    on_record: (fields, info) => ({ fields, line: lines.record(fields, info) }),
  };
  // on_record may return any value, but csv-parse's typings accept that only together with `columns`.
  const parser = parse(parserOptions as unknown as Options);
  // A failed body (network, size limit) destroys the parser with its error, which the loop below throws.
  const feeding = pipeline(Readable.from(rest(start.data, text), { objectMode: false }), parser);
  feeding.catch(() => {});

  let batch: FeedBatch = { entries: [], skipped: 0 };
  try {
    for await (const row of parser as AsyncIterable<Row>) {
      if (columns === undefined) {
        columns = headerColumns(row, start, commentNames, options);
        if (options.header === 'first-row') continue;
      }
      const entry = csvEntry(row.fields, row.line, columns);
      if (entry) batch.entries.push(entry);
      else batch.skipped++;
      if (batch.entries.length + batch.skipped >= BATCH_ROWS) {
        yield batch;
        batch = { entries: [], skipped: 0 };
      }
    }
    await feeding;
  } catch (error) {
    throw error instanceof CsvError ? unusable(error, lines) : error;
  }
  if (batch.entries.length + batch.skipped > 0) yield batch;
}

interface Preamble {
  /** The body from the first data row on, as far as it has arrived; undefined when there is no row. */
  data?: string;
  /** The line the first data row starts on. */
  dataLine: number;
  /** The text after the `#` of the last comment line before the data. */
  lastComment?: { text: string; line: number };
}

/** Reads the blank and `#` lines that open the body, up to the first data row. */
async function readPreamble(text: AsyncIterator<string>): Promise<Preamble> {
  let pending = '';
  let line = 1;
  let lastComment: Preamble['lastComment'];
  let ended = false;
  // pending[0, scanned) holds no line break, so a long line arriving in many chunks is searched once.
  let scanned = 0;
  const lineBreak = /[\r\n]/g;
  for (;;) {
    lineBreak.lastIndex = scanned;
    const lineEnd = lineBreak.exec(pending)?.index ?? -1;
    scanned = lineEnd < 0 ? pending.length : lineEnd;
    const first = pending.search(/\S/); // whitespace includes line breaks: past lineEnd means a blank line
    const inLine = first >= 0 && (lineEnd < 0 || first < lineEnd);
    if (inLine && pending[first] !== '#') return { data: pending, dataLine: line, lastComment };
    // A CR at the end of what has arrived may be the first half of a CRLF.
    const complete = lineEnd >= 0 && (pending[lineEnd] === '\n' || lineEnd + 1 < pending.length || ended);
    if (complete || (ended && pending !== '')) {
      const end = lineEnd >= 0 ? lineEnd : pending.length;
      if (inLine) lastComment = { text: pending.slice(first + 1, end), line };
      line++;
      pending = pending.slice(end + (pending.startsWith('\r\n', end) ? 2 : 1));
      scanned = 0;
      continue;
    }
    if (ended) return { dataLine: line, lastComment };
    const next = await text.next();
    if (next.done) ended = true;
    else pending += next.value;
  }
}

/**
 * The columns of a body whose header is in it, found once its first row is read: the last `#`
 * line's names for `"comment"` (`commentNames`), the first row's for `"first-row"`. A failure names
 * the header mode to set when the other place holds the column: abuse.ch's Feodo Tracker writes its
 * header as the first row after its `#` lines, URLhaus and ThreatFox as the last `#` line
 * (docs/sources.md, "Feed shapes").
 */
function headerColumns(first: Row, start: Preamble, commentNames: string[] | undefined, options: CsvOptions): CsvColumns {
  const comment = start.lastComment;
  if (options.header === 'comment') {
    const firstRow: OtherHeader = { mode: 'first-row', names: first.fields, line: first.line };
    if (comment === undefined || commentNames === undefined) {
      const hint = otherHeaderHint(firstRow, options.value);
      throw new FeedFormatError(`line ${first.line}`, `no "#" comment line before the data names the columns (csv.header is "comment")${hint}`);
    }
    return csvColumns(commentNames, options, `line ${comment.line}`, firstRow);
  }
  const lastComment = comment === undefined ? undefined : { mode: 'comment' as const, names: commentNamesOrNone(comment, options.delimiter), line: comment.line };
  return csvColumns(first.fields, options, `line ${first.line}`, lastComment);
}

/** A comment's names when it reads as a csv record, else none: the last `#` line may be any text (a title, terms of use). */
function commentNamesOrNone(comment: NonNullable<Preamble['lastComment']>, delimiter: string): string[] {
  try {
    return commentHeader(comment, delimiter);
  } catch (error) {
    if (error instanceof FeedFormatError) return [];
    throw error;
  }
}

/** The first data row's text, then the rest of the body. */
async function* rest(first: string, text: AsyncIterator<string>): AsyncGenerator<string> {
  yield first;
  for await (const chunk of { [Symbol.asyncIterator]: () => text }) yield chunk;
}

/** The column names of abuse.ch's header comment, `# first_seen_utc,dst_ip,...` or `# "first_seen_utc","dst_ip",...`. */
function commentHeader(comment: NonNullable<Preamble['lastComment']>, delimiter: string): string[] {
  try {
    const [names = []] = parseRecords(comment.text, { ...FIELD_OPTIONS, delimiter });
    return names;
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw new FeedFormatError(`line ${comment.line}`, `the "#" line naming the columns is not a csv record (${error.message})`);
  }
}

/** csv-parse's counts of the comment and blank lines it has skipped. */
interface SkippedLines {
  comment_lines: number;
  empty_lines: number;
}

/** The line each record starts on, counted from the first data row's. */
class RecordLines {
  /** The line after the last record. */
  private next: number;
  /** The comment and blank lines csv-parse had skipped by the end of the last record. */
  private skipped = 0;

  constructor(firstLine: number) {
    this.next = firstLine;
  }

  /** The first line of the record csv-parse is on, given its count of lines skipped so far. */
  startOf(info: SkippedLines): number {
    return this.next + info.comment_lines + info.empty_lines - this.skipped;
  }

  /** Records a complete record and returns its first line. */
  record(fields: string[], info: SkippedLines): number {
    const line = this.startOf(info);
    this.skipped = info.comment_lines + info.empty_lines;
    this.next = line + 1 + fields.reduce((breaks, field) => breaks + lineBreaks(field), 0);
    return line;
  }
}

function lineBreaks(field: string): number {
  return /[\r\n]/.test(field) ? field.match(/\r\n|\r|\n/g)!.length : 0;
}

/** csv-parse's refusal as the pull's error, at the line where the broken record starts. */
function unusable(error: CsvError, lines: RecordLines): FeedFormatError {
  const reasons: Partial<Record<CsvError['code'], string>> = {
    CSV_QUOTE_NOT_CLOSED: 'a quoted field is not closed before the end of the body',
    CSV_INVALID_CLOSING_QUOTE: 'a quoted field has text after its closing quote',
    CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE: 'a quoted field has text after its closing quote',
  };
  const line = lines.startOf({ comment_lines: Number(error.comment_lines), empty_lines: Number(error.empty_lines) });
  return new FeedFormatError(`line ${line}`, reasons[error.code] ?? error.message);
}
