// An incremental scanner for `{"section": [element, ...], ...}` that yields one parsed element at a time.
import { ImportError } from '../errors.js';

export interface ScannedElement {
  section: string;
  index: number;
  value: unknown;
}

type Phase = 'start' | 'key' | 'colon' | 'array' | 'element' | 'after-element' | 'after-section' | 'done';

const WHITESPACE = new Set([' ', '\t', '\n', '\r', '\uFEFF']);

/**
 * Only the top two levels are scanned character by character; each array element is cut out
 * as text and handed to JSON.parse, so memory stays bounded by the largest single record.
 */
export class JsonDocumentScanner {
  private phase: Phase = 'start';
  private key = '';
  private section = '';
  private index = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private parts: string[] = [];
  private readonly seen = new Set<string>();

  constructor(private readonly sections: readonly string[]) {}

  private fail(reason: string): never {
    const where = this.section ? `${this.section}[${this.index}]` : 'document';
    throw new ImportError(where, reason);
  }

  *push(chunk: string): Generator<ScannedElement> {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      if (this.phase === 'element') {
        if (this.inString) {
          if (this.escaped) this.escaped = false;
          else if (ch === '\\') this.escaped = true;
          else if (ch === '"') this.inString = false;
          continue;
        }
        if (ch === '"') this.inString = true;
        else if (ch === '{' || ch === '[') this.depth++;
        else if (ch === '}' || ch === ']') {
          if (this.depth === 0) {
            this.parts.push(chunk.slice(start, i));
            yield this.finishElement();
            this.phase = 'after-section';
            continue;
          }
          this.depth--;
        } else if (ch === ',' && this.depth === 0) {
          this.parts.push(chunk.slice(start, i));
          yield this.finishElement();
          this.beginElementSearch();
        }
        continue;
      }
      if (this.phase === 'key' && this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') {
          this.inString = false;
          this.phase = 'colon';
          continue;
        }
        this.key += ch;
        continue;
      }
      if (WHITESPACE.has(ch)) continue;
      switch (this.phase) {
        case 'start':
          if (ch !== '{') this.fail('the document must be a JSON object with "threats", "feeds", "indicators" and "links" arrays');
          this.phase = 'key';
          break;
        case 'key':
          if (ch === '}' && this.seen.size === 0) this.phase = 'done';
          else if (ch === '"') {
            this.inString = true;
            this.key = '';
          } else this.fail('expected a section name');
          break;
        case 'colon':
          if (ch !== ':') this.fail('expected ":" after a section name');
          if (!this.sections.includes(this.key)) this.fail(`unknown section "${this.key}"; expected one of ${this.sections.join(', ')}`);
          if (this.seen.has(this.key)) this.fail(`section "${this.key}" appears twice`);
          this.seen.add(this.key);
          this.section = this.key;
          this.index = 0;
          this.phase = 'array';
          break;
        case 'array':
          if (ch !== '[') this.fail(`"${this.section}" must be an array`);
          this.phase = 'after-element';
          this.index = -1;
          this.beginElementSearch();
          break;
        case 'after-element':
          if (ch === ']' && this.index === 0 && this.parts.length === 0) {
            this.phase = 'after-section';
            break;
          }
          this.phase = 'element';
          start = i;
          i--;
          continue;
        case 'after-section':
          if (ch === ',') this.phase = 'key';
          else if (ch === '}') this.phase = 'done';
          else this.fail('expected "," or "}" after a section');
          break;
        case 'done':
          this.fail('unexpected text after the end of the document');
      }
      start = i + 1;
    }
    if (this.phase === 'element') this.parts.push(chunk.slice(start));
  }

  /** Called after the last chunk: the document must be complete. */
  end(): void {
    if (this.phase !== 'done') this.fail('the document ends early (truncated file?)');
  }

  private beginElementSearch(): void {
    this.phase = 'after-element';
    this.index++;
    this.parts = [];
    this.depth = 0;
  }

  private finishElement(): ScannedElement {
    const text = this.parts.join('').trim();
    this.parts = [];
    if (text === '') this.fail('empty element (stray comma?)');
    try {
      return { section: this.section, index: this.index, value: JSON.parse(text) };
    } catch (error) {
      return this.fail(`not valid JSON (${(error as Error).message})`);
    }
  }
}
