// Reads a JSON object's members as the text arrives, cutting array members into their elements, so a document of hundreds of MB is never held whole.

/** How a member's value is read: each element of an array parsed alone, the whole value parsed, or passed over. */
export type MemberRead = 'elements' | 'value' | 'skip';

/** What is wrong with a document; the reader words it. */
export type JsonProblem =
  | { code: 'empty' } // no text at all
  | { code: 'not-object' } // the first character is not `{`
  | { code: 'expected-name'; found: string }
  | { code: 'bad-name' } // a member name that is not a valid JSON string
  | { code: 'expected-colon'; name: string }
  | { code: 'not-array'; name: string } // a member read as 'elements'
  | { code: 'empty-element' } // `[1,]`, `[,1]`
  | { code: 'expected-element-end'; found: string }
  | { code: 'expected-member-end'; found: string }
  | { code: 'trailing-text' }
  | { code: 'truncated' }
  | { code: 'invalid-json'; reason: string };

/** An element being read or just read: set with the problems about one element, else undefined. */
export interface ElementPlace {
  member: string;
  index: number;
}

/** What a document means to its reader: which members it reads and how, what it makes of them, how it reports a problem. */
export interface MemberReader<T> {
  /** How to read the member `name`; called when its value starts, so it may also refuse a name or a repeat by throwing. */
  readAs(name: string): MemberRead;
  /** One element of a member read as 'elements', parsed, made into what `push` returns. */
  element(member: string, index: number, value: unknown): T;
  /** A member read as 'value', parsed. */
  value?(name: string, value: unknown): void;
  /** Throws the reader's error for a problem; `place` names the element it is about, if any. */
  fail(problem: JsonProblem, place: ElementPlace | undefined): never;
}

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

  constructor(private readonly reader: MemberReader<T>) {}

  /** What this chunk's completed elements made, in order. */
  push(chunk: string): T[] {
    const out: T[] = [];
    let start = 0;
    const length = chunk.length;
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
          if (ch !== '{') this.fail({ code: 'not-object' });
          this.phase = 'name';
          this.first = true;
          break;
        case 'name':
          if (ch === '"') {
            this.phase = 'in-name';
            start = i + 1;
          } else if (ch === '}' && this.first) this.phase = 'done';
          else this.fail({ code: 'expected-name', found: ch });
          break;
        case 'colon':
          if (ch !== ':') this.fail({ code: 'expected-colon', name: this.name });
          this.phase = 'value';
          break;
        case 'value': {
          const read = this.reader.readAs(this.name);
          if (read === 'elements') {
            if (ch !== '[') this.fail({ code: 'not-array', name: this.name });
            this.phase = 'element';
            this.first = true;
            this.index = 0;
          } else {
            this.beginValue(read === 'value' ? 'value' : 'skip', ch);
            start = i;
            i--;
          }
          break;
        }
        case 'element':
          if (ch === ']' && this.first) this.phase = 'after-value';
          else if (ch === ']' || ch === ',') this.fail({ code: 'empty-element' }, this.place());
          else {
            this.beginValue('element', ch);
            start = i;
            i--;
          }
          break;
        case 'after-element':
          if (ch === ',') {
            this.index++;
            this.phase = 'element';
            this.first = false;
          } else if (ch === ']') this.phase = 'after-value';
          else this.fail({ code: 'expected-element-end', found: ch }, this.place());
          break;
        case 'after-value':
          if (ch === ',') {
            this.phase = 'name';
            this.first = false;
          } else if (ch === '}') this.phase = 'done';
          else this.fail({ code: 'expected-member-end', found: ch });
          break;
        case 'done':
          this.fail({ code: 'trailing-text' });
      }
    }
    if (this.phase === 'capture' && this.target !== 'skip') this.parts.push(chunk.slice(start));
    if (this.phase === 'in-name') this.nameParts.push(chunk.slice(start));
    return out;
  }

  /** Called after the last chunk: the object must be complete. */
  end(): void {
    if (this.phase === 'start') this.fail({ code: 'empty' });
    if (this.phase !== 'done') this.fail({ code: 'truncated' }, this.inElement() ? this.place() : undefined);
  }

  private place(): ElementPlace {
    return { member: this.name, index: this.index };
  }

  private inElement(): boolean {
    return this.phase === 'capture' && this.target === 'element';
  }

  private fail(problem: JsonProblem, place?: ElementPlace): never {
    return this.reader.fail(problem, place);
  }

  private beginValue(target: 'element' | 'value' | 'skip', ch: string): void {
    this.phase = 'capture';
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
      return this.fail({ code: 'invalid-json', reason: (error as Error).message }, this.inElement() ? this.place() : undefined);
    }
  }

  private decodeName(raw: string): string {
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return this.fail({ code: 'bad-name' });
    }
  }
}
