// Source schedules (DESIGN 7): parse `hourly`, `daily`, `weekly`, `every N<unit>` or 5-field cron, and find the next run.

/** A schedule string that does not parse; the message names the problem, never a secret. */
export class ScheduleError extends Error {
  override name = 'ScheduleError';
}

/** `every N`: runs N seconds after the previous pull's start, wherever that fell. */
export interface IntervalSchedule {
  readonly kind: 'interval';
  readonly text: string;
  readonly seconds: number;
}

/** Cron (and `hourly`/`daily`/`weekly`, which are cron entries): runs at fixed UTC minutes. */
export interface CronSchedule {
  readonly kind: 'cron';
  readonly text: string;
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[];
  readonly months: readonly number[];
  /** 0-6, Sunday 0 (a 7 in the expression is folded to 0). */
  readonly daysOfWeek: readonly number[];
  /** Whether the field was written without a leading `*`; decides the dom/dow rule. */
  readonly domRestricted: boolean;
  readonly dowRestricted: boolean;
}

export type Schedule = IntervalSchedule | CronSchedule;

/**
 * Shorter intervals would re-fetch a feed faster than most publishers allow and can start a pull
 * before the previous one's timeout has run out; DESIGN's own example (`every 30s`) stays valid.
 */
export const MIN_INTERVAL_SECONDS = 10;
/** A year and a day: longer is not a schedule, and keeps every date arithmetic far from overflow. */
export const MAX_INTERVAL_SECONDS = 366 * 86_400;

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * The named schedules run on the clock, not at intervals from the last pull: `hourly` on the hour,
 * `daily` at 00:00 UTC, `weekly` Monday 00:00 UTC. Aligned runs survive restarts unchanged, give
 * every instance sharing a store the same due time, and match how publishers refresh their lists.
 * `every N` is the form for "N after the last pull".
 */
const NAMED: Readonly<Record<string, string>> = { hourly: '0 * * * *', daily: '0 0 * * *', weekly: '0 0 * * 1' };

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
}

const FIELDS: readonly FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day-of-month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day-of-week', min: 0, max: 7, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/** The longest a month can be (February counted with its leap day). */
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function parseValue(text: string, field: FieldSpec, expression: string): number {
  const byName = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (byName >= 0) return byName + (field.name === 'month' ? 1 : 0);
  if (!/^\d+$/.test(text)) throw new ScheduleError(`"${expression}": ${field.name} "${text}" is not a number`);
  const value = Number(text);
  if (value < field.min || value > field.max) {
    throw new ScheduleError(`"${expression}": ${field.name} ${value} is out of range ${field.min}-${field.max}`);
  }
  return value;
}

/** One cron field: `*`, `n`, `a-b`, lists of those, and steps `*\/n` or `a-b/n`. */
function parseField(text: string, field: FieldSpec, expression: string): number[] {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^([^/]+)(?:\/(\d+))?$/.exec(part);
    if (!match) throw new ScheduleError(`"${expression}": ${field.name} "${part}" is not a value, range or step`);
    const [, range = '', stepText] = match;
    let low: number;
    let high: number;
    if (range === '*') [low, high] = [field.min, field.max];
    else if (range.includes('-')) {
      const [a = '', b = '', ...rest] = range.split('-');
      if (rest.length > 0) throw new ScheduleError(`"${expression}": ${field.name} "${part}" is not a range`);
      [low, high] = [parseValue(a, field, expression), parseValue(b, field, expression)];
      if (low > high) throw new ScheduleError(`"${expression}": ${field.name} range ${range} runs backwards`);
    } else if (stepText !== undefined) {
      // `5/15` means different things to different crons; ask for the explicit `5-59/15`.
      throw new ScheduleError(`"${expression}": ${field.name} step "${part}" needs * or a range before the /`);
    } else low = high = parseValue(range, field, expression);
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1 || step > field.max - field.min + 1) {
      throw new ScheduleError(`"${expression}": ${field.name} step ${stepText} is out of range 1-${field.max - field.min + 1}`);
    }
    for (let v = low; v <= high; v += step) values.add(v);
  }
  return [...values].sort((x, y) => x - y);
}

