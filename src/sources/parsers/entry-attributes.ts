// A row's attributes as the csv and json readers fill them (docs/sources.md, "Feed shapes", Attributes): cells cleaned, split and bounded, and the port of an `ADDRESS:PORT` value.
import { isIP } from 'node:net';
import { ATTRIBUTE_LIMITS } from '../../store/contract/write-batch.js';
import { withoutControlCharacters } from '../control-characters.js';
import type { FeedEntry } from './feed-entry.js';

/** Values one attribute keeps from one row: a tags cell is a handful, not a document. */
export const MAX_ATTRIBUTE_VALUES = 16;

/**
 * The values a cell or field gives an attribute: a string (cut at `split` when given), a finite
 * number as its decimal text, or each such element of an array; anything else (null, booleans,
 * objects, nested arrays) gives nothing. Each value loses its control characters and surrounding
 * blanks; empty values, and those longer than the store keeps (left out rather than cut into a
 * value the feed never gave), are left out, a value given twice is kept once, and at most
 * MAX_ATTRIBUTE_VALUES are kept, the first ones.
 */
export function attributeValues(raw: unknown, split?: string): string[] {
  const values: string[] = [];
  const keep = (piece: string) => {
    const value = withoutControlCharacters(piece).trim();
    if (value !== '' && value.length <= ATTRIBUTE_LIMITS.valueLength && !values.includes(value) && values.length < MAX_ATTRIBUTE_VALUES) values.push(value);
  };
  const add = (item: unknown) => {
    if (typeof item === 'number' && Number.isFinite(item)) keep(String(item));
    else if (typeof item === 'string') for (const piece of split === undefined ? [item] : item.split(split)) keep(piece);
  };
  if (Array.isArray(raw)) raw.forEach(add);
  else add(raw);
  return values;
}

/** Adds `values` to the entry's attribute `name`, each once, within MAX_ATTRIBUTE_VALUES; nothing when there are none. */
export function addAttribute(entry: FeedEntry, name: string, values: readonly string[]): void {
  if (values.length === 0) return;
  const attributes = (entry.attributes ??= {});
  const kept = Object.hasOwn(attributes, name) ? attributes[name]! : (attributes[name] = []);
  for (const value of values) if (kept.length < MAX_ATTRIBUTE_VALUES && !kept.includes(value)) kept.push(value);
}

/** `192.0.2.1:8080` or `[2001:db8::1]:443`; the address is checked below. */
const ADDRESS_PORT = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9A-Fa-f:.]+)\]):(\d{1,5})$/;

/**
 * An `ADDRESS:PORT` value (ThreatFox's `ip:port` type) as its address and port: the port is no part
 * of an IP indicator, but it is what the feed said about that address, so the readers
 * keep it as the `port` attribute. Undefined for anything else, a port above 65535 included.
 */
export function addressAndPort(value: string): { address: string; port: string } | undefined {
  const match = ADDRESS_PORT.exec(value);
  if (match === null) return undefined;
  const [, ipv4, ipv6, port = ''] = match;
  // Octets are checked by value, not by isIP: a feed's `192.0.02.1` is normalized later, not refused here.
  const address = ipv4 ?? ipv6!;
  const valid = ipv4 !== undefined ? ipv4.split('.').every((octet) => Number(octet) <= 255) : isIP(address) === 6;
  if (!valid || Number(port) > 65_535) return undefined;
  return { address, port: String(Number(port)) };
}

/** The entry's value without its port, the port added as the `port` attribute, when the value is `ADDRESS:PORT`. */
export function splitPort(entry: FeedEntry): void {
  const split = addressAndPort(entry.value);
  if (split === undefined) return;
  entry.value = split.address;
  addAttribute(entry, 'port', [split.port]);
}
