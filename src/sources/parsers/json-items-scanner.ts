// The items of a one-document json body (docs/sources.md, "Feed shapes"), cut out as the body arrives: the array itself, the array at `json.items`, or with `*` the records of every top-level value.
import { EVERY_TOP_LEVEL_VALUE, type JsonOptions } from '../formats/json-options.js';
import { JsonMemberScanner, type JsonProblem, type MemberRead, type MemberReader } from '../../text/json-member-scanner.js';
import type { TextPoint } from '../../text/text-position.js';
import { FeedFormatError } from './feed-entry.js';
import { isObject, valueAtPath } from './json-document.js';

/** An item of a document, with where it is for messages (`data[3]`, `1234[0]`). */
export interface JsonItem {
  record: unknown;
  position: string;
}

/**
 * A scanner of a json document fed text chunks in order (JsonMemberScanner: memory holds one record
 * at a time, plus the items completed within the current chunk). Every value of the document is
 * parsed, those it does not read included, so a document JSON.parse refuses is refused too, and
 * with the same words where the scanner can give them: `line L column C: not valid JSON: REASON`.
 *
 * - No `items`: the document is an array; its elements are `items[N]`.
 * - `items: "*"`: an object whose every top-level value is an array of records (`KEY[N]`) or one
 *   record (`KEY`), in the order written; with `key`, each record that is an object gets its
 *   top-level key as that field. A key written twice gives the records of both.
 * - `items: PATH`: the array at the dotted path, `PATH[N]`. Its first segment's member is cut into
 *   its elements when the path has no other segment, else parsed whole and the rest of the path
 *   followed in it; that member may appear once.
 */
export class JsonItemsScanner {
  private readonly reader: ItemsReader;
  private readonly scanner: JsonMemberScanner<void>;

  constructor(options: Pick<JsonOptions, 'items' | 'key'>) {
    this.reader = new ItemsReader(options);
    this.scanner = new JsonMemberScanner(this.reader);
  }

  /** The items this chunk completed, in order. */
  push(chunk: string): JsonItem[] {
    this.scanner.push(chunk);
    return this.reader.take();
  }

  /** Called after the last chunk: the document must be complete and have its items. */
  end(): JsonItem[] {
    this.scanner.end();
    const { path } = this.reader;
    if (path !== undefined && path !== EVERY_TOP_LEVEL_VALUE && !this.reader.found) throw new FeedFormatError('document', noArrayAt(path));
    return this.reader.take();
  }
}

const noArrayAt = (path: string) => `no array at "${path}" (json.items)`;
const NOT_KEYED = 'not an object whose values are records or arrays of records (json.items "*")';

/** The document's members as the scanner reads them, the items they give, and its errors. */
class ItemsReader implements MemberReader<void> {
  readonly rootArray: string | undefined;
  readonly path: string | undefined;
  private readonly key: string | undefined;
  /** The path's first segment and the rest (empty for a path of one segment). */
  private readonly first: string | undefined;
  private readonly rest: string;
  found = false;
  /** Whether a member has been read: elements given before any are the document's own (it is an array). */
  private inObject = false;
  private items: JsonItem[] = [];

  constructor({ items, key }: Pick<JsonOptions, 'items' | 'key'>) {
    this.path = items;
    this.key = key;
    const cut = items === undefined ? -1 : items.indexOf('.');
    this.first = cut < 0 ? items : items!.slice(0, cut);
    this.rest = cut < 0 ? '' : items!.slice(cut + 1);
    // A document that is an array has items without a path, and valueAtPath indexes it with one ("0.data").
    this.rootArray = items === EVERY_TOP_LEVEL_VALUE ? undefined : 'items';
  }

  take(): JsonItem[] {
    const taken = this.items;
    this.items = [];
    return taken;
  }

