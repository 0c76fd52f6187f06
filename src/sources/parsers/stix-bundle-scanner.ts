// Cuts a STIX bundle's `objects` array into its elements as the body arrives, so a bundle of hundreds of MB is never held whole.
import { FeedFormatError } from './feed-entry.js';

/** An element of the bundle's `objects` array, parsed, with where it is for messages (`objects[12]`). */
export interface StixObjectAt {
  object: unknown;
  position: string;
}

type Phase =
  | 'start' // before the opening brace
  | 'key' // expecting a member name (or the closing brace of an empty bundle)
  | 'in-key' // inside a member name
  | 'colon'
  | 'value' // expecting a member's value
  | 'element' // expecting an element of `objects` (or its closing bracket when empty)
  | 'after-element'
  | 'after-value'
  | 'capture' // inside a value: an element, the `type` member, or a member skipped
  | 'done';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(code: number): boolean {
  // JSON whitespace (RFC 8259): space, tab, LF, CR.
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/**
 * A scanner of `{"type": "bundle", "id": ..., "objects": [ ... ]}` fed text chunks in order.
 *
 * Only the bundle's own level is followed character by character: each element of `objects` is cut
 * out as text (strings and nesting tracked, so a `]` or `,` inside a string or a nested object does
 * not end it) and parsed alone with JSON.parse, so memory holds one element at a time, plus the
 * elements completed within the current chunk. The `type` member is parsed and must be "bundle";
 * other members (`id`, `spec_version` of STIX 2.0, custom ones) are skipped the same way without
 * being kept. The members may come in any order.
 */
export class StixBundleScanner {
  private phase: Phase = 'start';
  /** Whether the object or array being entered has no member or element yet (so `}` or `]` may close it). */
  private first = true;
  private key = '';
  private keyParts: string[] = [];
  private seenObjects = false;
  private type: unknown = undefined;
  private index = 0;
  // The value being captured.
  private target: 'element' | 'type' | 'skip' = 'skip';
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A number, true, false or null: it ends at the next delimiter, which is then read again. */
  private scalar = false;
  private parts: string[] = [];

  private where(): string {
    return this.phase === 'capture' && this.target === 'element' ? `objects[${this.index}]` : 'document';
  }

  private fail(reason: string, where = this.where()): never {
    throw new FeedFormatError(where, reason);
  }

  /** The elements of `objects` completed by this chunk, in order. */
  push(chunk: string): StixObjectAt[] {
    const out: StixObjectAt[] = [];
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
      if (this.phase === 'in-key') {
        if (this.escaped) this.escaped = false;
        else if (code === BACKSLASH) this.escaped = true;
        else if (code === QUOTE) {
          this.keyParts.push(chunk.slice(start, i));
          this.key = this.decodeKey(this.keyParts.join(''));
          this.keyParts = [];
          this.phase = 'colon';
        }
        continue;
      }
      if (isWhitespace(code)) continue;
      const ch = chunk[i]!;
      switch (this.phase) {
        case 'start':
          if (ch !== '{') this.fail('not a STIX bundle: the body is not a JSON object');
          this.phase = 'key';
          this.first = true;
          break;
        case 'key':
          if (ch === '"') {
            this.phase = 'in-key';
            start = i + 1;
          } else if (ch === '}' && this.first) this.phase = 'done';
          else this.fail(`expected a member name, found "${ch}"`);
          break;
        case 'colon':
          if (ch !== ':') this.fail(`expected ":" after "${this.key}"`);
          this.phase = 'value';
          break;
        case 'value':
          if (this.key === 'objects') {
            if (this.seenObjects) this.fail('"objects" appears twice');
            if (ch !== '[') this.fail('"objects" is not an array');
            this.seenObjects = true;
            this.phase = 'element';
            this.first = true;
            this.index = 0;
          } else {
            this.beginValue(this.key === 'type' ? 'type' : 'skip', ch);
            start = i;
            i--;
          }
          break;
        case 'element':
          if (ch === ']' && this.first) this.phase = 'after-value';
          else if (ch === ']') this.fail('an empty element (a stray comma?)', `objects[${this.index}]`);
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
          else this.fail(`expected "," or "]" after an element, found "${ch}"`, `objects[${this.index}]`);
          break;
        case 'after-value':
          if (ch === ',') {
            this.phase = 'key';
            this.first = false;
          } else if (ch === '}') this.phase = 'done';
          else this.fail(`expected "," or "}" after a member, found "${ch}"`);
          break;
        case 'done':
          this.fail('unexpected text after the end of the bundle');
      }
    }
    if (this.phase === 'capture' && this.target !== 'skip') this.parts.push(chunk.slice(start));
    if (this.phase === 'in-key') this.keyParts.push(chunk.slice(start));
    return out;
  }

  /** Called after the last chunk: the bundle must be complete and be a bundle. */
  end(): void {
    if (this.phase === 'start') this.fail('not a STIX bundle: the body is empty');
    if (this.phase !== 'done') this.fail('the body ends before the bundle does (truncated?)');
    if (this.type === undefined) this.fail('not a STIX bundle: no "type" member');
  }

  private beginValue(target: 'element' | 'type' | 'skip', ch: string): void {
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

  private finishValue(out: StixObjectAt[]): void {
    const target = this.target;
    const text = this.parts.join('');
    this.parts = [];
    if (target === 'element') {
      out.push({ object: this.parse(text), position: `objects[${this.index}]` });
      this.phase = 'after-element';
      return;
    }
    this.phase = 'after-value';
    if (target === 'type') {
      this.type = this.parse(text);
      if (this.type !== 'bundle') this.fail(`not a STIX bundle: "type" is ${JSON.stringify(this.type)}`);
    }
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      return this.fail(`not valid JSON: ${(error as Error).message}`);
    }
  }

  private decodeKey(raw: string): string {
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return this.fail('a member name is not a valid JSON string');
    }
  }
}
