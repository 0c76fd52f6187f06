// An RFC 4180 tokenizer fed in chunks: records with the line they start on, and `#` comment lines.
import { FeedFormatError } from './feed-entry.js';

export type CsvRow = { kind: 'record'; fields: string[]; line: number } | { kind: 'comment'; text: string; line: number };

type State = 'field-start' | 'unquoted' | 'quoted' | 'quote-in-quoted' | 'comment';

/**
 * Splits CSV text into records (RFC 4180 section 2): fields in double quotes may hold the delimiter,
 * line breaks and doubled quotes (`""`); a record ends at CRLF, LF or a lone CR. Chunks may be cut
 * anywhere, even between the CR and LF of one break or the two quotes of `""`.
 *
 * Lenient where feeds are sloppy and the meaning is still plain: a quote inside an unquoted field
 * is kept as text (`ab"c`), and text after a closing quote is appended (`"ab"c` is `abc`). Blank
 * lines are dropped. With `comments`, a line starting with `#` is a comment, not a record; a `#`
 * later in a line, or inside a quoted field, is data.
 */
export class CsvRecords {
  private state: State = 'field-start';
  private field = '';
  private fields: string[] = [];
  private line = 1;
  private recordLine = 1;
  /** The last character was a CR ending a record: an LF right after it belongs to the same break. */
  private afterCr = false;

  constructor(
    private readonly delimiter: string,
    private readonly comments: boolean,
  ) {}

  /** The rows completed by `text`, in order. */
  push(text: string): CsvRow[] {
    const rows: CsvRow[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (this.afterCr) {
        this.afterCr = false;
        if (c === '\n') continue;
      }
      switch (this.state) {
        case 'quoted': {
          // Copy up to the next quote in one slice: quoted fields (URLs, descriptions) can be long.
          const quote = text.indexOf('"', i);
          const end = quote < 0 ? text.length : quote;
          const part = text.slice(i, end);
          this.field += part;
          this.line += countNewlines(part);
          if (quote >= 0) this.state = 'quote-in-quoted';
          i = end;
          break;
        }
        case 'quote-in-quoted':
          if (c === '"') {
            this.field += '"';
            this.state = 'quoted';
          } else {
            this.state = 'unquoted';
            i--; // the closing quote is behind us; read this character as plain field text
          }
          break;
        case 'comment':
          if (c === '\n' || c === '\r') {
            rows.push({ kind: 'comment', text: this.field, line: this.recordLine });
            this.field = '';
            this.state = 'field-start';
            this.lineBreak(c);
          } else this.field += c;
          break;
        case 'field-start':
        case 'unquoted':
          if (c === this.delimiter) {
            this.fields.push(this.field);
            this.field = '';
            this.state = 'field-start';
          } else if (c === '\n' || c === '\r') {
            this.endRecord(rows);
            this.lineBreak(c);
          } else if (this.state === 'field-start' && c === '"') {
            this.state = 'quoted';
          } else if (this.comments && c === '#' && this.fields.length === 0 && this.state === 'field-start') {
            this.state = 'comment';
          } else {
            this.field += c;
            this.state = 'unquoted';
          }
          break;
      }
    }
    return rows;
  }

  /** The last rows, once the body has ended; a quoted field still open means the body was cut short. */
  end(): CsvRow[] {
    if (this.state === 'quoted') {
      throw new FeedFormatError(`line ${this.recordLine}`, 'a quoted field is not closed before the end of the body');
    }
    const rows: CsvRow[] = [];
    if (this.state === 'comment') rows.push({ kind: 'comment', text: this.field, line: this.recordLine });
    else this.endRecord(rows);
    this.state = 'field-start';
    this.field = '';
    return rows;
  }

  private endRecord(rows: CsvRow[]): void {
    this.fields.push(this.field);
    const blank = this.fields.length === 1 && this.fields[0] === '' && this.state === 'field-start';
    if (!blank) rows.push({ kind: 'record', fields: this.fields, line: this.recordLine });
    this.fields = [];
    this.field = '';
    this.state = 'field-start';
  }

  private lineBreak(c: string): void {
    this.afterCr = c === '\r';
    this.line++;
    this.recordLine = this.line;
  }
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count++;
  return count;
}