  readAs(name: string): MemberRead {
    this.inObject = true;
    if (this.path === EVERY_TOP_LEVEL_VALUE) return 'elements-or-value';
    if (name !== this.first) return 'value';
    if (this.found) throw new FeedFormatError('document', `${JSON.stringify(name)} appears twice (json.items)`);
    this.found = true;
    return this.rest === '' ? 'elements-or-value' : 'value';
  }

  element(member: string, index: number, record: unknown): void {
    if (this.path === undefined) this.items.push({ record, position: `items[${index}]` });
    else if (this.path === EVERY_TOP_LEVEL_VALUE) this.items.push({ record: this.keyed(record, member), position: `${keyLabel(member)}[${index}]` });
    else if (this.inObject) this.items.push({ record, position: `${this.path}[${index}]` });
    else if (String(index) === this.first) {
      // The path's first segment indexes the document's array.
      this.found = true;
      this.addArray(this.rest === '' ? record : valueAtPath(record, this.rest));
    }
  }

  value(name: string, value: unknown): void {
    if (this.path === EVERY_TOP_LEVEL_VALUE) {
      if (!isObject(value)) throw new FeedFormatError(keyLabel(name), 'a top-level value is not an array or object (json.items "*")');
      this.items.push({ record: this.keyed(value, name), position: keyLabel(name) });
    } else if (name === this.first) this.addArray(this.rest === '' ? value : valueAtPath(value, this.rest));
  }

  fail(problem: JsonProblem, _place: unknown, at: TextPoint): never {
    if (problem.code === 'not-object' || problem.code === 'empty') {
      const shape = this.path === undefined ? 'not an array of objects' : this.path === EVERY_TOP_LEVEL_VALUE ? NOT_KEYED : noArrayAt(this.path);
      throw new FeedFormatError('document', shape);
    }
    // JSON.parse has no position for a text cut short: the end is where the text is.
    if (problem.code === 'truncated') throw new FeedFormatError('document', 'not valid JSON: Unexpected end of JSON input');
    throw new FeedFormatError(`line ${at.line} column ${at.column}`, `not valid JSON: ${reason(problem)}`);
  }

  private addArray(items: unknown): void {
    if (!Array.isArray(items)) throw new FeedFormatError('document', noArrayAt(this.path!));
    items.forEach((record, i) => this.items.push({ record, position: `${this.path}[${i}]` }));
  }

  /**
   * The record with its top-level key as the field `key` names (the record's own field of that name
   * replaced: the source asked for the key there). The record was parsed for this item alone, so it
   * is changed in place; defined, not assigned, so a `key` of `__proto__` is a field as any other.
   */
  private keyed(record: unknown, name: string): unknown {
    if (this.key !== undefined && isObject(record)) Object.defineProperty(record, this.key, { value: name, writable: true, enumerable: true, configurable: true });
    return record;
  }
}

/** What is wrong, in JSON.parse's words where it has them (a document's problem is put as whole-document parsing would). */
function reason(problem: JsonProblem): string {
  switch (problem.code) {
    case 'expected-name':
      return 'Expected double-quoted property name';
    case 'bad-name':
      return 'a member name is not a valid JSON string';
    case 'expected-colon':
      return "Expected ':' after property name";
    case 'empty-element':
      return 'an empty element (a stray comma?)';
    case 'expected-element-end':
      return "Expected ',' or ']' after array element";
    case 'expected-member-end':
      return "Expected ',' or '}' after property value";
    case 'trailing-text':
      return 'Unexpected non-whitespace character after JSON';
    case 'invalid-json':
      // Neither V8's offset into the one value it was given, nor the piece of the body it quotes (a body may echo a key).
      return problem.reason.replace(/,\s*".*$/s, '').replace(/ in JSON at position \d+.*$/s, '');
    default:
      return problem.code;
  }
}

/** A top-level key as a position: as it is when plain (`1234`), else quoted (and cut when long). */
function keyLabel(name: string): string {
  if (/^[\w-]{1,64}$/.test(name)) return name;
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);
}
