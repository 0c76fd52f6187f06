// Source schedules (docs/interface.md section 10, "Feed sources"): parse `hourly`, `daily`, `weekly`, `every N<unit>` or 5-field cron (with croner), and find the next run.
import { Cron } from 'croner';
import { ThreatgateError } from '../errors.js';

/** A schedule string that does not parse; the message names the problem, never a secret. */
export class ScheduleError extends ThreatgateError {}

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
  /** The expression as croner parsed it, evaluated in UTC; it schedules nothing itself. */
  readonly cron: Cron;
}

export type Schedule = IntervalSchedule | CronSchedule;

/**
 * Shorter intervals would re-fetch a feed faster than most publishers allow and can start a pull
 * before the previous one's timeout has run out; `every 30s` stays valid.
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

/** The five fields, for messages: what each one is and the values it takes. */
const FIELDS: readonly { readonly name: string; readonly values: string }[] = [
  { name: 'minute', values: '0-59' },
  { name: 'hour', values: '0-23' },
  { name: 'day-of-month', values: '1-31' },
  { name: 'month', values: '1-12 or jan-dec' },
  { name: 'day-of-week', values: '0-7 or sun-sat (0 and 7 are Sunday)' },
];

/**
 * Times in UTC, so every instance and every restart agrees (no daylight saving time either), and
 * exactly five fields: croner would also read a seconds field first (`0 0 * * * *`), which
 * would shift every field of an expression meant for crontab. croner's other extensions within the
 * five fields (`L`, `W`, `#`, `?`, a `+` before the weekday) mean what they say and are accepted.
 */
const CRON_OPTIONS = { timezone: 'UTC', mode: '5-part' } as const;

/**
 * A 5-field cron expression, parsed by croner. Two rules are settled here rather than left to it:
 * - The field count, for a message that names the other forms (`monthly` is one field, and croner
 *   would read `@weekly` as Sunday where our `weekly` is Monday).
 * - Day of month and day of week: Vixie cron (crontab(5)) runs on a day matching either when both
 *   are restricted, and needs both when either starts with `*`, even `*\/2`. croner's default
 *   (OR, AND only for a bare `*`) differs for the `*\/N` forms, so ask it for AND there.
 */
function parseCron(text: string): CronSchedule {
  const fields = text.split(' ');
  if (fields.length !== 5) {
    throw new ScheduleError(`"${text}" is not a schedule: use hourly, daily, weekly, "every N" with s, m, h or d, or 5 cron fields (it has ${fields.length})`);
  }
  const startsWild = (field: string) => field.startsWith('*') || field.startsWith('?');
  let cron: Cron;
  try {
    cron = new Cron(text, { ...CRON_OPTIONS, domAndDow: startsWild(fields[2]!) || startsWild(fields[4]!) });
  } catch (error) {
    throw refusal(text, fields, error);
  }
  // With no year field, a date that matches once matches again, so none from now on means never.
  if (cron.nextRun(new Date()) === null) {
    const why = fields[4] === '*' || fields[4] === '?' ? `no chosen month has day ${fields[2]}` : 'no date matches its day of month, month and day of week';
    throw new ScheduleError(`"${text}" never runs: ${why}`);
  }
  return { kind: 'cron', text, cron };
}

/** Why croner refused `text`: the first field it refuses alone, with the values that field takes. */
function refusal(text: string, fields: readonly string[], error: unknown): ScheduleError {
  for (const [i, field] of FIELDS.entries()) {
    try {
      new Cron(FIELDS.map((_, j) => (j === i ? fields[j] : '*')).join(' '), CRON_OPTIONS);
    } catch {
      return new ScheduleError(
        `"${text}": ${field.name} "${fields[i]}" is not valid; it takes ${field.values}, *, lists (1,5), ranges (1-5) and steps (*/15 or 0-30/15)`,
      );
    }
  }
  // Each field is fine alone but not together (croner's `+` or `L` combinations): croner's reason.
  const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : String(error);
  return new ScheduleError(`"${text}" is not a valid cron expression: ${reason}`);
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

/** The feed's own `schedule` when it parses, else `daily` (docs/interface.md section 10, "Feed sources"). */
export function scheduleFromFeed(feedSchedule: string): Schedule {
  try {
    return parseSchedule(feedSchedule);
  } catch (error) {
    if (error instanceof ScheduleError) return parseSchedule('daily');
    throw error;
  }
}

/** The first run strictly after `after`, in UTC. For `every N`, `after` is the last pull's start. */
export function nextRun(schedule: Schedule, after: Date): Date {
  if (schedule.kind === 'interval') return new Date(after.getTime() + schedule.seconds * 1000);
  const next = schedule.cron.nextRun(after);
  // parseSchedule refuses expressions that never run; croner stops searching at year 9999.
  if (next === null) throw new ScheduleError(`"${schedule.text}" has no run after ${after.toISOString()}`);
  return next;
}

/** The first retry waits a minute; each further consecutive failure doubles it. */
export const FIRST_RETRY_MS = 60_000;

/**
 * How long to wait before retrying after `failures` consecutive failed pulls (1 min doubling, at
 * most the schedule: docs/interface.md section 10, "Pulls"). "At most the schedule" is, for every kind, the time from `now`
 * to the schedule's next regular run: a retry never waits past the pull that would happen anyway.
 * For `every N` that is N itself.
 */
export function retryDelay(failures: number, schedule: Schedule, now: Date): number {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be a whole number >= 1 (got ${failures})`);
  const backoff = FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 40);
  return Math.min(backoff, nextRun(schedule, now).getTime() - now.getTime());
}
