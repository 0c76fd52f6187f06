// The line and column of a point in text fed chunk by chunk, for errors a person can look up, without keeping the text.

/** A line and a column, both from 1. Lines end at LF; columns count UTF-16 code units, as string indices do (and JSON.parse's positions). */
export interface TextPoint {
  line: number;
  column: number;
}

/**
 * Follows the lines of a text given a chunk at a time: `chunk` when one starts, then `at(i)` for
 * points of it in order. Each LF is found once with indexOf (the next one is kept between calls),
 * so following costs one pass over the text however many points are asked for.
 */
export class TextPosition {
  private line = 1;
  /** Offset in the whole text of the current line's first character. */
  private lineStart = 0;
  /** Offset in the whole text of the current chunk's first character. */
  private offset = 0;
  private text = '';
  /** Index in the current chunk of the next LF not yet counted, or -1. */
  private nextLf = -1;

  /** The next chunk of the text; the LFs left in the previous one are counted first. */
  chunk(text: string): void {
    this.at(this.text.length);
    this.offset += this.text.length;
    this.text = text;
    this.nextLf = text.indexOf('\n');
  }

  /** The point at index `i` of the current chunk; `i` is never below that of an earlier call for the same chunk. */
  at(i: number): TextPoint {
    while (this.nextLf !== -1 && this.nextLf < i) {
      this.line++;
      this.lineStart = this.offset + this.nextLf + 1;
      this.nextLf = this.text.indexOf('\n', this.nextLf + 1);
    }
    return { line: this.line, column: this.offset + i - this.lineStart + 1 };
  }

  /** The point just after the text given so far. */
  end(): TextPoint {
    return this.at(this.text.length);
  }
}

/** The point `index` characters into `text`, which starts at `start`. */
export function pointWithin(start: TextPoint, text: string, index: number): TextPoint {
  let line = start.line;
  let lastLf = -1;
  for (let lf = text.indexOf('\n'); lf !== -1 && lf < index; lf = text.indexOf('\n', lf + 1)) {
    line++;
    lastLf = lf;
  }
  return { line, column: lastLf === -1 ? start.column + index : index - lastLf };
}
