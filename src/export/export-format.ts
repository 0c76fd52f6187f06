// The export formats (docs/interface.md section 11), pure: the options a request or a command line gives, and rows as lines.
import { csvField } from '../text/csv-field.js';
import { indicatorTypeOf, INDICATOR_TYPES, type IndicatorType } from '../indicator-types.js';
import { ThreatgateError } from '../errors.js';

export const EXPORT_FORMATS = ['txt', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** `panos`: URLs without their scheme, as PAN-OS URL lists take them. */
export const EXPORT_STYLES = ['panos'] as const;
export type ExportStyle = (typeof EXPORT_STYLES)[number];

export interface ExportOptions {
  format: ExportFormat;
  /** Stored type names; undefined: every type. */
  types?: readonly string[] | undefined;
  style?: ExportStyle | undefined;
  /** At most this many lines, chosen by risk, then stamp_seen, then value (docs/interface.md section 11); undefined: every line. */
  max?: number | undefined;
}

/**
 * The largest `max`: above every device limit named in device-limits.ts. The lines `max` keeps are
 * chosen before the first is sent, their ids held while they are, so the ceiling bounds that memory.
 */
export const MAX_LINES = 1_000_000;

/** The row fields a format reads (a store's ExportRow has them). */
export interface ExportLine {
  value: string;
  type: string;
  risk: string;
  stamp_seen: string | null;
  threats: readonly string[];
}

export const CSV_HEADER = 'value,type,risk,stamp_seen,threats\r\n';

/** Why a value of an option was refused; the caller names the parameter or flag it came from. */
export class ExportOptionError extends ThreatgateError {}

/**
 * The types a pull never stores, and the types it stores such values under (sources/normalize-value.ts):
 * an IPv4 address is `ip`; a CIDR block is `ip` or `ipv6`, by its family, with its `/prefix`; a
 * hostname is `domain`, a URI `url`. Asked for, each lists those as well, else `?type=cidr` would
 * always be empty for pulled data. An import stores the name a record gives, so each also lists
 * its own name.
 */
const STORED_AS: Readonly<Partial<Record<IndicatorType, readonly IndicatorType[]>>> = {
  ipv4: ['ip'],
  cidr: ['ip', 'ipv6'],
  hostname: ['domain'],
  uri: ['url'],
};

/**
 * `ip,domain,url`: each a type of the vocabulary (case ignored), as the stored type names it lists
 * (STORED_AS), kept once each in the order given.
 */
export function parseTypes(list: string): string[] {
  const types: string[] = [];
  for (const name of list.split(',')) {
    const type = indicatorTypeOf(name);
    if (type === undefined) {
      throw new ExportOptionError(`"${name.slice(0, 40)}" is not an indicator type; use a comma-separated list of ${INDICATOR_TYPES.join(', ')}`);
    }
    for (const stored of [type, ...(STORED_AS[type] ?? [])]) if (!types.includes(stored)) types.push(stored);
  }
  return types;
}

export function parseStyle(style: string): ExportStyle {
  if (!(EXPORT_STYLES as readonly string[]).includes(style)) throw new ExportOptionError(`"${style.slice(0, 40)}" is not a style; the one style is ${EXPORT_STYLES.join(', ')}`);
  return style as ExportStyle;
}

/** A whole number of lines from 1 to MAX_LINES, in decimal digits alone (no sign, point or exponent). */
export function parseMax(text: string): number {
  const max = /^\d{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(max >= 1 && max <= MAX_LINES)) throw new ExportOptionError(`"${text.slice(0, 40)}" is not a whole number of lines from 1 to ${MAX_LINES}`);
  return max;
}

export function parseFormat(format: string): ExportFormat {
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new ExportOptionError(`"${format.slice(0, 40)}" is not a format; use ${EXPORT_FORMATS.join(' or ')}`);
  return format as ExportFormat;
}

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;
const LINE_BREAK = /[\r\n]/;

/** The value as the style writes it: with `panos`, a URL's scheme (`https://`) is left off. */
export function styledValue(row: ExportLine, style: ExportStyle | undefined): string {
  return style === 'panos' && (row.type === 'url' || row.type === 'uri') ? row.value.replace(SCHEME, '') : row.value;
}

/** A CSV cell (text/csv-field.ts); the plain-text list has no cells and is written as stored. */
export { csvField };

/**
 * One page of rows as text. A plain-text line is the value alone; a value holding a line break
 * cannot be one line, and is left out rather than split (a device would read each piece as an
 * entry of its own). CSV records end with CRLF (RFC 4180 section 2); `threats` joins names with `|`.
 */
export function renderRows(rows: readonly ExportLine[], options: ExportOptions): string {
  let text = '';
  if (options.format === 'txt') {
    for (const row of rows) {
      const value = styledValue(row, options.style);
      if (!LINE_BREAK.test(value)) text += `${value}\n`;
    }
    return text;
  }
  for (const row of rows) {
    text += `${csvField(styledValue(row, options.style))},${csvField(row.type)},${csvField(row.risk)},${csvField(row.stamp_seen ?? '')},${csvField(row.threats.join('|'))}\r\n`;
  }
  return text;
}
