// Text chunks cut into lines, wherever the chunks were cut: the one line splitter of feed bodies and import files.

const LF = 0x0a;

/** A group of consecutive lines and the 1-based number of the first. */
export interface NumberedLines {
  first: number;
  lines: string[];
}

/**
 * Cuts text given in chunks into lines. LF, CRLF and a lone CR each end a line, as readline and
 * csv-parse (given all three breaks) read them: a file from a tool that writes bare CRs is then
 * lines, not one line. A CR that ends a chunk ends its line at once, and an LF opening the next
 * chunk is the rest of that CRLF, not an empty line.
 *
 * The line still open at the end of a chunk is kept in parts and joined once its end arrives, so a
 * line spread over many chunks is copied once, not once per chunk.
 */
export class LineSplitter {
  private parts: string[] = [];
  /** The last chunk ended with a CR: an LF opening the next one belongs to it. */
  private afterCr = false;

  /** The lines this chunk completes, in order. */
  push(chunk: string): string[] {
    const lines: string[] = [];
    const length = chunk.length;
    if (length === 0) return lines;
    let start = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (chunk.charCodeAt(0) === LF) start = 1;
    }
    // Two native searches, each moved on only past the break it found: text without CRs costs one
    // search of the chunk, and text with CRLFs two.
    let lf = chunk.indexOf('\n', start);
    let cr = chunk.indexOf('\r', start);
    while (lf >= 0 || cr >= 0) {
      if (cr < 0 || (lf >= 0 && lf < cr)) {
        lines.push(this.take(chunk.slice(start, lf)));
        start = lf + 1;
        lf = chunk.indexOf('\n', start);
        continue;
      }
      lines.push(this.take(chunk.slice(start, cr)));
      start = cr + 1;
      if (start === length) this.afterCr = true;
      else if (chunk.charCodeAt(start) === LF) {
        start++;
        lf = chunk.indexOf('\n', start);
      }
      cr = chunk.indexOf('\r', start);
    }
    if (start < length) this.parts.push(start === 0 ? chunk : chunk.slice(start));
    return lines;
  }

  /** Called after the last chunk: the last line, when the text does not end with a line break. */
  end(): string[] {
    this.afterCr = false;
    if (this.parts.length === 0) return [];
    const last = this.parts.join('');
    this.parts = [];
    return [last];
  }

  /** The line that ends with `tail`, joined with what earlier chunks left open. */
  private take(tail: string): string {
    if (this.parts.length === 0) return tail;
    this.parts.push(tail);
    const line = this.parts.join('');
    this.parts = [];
    return line;
  }
}

/** The lines of text chunks, a chunk's completed lines at a time (never an empty group), numbered from 1. */
export async function* splitLines(chunks: AsyncIterable<string>): AsyncGenerator<NumberedLines> {
  const splitter = new LineSplitter();
  let next = 1;
  for await (const chunk of chunks) {
    const lines = splitter.push(chunk);
    if (lines.length === 0) continue;
    yield { first: next, lines };
    next += lines.length;
  }
  const last = splitter.end();
  if (last.length > 0) yield { first: next, lines: last };
}
