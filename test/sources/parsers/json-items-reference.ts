// Test helper: a json document's items as the whole-document reader found them (JSON.parse, then the items), the reference the streaming scanner is held to.
import { valueAtPath } from '../../../src/sources/parsers/json-document.js';

export interface ReferenceItem {
  record: unknown;
  position: string;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A top-level key as a position, as the reader labels it. */
export function keyLabel(name: string): string {
  if (/^[\w-]{1,64}$/.test(name)) return name;
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);
}

/**
 * The items of `text` as the reader found them before it streamed (`json.items` absent, a path, or
 * `*`), in the parsed object's order; throws for a document it refused (the message is not compared).
 */
export function referenceItems(text: string, items: string | undefined, key?: string): ReferenceItem[] {
  const document: unknown = JSON.parse(text);
  if (items === '*') {
    if (!isObject(document)) throw new Error('not an object');
    const out: ReferenceItem[] = [];
    for (const [name, value] of Object.entries(document)) {
      const keyed = (record: unknown) => (key !== undefined && isObject(record) ? { ...record, [key]: name } : record);
      if (Array.isArray(value)) value.forEach((record, i) => out.push({ record: keyed(record), position: `${keyLabel(name)}[${i}]` }));
      else if (isObject(value)) out.push({ record: keyed(value), position: keyLabel(name) });
      else throw new Error(`not an array or object at ${name}`);
    }
    return out;
  }
  const found = items === undefined ? document : valueAtPath(document, items);
  if (!Array.isArray(found)) throw new Error('no array');
  return found.map((record, i) => ({ record, position: `${items ?? 'items'}[${i}]` }));
}
