// When a sighting was seen (`--at`, `at`; docs/observations.md, "When it was seen"): a timestamp in
// one of the forms people paste, read as a stamp of the store, UTC to the second.
import { formatStamp } from '../clock.js';

/**
 * How far ahead of the service's clock a time may be and still be taken, as now: the reporter's
 * clock and ours are never exactly alike, and a sighting reported "now" from a host a little ahead
 * must not be refused. Anything later is in the future, and refused.
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** RFC 3339 `date-time` (section 5.6): `T`, `t` or a blank between date and time (its note there), a zone required. */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
/** The store's own form, `YYYY-MM-DD HH:MM:SS`, in UTC (docs/interface.md section 1). */
const STAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
/** A date alone: its first second, UTC. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export const TIME_FORMS = 'RFC 3339 (2026-03-02T08:00:00Z), YYYY-MM-DD HH:MM:SS in UTC, or a date (YYYY-MM-DD)';

/** Whether the fields are a real date and time (no 2026-02-30, no 24:00:00; a leap second is refused, as JavaScript's Date has none). */
function isCalendarTime(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day && date.getUTCHours() === hour && date.getUTCMinutes() === minute && date.getUTCSeconds() === second
  );
}

/** The instant `text` names, in ms since the epoch (fractions of a second dropped), or undefined when it is none of TIME_FORMS. */
export function parseObservationTime(text: string): number | undefined {
  const trimmed = text.trim();
  const match = RFC_3339.exec(trimmed) ?? STAMP.exec(trimmed) ?? DATE.exec(trimmed);
  if (match === null) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part))) as number[];
  if (!isCalendarTime(year!, month!, day!, hour, minute, second)) return undefined;
  const utc = Date.UTC(year!, month! - 1, day!, hour, minute, second);
  const zone = match.length > 8 ? match[8] : undefined;
  if (zone === undefined || zone === 'Z' || zone === 'z') return utc;
  const offsetHours = Number(zone.slice(1, 3));
  const offsetMinutes = Number(zone.slice(4, 6));
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000;
  // A zone east of UTC (`+02:00`) is ahead of it: its local time is later than the same instant in UTC.
  return zone.startsWith('+') ? utc - offset : utc + offset;
}

/**
 * The stamp a sighting was seen at: `now` when no time is given; a time up to CLOCK_SKEW_MS ahead of
 * `now` is `now` (a sighting is never seen after it is reported). A time that cannot be taken comes back as
 * what is wrong with it, worded to follow the field's name.
 */
export function seenStamp(text: string | null | undefined, now: number): { stamp: string } | { problem: string } {
  if (text === null || text === undefined || text.trim() === '') return { stamp: formatStamp(now) };
  const at = parseObservationTime(text);
  if (at === undefined) return { problem: `must be a timestamp: ${TIME_FORMS}` };
  if (at > now + CLOCK_SKEW_MS) return { problem: `is in the future (it is ${formatStamp(now)} UTC now)` };
  if (at < 0) return { problem: 'is before 1970' };
  return { stamp: formatStamp(Math.min(at, now)) };
}
