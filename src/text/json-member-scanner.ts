// Reads a JSON object's members as the text arrives, cutting array members into their elements, so a document of hundreds of MB is never held whole.
import type { ElementPlace, JsonProblem, MemberRead, MemberReader } from './json-member-reader.js';
import { pointWithin, TextPosition, type TextPoint } from './text-position.js';

export type { ElementPlace, JsonProblem, MemberRead, MemberReader } from './json-member-reader.js';

type Phase =
  | 'start' // before the opening brace
  | 'name' // expecting a member name (or the closing brace of an empty object)
  | 'in-name' // inside a member name
  | 'colon'
  | 'value' // expecting a member's value
  | 'element' // expecting an element (or the closing bracket of an empty array)
  | 'after-element'
  | 'after-value'
  | 'capture' // inside a value: an element, a member read whole, or a member passed over
  | 'done';

/** A backslash, or a control character JSON.parse refuses unescaped in a string. */
const NAME_TO_DECODE = /[\\\u0000-\u001f]/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(code: number): boolean {
  // JSON whitespace (RFC 8259 section 2): space, tab, LF, CR.
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/**
 * A scanner of one JSON object fed text chunks in order. Only the object's own level is followed
 * character by character: each value is cut out as text (strings and nesting tracked, so a `]` or
 * `,` inside a string or a nested object does not end it) and parsed alone with JSON.parse, so
 * memory holds one element at a time, plus the elements completed within the current chunk, and
 * nesting of any depth costs no recursion. Members come in any order. Brackets inside a value are
 * counted, not matched: JSON.parse checks the values it reads, and a value passed over is not read.
 * A document that is an array is read as one member cut into its elements, when the reader names
 * that member (`rootArray`). Problems are placed by line and column (text-position.ts: one more
 * pass over each chunk, for LFs), as JSON.parse of the whole document would place them.
 */
export class JsonMemberScanner<T> {
  private phase: Phase = 'start';
  /** Whether the object or array being entered has no member or element yet (so `}` or `]` may close it). */
  private first = true;
  private name = '';
  private nameParts: string[] = [];
  private index = 0;
  // The value being captured.
  private target: 'element' | 'value' | 'skip' = 'skip';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A number, true, false or null: it ends at the next delimiter, which is then read again. */
  private scalar = false;
  private parts: string[] = [];
  /** Where the value being captured (or the member name being read) starts, for the point of a parse error in it. */
  private valueStart: TextPoint = { line: 1, column: 1 };
  private readonly position = new TextPosition();
  /** The document is an array (MemberReader `rootArray`): its closing bracket ends it. */
  private arrayRoot = false;

  constructor(private readonly reader: MemberReader<T>) {}

  /** What this chunk's completed elements made, in order. */
  push(chunk: string): T[] {
    const out: T[] = [];
    let start = 0;
    const length = chunk.length;
    this.position.chunk(chunk);
    for (let i = 0; i < length; i++) {
      if (this.phase === 'capture') {
        // `start` is where the value began in this chunk, or 0 when it began in an earlier one.
        i = this.scanValue(chunk, i);
        if (i >= length) break;
        // The value ended at i: a closing quote or bracket is part of it, a scalar's delimiter is not.
        const end = this.scalar ? i : i + 1;
        if (this.target !== 'skip') this.parts.push(chunk.slice(start, end));
        this.finishValue(out);
        if (this.scalar) i--;
        continue;
      }
      const code = chunk.charCodeAt(i);
      if (this.phase === 'in-name') {
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTE) {
          this.nameParts.push(chunk.slice(start, i));
          this.name = this.decodeName(this.nameParts.join(''));
          this.nameParts = [];
          this.phase = 'colon';
        }
        continue;
      }
      if (isWhitespace(code)) continue;
      const ch = chunk[i]!;
      switch (this.phase) {
        case 'start':
          if (ch === '[' && this.reader.rootArray !== undefined) {
            this.arrayRoot = true;
            this.name = this.reader.rootArray;
            this.phase = 'element';
            this.first = true;
            this.index = 0;
            break;
          }
          if (ch !== '{') this.fail({ code: 'not-object' }, i);
          this.phase = 'name';
          this.first = true;
          break;
        case 'name':
          if (ch === '"') {
            this.phase = 'in-name';
            start = i + 1;
            this.valueStart = this.position.at(i);
          } else if (ch === '}' && this.first) this.phase = 'done';
          else this.fail({ code: 'expected-name', found: ch }, i);
          break;
        case 'colon':
          if (ch !== ':') this.fail({ code: 'expected-colon', name: this.name }, i);
          this.phase = 'value';
          break;
        case 'value': {
          const read = this.reader.readAs(this.name);
          if (read === 'elements' || (read === 'elements-or-value' && ch === '[')) {
            if (ch !== '[') this.fail({ code: 'not-array', name: this.name }, i);
            this.phase = 'element';
            this.first = true;
            this.index = 0;
          } else {
            this.beginValue(read === 'skip' ? 'skip' : 'value', ch, i);
            start = i;
            i--;
          }
          break;
        }
        case 'element':
          if (ch === ']' && this.first) this.phase = this.arrayRoot ? 'done' : 'after-value';
          else if (ch === ']' || ch === ',') this.fail({ code: 'empty-element' }, i, this.place());
          else {
            this.beginValue('element', ch, i);
            start = i;
            i--;
          }
          break;
        case 'after-element':
          if (ch === ',') {
            this.index++;
            this.phase = 'element';
            this.first = false;
          } else if (ch === ']') this.phase = this.arrayRoot ? 'done' : 'after-value';
          else this.fail({ code: 'expected-element-end', found: ch }, i, this.place());
          break;
        case 'after-value':
          if (ch === ',') {
            this.phase = 'name';
            this.first = false;
          } else if (ch === '}') this.phase = 'done';
          else this.fail({ code: 'expected-member-end', found: ch }, i);
          break;
        case 'done':
          this.fail({ code: 'trailing-text' }, i);
      }
    }
    if (this.phase === 'capture' && this.target !== 'skip') this.parts.push(chunk.slice(start));
    if (this.phase === 'in-name') this.nameParts.push(chunk.slice(start));
    return out;
  }

  /** Called after the last chunk: the object must be complete. */
  end(): void {
    if (this.phase === 'start') this.fail({ code: 'empty' }, this.position.end());
    if (this.phase !== 'done') this.fail({ code: 'truncated' }, this.position.end(), this.inElement() ? this.place() : undefined);
  }

  private place(): ElementPlace {
    return { member: this.name, index: this.index };
  }

  private inElement(): boolean {
    return this.phase === 'capture' && this.target === 'element';
  }

  /** The reader's error for a problem at index `at` of the current chunk, or at a point already known. */
  private fail(problem: JsonProblem, at: number | TextPoint, place?: ElementPlace): never {
    return this.reader.fail(problem, place, typeof at === 'number' ? this.position.at(at) : at);
  }

  private beginValue(target: 'element' | 'value' | 'skip', ch: string, i: number): void {
    this.phase = 'capture';
    this.valueStart = this.position.at(i);
    this.target = target;
    this.parts = [];
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.scalar = ch !== '{' && ch !== '[' && ch !== '"';
  }

  /**
   * Advances through the value from i; returns the index where it ends (its closing quote or
   * bracket, or a scalar's delimiter), or the chunk's length when it goes on in the next chunk.
   */
  private scanValue(chunk: string, from: number): number {
    const length = chunk.length;
    let i = from;
    if (this.scalar) {
      for (; i < length; i++) {
        const code = chunk.charCodeAt(i);
        if (isWhitespace(code) || code === 0x2c || code === 0x7d || code === 0x5d) return i; // , } ]
      }
      return i;
    }
    for (; i < length; i++) {
      if (this.inString) {
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        // The common case, a run of plain characters, in a tight loop.
        let code = chunk.charCodeAt(i);
        while (code !== QUOTE && code !== BACKSLASH && ++i < length) code = chunk.charCodeAt(i);
        if (i >= length) return i;
        if (code === BACKSLASH) this.escaped = true;
        else {
          this.inString = false;
          if (this.depth === 0) return i;
        }
        continue;
      }
      const code = chunk.charCodeAt(i);
      if (code === QUOTE) this.inString = true;
      else if (code === 0x7b || code === 0x5b) this.depth++; // { [
      else if (code === 0x7d || code === 0x5d) {
        // } ]
        this.depth--;
        if (this.depth === 0) return i;
      }
    }
    return i;
  }

  private finishValue(out: T[]): void {
    const text = this.parts.join('');
    this.parts = [];
    if (this.target === 'element') {
      out.push(this.reader.element(this.name, this.index, this.parse(text)));
      this.phase = 'after-element';
      return;
    }
    if (this.target === 'value') this.reader.value?.(this.name, this.parse(text));
    this.phase = 'after-value';
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      const reason = (error as Error).message;
      return this.fail({ code: 'invalid-json', reason }, this.pointOf(reason, text), this.inElement() ? this.place() : undefined);
    }
  }

  /** Where JSON.parse's error is: V8 names an offset in the text it was given ("in JSON at position 12"), or none (then the text's start). */
  private pointOf(reason: string, text: string): TextPoint {
    const at = /at position (\d+)/.exec(reason)?.[1];
    return at === undefined ? this.valueStart : pointWithin(this.valueStart, text, Number(at));
  }

  private decodeName(raw: string): string {
    // Most names (ids, field names) have nothing to decode; JSON.parse checks those that may.
    if (!NAME_TO_DECODE.test(raw)) return raw;
    const text = `"${raw}"`;
    try {
      return JSON.parse(text) as string;
    } catch (error) {
      return this.fail({ code: 'bad-name' }, this.pointOf((error as Error).message, text));
    }
  }
}
