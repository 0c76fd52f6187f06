// Conversions between the service's `YYYY-MM-DD HH:MM:SS` stamps and STIX 2.1 timestamps.

import { StixMappingError } from './stix-mapping-error.js';
import type { StixTimestamp } from './stix-types.js';

/**
 * The `created` of an object whose record has no `stamp_added`. It must be a constant: `created`
 * may never change between versions of one object (STIX 2.1 §3.2, `created`), so no later field
 * of the record (stamp_updated, stamp_seen) can stand in for it.
 */
export const STIX_EPOCH: StixTimestamp = '1970-01-01T00:00:00.000Z';

const STAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const NORMALIZED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/;
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))?$/;

/** The last value normalizeStixTime found already normalized (starts as one that is). */
let lastNormalized = '1970-01-01T00:00:00.000Z';

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True when the fields name a real UTC calendar time (2026-02-30, 25:00 and leap second 60 are
 * not), checked with arithmetic rather than a Date: this runs for every stamp of an import.
 */
export function isCalendarTime(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]!) return false;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return false;
  return hour < 24 && minute < 60 && second < 60;
}

/** True for a service stamp `YYYY-MM-DD HH:MM:SS` that names a real calendar time. */
export function isValidStamp(value: string): boolean {
  // Read digit by digit (every record of an import has stamps): the same test as STAMP, no match object.
  if (value.length !== 19) return false;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hour = digits(value, 11, 2);
  const minute = digits(value, 14, 2);
  const second = digits(value, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return false;
  // '-', '-', ' ', ':', ':'
  if (value.charCodeAt(4) !== 45 || value.charCodeAt(7) !== 45 || value.charCodeAt(10) !== 32) return false;
  if (value.charCodeAt(13) !== 58 || value.charCodeAt(16) !== 58) return false;
  return isCalendarTime(year, month, day, hour, minute, second);
}

/** The number written by `length` ASCII digits of `text` from `at`, or -1 if one is not a digit. */
function digits(text: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/**
 * A service stamp (`YYYY-MM-DD HH:MM:SS`, UTC) as a STIX timestamp `YYYY-MM-DDTHH:MM:SS.000Z`.
 * STIX 2.1 §3.2 wants `created`/`modified` precise to the millisecond, hence the `.000`.
 * The four-digit year of the stamp is already the form §2.15 asks for, so no Date is needed.
 */
export function stixTimeFromStamp(stamp: string): StixTimestamp {
  if (!isValidStamp(stamp)) {
    const problem = STAMP.test(stamp) ? 'is not a valid date and time' : 'is not a YYYY-MM-DD HH:MM:SS stamp';
    throw new StixMappingError('invalid-timestamp', `"${stamp}" ${problem}`);
  }
  return `${stamp.slice(0, 10)}T${stamp.slice(11)}.000Z`;
}

/** A Date as a STIX timestamp with millisecond precision, in UTC with `Z` (§2.15). */
export function stixTimeFromDate(date: Date): StixTimestamp {
  const time = date.getTime();
  if (Number.isNaN(time)) {
    throw new StixMappingError('invalid-timestamp', 'the date is invalid');
  }
  const year = date.getUTCFullYear();
  // §2.15 timestamps have a four-digit year; toISOString() writes ±YYYYYY outside 0000-9999.
  if (year < 0 || year > 9999) {
    throw new StixMappingError('invalid-timestamp', `the year ${year} is outside 0000-9999`);
  }
  return date.toISOString();
}

/**
 * An RFC 3339 timestamp (0-9 fractional digits, `Z` or an offset) or a service stamp, as a
 * millisecond STIX timestamp in UTC. Extra digits are truncated, not rounded, so that the order
 * of two inputs is never reversed (a version recorded later never looks older).
 */
export function normalizeStixTime(value: string): StixTimestamp {
  // An import gives every object it renders one `modified`: the last answer is kept.
  if (value === lastNormalized) return value;
  // Already normalized (every time the service writes itself): valid as it stands.
  const fixed = NORMALIZED.exec(value);
  if (fixed !== null && isCalendarTime(Number(fixed[1]), Number(fixed[2]), Number(fixed[3]), Number(fixed[4]), Number(fixed[5]), Number(fixed[6]))) {
    lastNormalized = value;
    return value;
  }
  const match = RFC3339.exec(value);
  if (match === null) {
    throw new StixMappingError('invalid-timestamp', `"${value}" is not an RFC 3339 timestamp`);
  }
  const fraction = match[7] ?? '';
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  let time = utcMilliseconds(value, match, milliseconds);
  if (match[9] !== undefined) {
    const offsetMinutes = Number(match[10]) * 60 + Number(match[11]);
    if (Number(match[10]) > 23 || Number(match[11]) > 59) {
      throw new StixMappingError('invalid-timestamp', `"${value}" has an invalid UTC offset`);
    }
    time -= (match[9] === '+' ? 1 : -1) * offsetMinutes * 60_000;
  }
  return stixTimeFromDate(new Date(time));
}

/**
 * The later of two normalized STIX timestamps. Both have the fixed form
 * `YYYY-MM-DDTHH:MM:SS.mmmZ`, so string order is time order.
 */
export function laterStixTime(a: StixTimestamp, b: StixTimestamp): StixTimestamp {
  return a >= b ? a : b;
}

/** The normalized timestamp one millisecond after `value`. */
export function stixTimeAfter(value: StixTimestamp): StixTimestamp {
  return stixTimeFromDate(new Date(Date.parse(normalizeStixTime(value)) + 1));
}

/** Epoch milliseconds of the date and time fields of a match, rejecting impossible dates. */
function utcMilliseconds(input: string, match: RegExpExecArray, milliseconds: number): number {
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number, number, number, number, number, number,
  ];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, milliseconds);
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  if (!valid) {
    // Also rejects leap second 60, which a JavaScript Date cannot hold.
    throw new StixMappingError('invalid-timestamp', `"${input}" is not a valid date and time`);
  }
  return date.getTime();
}
