// The items of a one-document json body (DESIGN 7, issue 33): the array itself, the array at `json.items`, or with `*` the records of every top-level value.
import { EVERY_TOP_LEVEL_VALUE, type JsonOptions } from '../formats/json-format.js';
import { FeedFormatError } from './feed-entry.js';
import { isObject, valueAtPath } from './json-document.js';

/** An item of a document, with where it is for messages (`data[3]`, `1234[0]`). */
export interface JsonItem {
  record: unknown;
  position: string;
}

/** The document's items, checked whole before the first is given: a body refused for its shape gives nothing. */
export function jsonItems(document: unknown, options: Pick<JsonOptions, 'items' | 'key'>): JsonItem[] {
  const path = options.items;
  if (path === EVERY_TOP_LEVEL_VALUE) return everyTopLevelValue(document, options.key);
  const items = path === undefined ? document : valueAtPath(document, path);
  if (!Array.isArray(items)) {
    throw new FeedFormatError('document', path === undefined ? 'not an array of objects' : `no array at "${path}" (json.items)`);
  }
  const label = path ?? 'items';
  return items.map((record, i) => ({ record, position: `${label}[${i}]` }));
}

/**
 * The records of `{"KEY": [RECORD, ...], "KEY": RECORD, ...}` (ThreatFox's export keys each IOC's
 * records by its id), in the order of the parsed object (integer keys ascending, then the others
 * as written; the order of a full list does not matter): positions `KEY[N]` for an array's
 * records, `KEY` for a lone one. With `key`, each record that is an object gets its top-level key as that field
 * (the record's own field of that name, if any, is replaced: the source asked for the key there).
 * A top-level value that is neither fails the body, at its key: the document is not this shape.
 */
function everyTopLevelValue(document: unknown, key: string | undefined): JsonItem[] {
  if (!isObject(document)) throw new FeedFormatError('document', 'not an object whose values are records or arrays of records (json.items "*")');
  const items: JsonItem[] = [];
  for (const [name, value] of Object.entries(document)) {
    const at = keyLabel(name);
    const keyed = (record: unknown) => (key !== undefined && isObject(record) ? { ...record, [key]: name } : record);
    if (Array.isArray(value)) value.forEach((record, i) => items.push({ record: keyed(record), position: `${at}[${i}]` }));
    else if (isObject(value)) items.push({ record: keyed(value), position: at });
    else throw new FeedFormatError(at, 'a top-level value is not an array or object (json.items "*")');
  }
  return items;
}

/** A top-level key as a position: as it is when plain (`1234`), else quoted (and cut when long). */
function keyLabel(name: string): string {
  if (/^[\w-]{1,64}$/.test(name)) return name;
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);
}
