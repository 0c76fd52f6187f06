// TAXII timestamps: date_added values are integer microseconds; the wire form is RFC 3339 with 6 digits.
import { BadRequestError } from '../errors.js';

/** `2026-01-15T10:00:00.123456Z` from microseconds since the epoch. */
export function formatMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const extra = micros - ms * 1000;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 23)}${String(extra).padStart(3, '0')}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([Zz]|[+-]\d{2}:\d{2})$/;
const SPEC_STAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/**
 * Parses RFC 3339 with 0-6 fractional digits (any offset) or the lookup API's `YYYY-MM-DD HH:MM:SS`
 * (UTC) into microseconds; undefined when malformed or not a real calendar time.
 */
export function parseTimestampMicros(text: string): number | undefined {
  const m = RFC3339.exec(text) ?? SPEC_STAMP.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m;
  const fraction = m.length > 8 ? (m[7] ?? '') : '';
  const offset = m.length > 8 ? m[8]! : 'Z';
  // setUTCFullYear, not Date.UTC, which reads years 0-99 as 1900-1999 (clients send 0001-01-01 as "the beginning").
  const check = new Date(0);
  check.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  check.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const base = check.getTime();
  if (
    Number.isNaN(base) ||
    check.getUTCFullYear() !== Number(y) ||
    check.getUTCMonth() !== Number(mo) - 1 ||
    check.getUTCDate() !== Number(d) ||
    check.getUTCHours() !== Number(h) ||
    check.getUTCMinutes() !== Number(mi) ||
    check.getUTCSeconds() !== Number(s)
  ) {
    return undefined;
  }
  let offsetMs = 0;
  if (offset.toUpperCase() !== 'Z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const [oh, om] = offset.slice(1).split(':').map(Number) as [number, number];
    if (oh > 23 || om > 59) return undefined;
    offsetMs = sign * (oh * 60 + om) * 60_000;
  }
  return (base - offsetMs) * 1000 + Number(fraction.padEnd(6, '0'));
}

export function timestampParam(name: string, text: string): number {
  const micros = parseTimestampMicros(text);
  if (micros === undefined) {
    throw new BadRequestError(`Parameter "${name}" must be an RFC 3339 timestamp such as 2026-01-15T10:00:00.123456Z (or "YYYY-MM-DD HH:MM:SS").`);
  }
  return micros;
}
