// Timestamps of the demo data, all counted back from one instant, the anchor: the caller's "now".
// The anchor is the only input that moves the stamps, so for a given anchor the output never depends on the clock.

export const MINUTE = 60;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * 2026-01-01 00:00:00 UTC, in milliseconds since the epoch: the anchor when a caller passes no
 * `now` (tests and benches that need a data set but no particular time).
 */
export const DEMO_REFERENCE_NOW = Date.UTC(2026, 0, 1);

/**
 * The demo's anchor for a caller's `now` (milliseconds since the epoch): seconds since the epoch,
 * rounded down to the whole second, the resolution of a stamp. Stamps are whole seconds counted
 * back from it, so every `now` within one second gives the same data set.
 */
export function demoAnchor(nowMs: number): number {
  if (!Number.isFinite(nowMs) || nowMs < 0) throw new RangeError(`generateDemo: now must be milliseconds since the epoch, got ${nowMs}`);
  return Math.floor(nowMs / 1000);
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/**
 * Formats seconds since the epoch as the interface's `YYYY-MM-DD HH:MM:SS` (UTC, docs/interface.md section 1).
 * Integer calendar arithmetic instead of `Date#toISOString`: the demo formats a few hundred
 * thousand stamps and the Date route cost most of the generator's run time.
 */
export function toStamp(epochSeconds: number): string {
  const seconds = Math.floor(epochSeconds);
  const days = Math.floor(seconds / DAY);
  const inDay = seconds - days * DAY;
  const time = `${TWO_DIGITS[Math.floor(inDay / HOUR)]}:${TWO_DIGITS[Math.floor((inDay % HOUR) / MINUTE)]}:${TWO_DIGITS[inDay % MINUTE]}`;
  return `${civilDate(days)} ${time}`;
}

/** Parses a spec stamp back to seconds since the epoch (UTC); digits are read by char code to stay cheap. */
export function fromStamp(stamp: string): number {
  const days = daysFromCivil(digits(stamp, 0, 4), digits(stamp, 5, 2), digits(stamp, 8, 2));
  return days * DAY + digits(stamp, 11, 2) * HOUR + digits(stamp, 14, 2) * MINUTE + digits(stamp, 17, 2);
}

function digits(text: string, from: number, length: number): number {
  let value = 0;
  for (let i = from; i < from + length; i++) value = value * 10 + text.charCodeAt(i) - 48;
  return value;
}

// Howard Hinnant's days <-> proleptic Gregorian date algorithms (chrono-Compatible Low-Level Date Algorithms).
function civilDate(daysSinceEpoch: number): string {
  const z = daysSinceEpoch + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return `${yoe + era * 400 + (month <= 2 ? 1 : 0)}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
}

function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