function parseCron(text: string): CronSchedule {
  const parts = text.split(/\s+/);
  if (parts.length !== 5) {
    throw new ScheduleError(`"${text}" is not a schedule: use hourly, daily, weekly, "every N" with s, m, h or d, or 5 cron fields (it has ${parts.length})`);
  }
  const [minutes, hours, daysOfMonth, months, rawDays] = parts.map((part, i) => parseField(part, FIELDS[i]!, text)) as [number[], number[], number[], number[], number[]];
  const daysOfWeek = [...new Set(rawDays.map((d) => d % 7))].sort((x, y) => x - y);
  // Vixie cron's rule: a field starting with `*` (even `*/2`) is not "restricted", so the day needs both.
  const domRestricted = !parts[2]!.startsWith('*');
  const dowRestricted = !parts[4]!.startsWith('*');
  // With the weekday free, the day of the month alone decides: refuse dates no year has (`31 2`),
  // found statically rather than by searching years ahead. Feb 29 is allowed (leap years).
  if (!dowRestricted && !months.some((m) => daysOfMonth.some((d) => d <= MONTH_DAYS[m - 1]!))) {
    throw new ScheduleError(`"${text}" never runs: no chosen month has day ${daysOfMonth.join(',')}`);
  }
  return { kind: 'cron', text, minutes, hours, daysOfMonth, months, daysOfWeek, domRestricted, dowRestricted };
}

/** Parses a schedule; keywords and names are case-insensitive and `every 6h` may be `every 6 h`. */
export function parseSchedule(text: string): Schedule {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  if (trimmed === '') throw new ScheduleError('the schedule is empty');
  const lower = trimmed.toLowerCase();
  const named = NAMED[lower];
  if (named !== undefined) return { ...parseCron(named), text: lower };
  if (lower.startsWith('every')) {
    const match = /^every ?(\d+) ?([a-z]+)$/.exec(lower);
    if (!match) throw new ScheduleError(`"${trimmed}": write "every N" and a unit, as in "every 30s" or "every 6h"`);
    const [, count = '', unit = ''] = match;
    const unitSeconds = UNIT_SECONDS[unit];
    if (unitSeconds === undefined) throw new ScheduleError(`"${trimmed}": unit "${unit}" is not s, m, h or d`);
    const seconds = Number(count) * unitSeconds;
    if (seconds < MIN_INTERVAL_SECONDS) {
      throw new ScheduleError(`"${trimmed}": the interval must be at least ${MIN_INTERVAL_SECONDS}s, so a pull is not started before the previous one can time out`);
    }
    if (seconds > MAX_INTERVAL_SECONDS) throw new ScheduleError(`"${trimmed}": the interval must be at most 366d`);
    return { kind: 'interval', text: lower, seconds };
  }
  return parseCron(trimmed);
}

/** The feed's own `schedule` when it parses, else `daily` (DESIGN 7). */
export function scheduleFromFeed(feedSchedule: string): Schedule {
  try {
    return parseSchedule(feedSchedule);
  } catch (error) {
    if (error instanceof ScheduleError) return parseSchedule('daily');
    throw error;
  }
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** 2096-02-29 to 2104-02-29 is the longest wait for a day cron accepts; search a little beyond. */
const MAX_SEARCH_DAYS = 9 * 366;

function dayMatches(schedule: CronSchedule, day: Date): boolean {
  if (!schedule.months.includes(day.getUTCMonth() + 1)) return false;
  const dom = schedule.daysOfMonth.includes(day.getUTCDate());
  const dow = schedule.daysOfWeek.includes(day.getUTCDay());
  // Both restricted: either matches (crontab(5)); otherwise the unrestricted one matches every day.
  if (schedule.domRestricted && schedule.dowRestricted) return dom || dow;
  return dom && dow;
}

/** The first run strictly after `after`, in UTC. For `every N`, `after` is the last pull's start. */
export function nextRun(schedule: Schedule, after: Date): Date {
  if (schedule.kind === 'interval') return new Date(after.getTime() + schedule.seconds * 1000);
  const start = Math.floor(after.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const firstDay = Math.floor(start / DAY_MS) * DAY_MS;
  for (let i = 0; i <= MAX_SEARCH_DAYS; i++) {
    const dayStart = firstDay + i * DAY_MS;
    if (!dayMatches(schedule, new Date(dayStart))) continue;
    const fromMinute = i === 0 ? (start - dayStart) / MINUTE_MS : 0;
    for (const hour of schedule.hours) {
      for (const minute of schedule.minutes) {
        if (hour * 60 + minute >= fromMinute) return new Date(dayStart + (hour * 60 + minute) * MINUTE_MS);
      }
    }
  }
  throw new ScheduleError(`"${schedule.text}" has no run in the ${MAX_SEARCH_DAYS} days after ${after.toISOString()}`);
}

/** The first retry waits a minute; each further consecutive failure doubles it. */
export const FIRST_RETRY_MS = 60_000;

/**
 * How long to wait before retrying after `failures` consecutive failed pulls (DESIGN 7: 1 min
 * doubling, at most the schedule). "At most the schedule" is, for every kind, the time from `now`
 * to the schedule's next regular run: a retry never waits past the pull that would happen anyway.
 * For `every N` that is N itself.
 */
export function retryDelay(failures: number, schedule: Schedule, now: Date): number {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be a whole number >= 1 (got ${failures})`);
  const backoff = FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 40);
  return Math.min(backoff, nextRun(schedule, now).getTime() - now.getTime());
}
