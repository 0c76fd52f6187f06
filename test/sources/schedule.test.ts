// Schedules: every form parses, bad ones are refused with the reason, and runs and retries fall where docs/interface.md section 10 says.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextRun, parseSchedule, retryDelay, scheduleFromFeed, ScheduleError, type Schedule } from '../../src/sources/schedule.js';

const at = (iso: string) => new Date(iso);
const parsed = (text: string): Schedule => parseSchedule(text);

describe('parseSchedule', () => {
  const intervals: [string, number][] = [
    ['every 30s', 30],
    ['every 10s', 10],
    ['every 6h', 6 * 3600],
    ['every 15m', 900],
    ['every 2d', 2 * 86_400],
    ['every 6 h', 6 * 3600],
    ['  EVERY 5M ', 300],
    ['every 366d', 366 * 86_400],
  ];
  for (const [text, seconds] of intervals) {
    it(`reads "${text}" as an interval of ${seconds} s`, () => {
      const schedule = parsed(text);
      assert.equal(schedule.kind, 'interval');
      assert.equal(schedule.kind === 'interval' && schedule.seconds, seconds);
    });
  }

  // Read through their runs: the parsed form is croner's, and the runs are what a schedule is for.
  const crons: [string, string, string[]][] = [
    ['hourly', '2026-03-04T05:06:07Z', ['2026-03-04T06:00:00Z', '2026-03-04T07:00:00Z', '2026-03-04T08:00:00Z']],
    ['Daily', '2026-03-04T05:06:07Z', ['2026-03-05T00:00:00Z', '2026-03-06T00:00:00Z']],
    ['weekly', '2026-03-04T05:06:07Z', ['2026-03-09T00:00:00Z', '2026-03-16T00:00:00Z']],
    ['*/15 * * * *', '2026-03-04T05:00:00Z', ['2026-03-04T05:15:00Z', '2026-03-04T05:30:00Z', '2026-03-04T05:45:00Z', '2026-03-04T06:00:00Z']],
    ['5,10-12 */6 * * *', '2026-03-04T00:00:00Z', ['2026-03-04T00:05:00Z', '2026-03-04T00:10:00Z', '2026-03-04T00:11:00Z', '2026-03-04T00:12:00Z', '2026-03-04T06:05:00Z']],
    ['0 8-18/5 * * *', '2026-03-04T00:00:00Z', ['2026-03-04T08:00:00Z', '2026-03-04T13:00:00Z', '2026-03-04T18:00:00Z', '2026-03-05T08:00:00Z']],
    ['0 0 1,15 jan-mar *', '2026-02-20T00:00:00Z', ['2026-03-01T00:00:00Z', '2026-03-15T00:00:00Z', '2027-01-01T00:00:00Z']],
    ['0 0 * * 7', '2026-03-04T00:00:00Z', ['2026-03-08T00:00:00Z', '2026-03-15T00:00:00Z']],
    ['0 0 * * 0,7', '2026-03-04T00:00:00Z', ['2026-03-08T00:00:00Z', '2026-03-15T00:00:00Z']],
    ['0 0 * * MON-fri', '2026-03-05T12:00:00Z', ['2026-03-06T00:00:00Z', '2026-03-09T00:00:00Z', '2026-03-10T00:00:00Z']],
    ['0 0 29 2 *', '2026-01-01T00:00:00Z', ['2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z']],
    ['  0   0 L * * ', '2026-02-01T00:00:00Z', ['2026-02-28T00:00:00Z', '2026-03-31T00:00:00Z']],
  ];
  for (const [text, after, runs] of crons) {
    it(`reads "${text}" as cron running at ${runs.join(', ')} after ${after}`, () => {
      const schedule = parsed(text);
      assert.equal(schedule.kind, 'cron');
      const seen: string[] = [];
      for (let last = at(after); seen.length < runs.length; seen.push(last.toISOString())) last = nextRun(schedule, last);
      assert.deepEqual(seen, runs.map((run) => at(run).toISOString()));
    });
  }

  const bad: [string, RegExp][] = [
    ['', /empty/],
    ['every 0m', /at least 10s/],
    ['every 9s', /at least 10s, so a pull is not started before the previous one can time out/],
    ['every 5x', /unit "x" is not s, m, h or d/],
    ['every m', /"every N" and a unit/],
    ['every 367d', /at most 366d/],
    ['monthly', /not a schedule.*5 cron fields \(it has 1\)/],
    ['@weekly', /not a schedule.*\(it has 1\)/],
    ['* * * *', /it has 4/],
    ['0 0 * * * *', /it has 6/],
    ['61 * * * *', /^"61 \* \* \* \*": minute "61" is not valid; it takes 0-59, \*, lists/],
    ['0 24 * * *', /hour "24" is not valid; it takes 0-23/],
    ['0 0 0 * *', /day-of-month "0" is not valid; it takes 1-31/],
    ['0 0 * 13 *', /month "13" is not valid; it takes 1-12 or jan-dec/],
    ['0 0 * * 8', /day-of-week "8" is not valid; it takes 0-7 or sun-sat/],
    ['0 0 * * funday', /day-of-week "funday" is not valid/],
    ['10-5 * * * *', /minute "10-5" is not valid/],
    ['*/0 * * * *', /minute "\*\/0" is not valid/],
    ['5/15 * * * *', /minute "5\/15" is not valid; .*steps \(\*\/15 or 0-30\/15\)/],
    ['1-2-3 * * * *', /minute "1-2-3" is not valid/],
    ['* * 31 2 *', /^"\* \* 31 2 \*" never runs: no chosen month has day 31$/],
    ['* * 30,31 2 *', /never runs: no chosen month has day 30,31/],
    ['0 0 31 4,6,9,11 *', /never runs/],
    ['0 0 30 2 +mon', /never runs: no date matches its day of month, month and day of week/],
  ];
  for (const [text, message] of bad) {
    it(`refuses "${text}" saying why`, () => {
      assert.throws(() => parseSchedule(text), (error: unknown) => error instanceof ScheduleError && message.test(error.message));
    });
  }

  it('accepts a date no month has when the weekday also decides, since either may match', () => {
    assert.equal(parsed('0 0 31 2 1').kind, 'cron');
  });
});

describe('nextRun', () => {
  const cases: [string, string, string, string][] = [
    ['every 30s', '2026-03-04T05:06:07.500Z', '2026-03-04T05:06:37.500Z', 'counts from the last pull'],
    ['every 1d', '2026-12-31T23:00:00Z', '2027-01-01T23:00:00Z', 'crosses the year'],
    ['hourly', '2026-03-04T05:06:07Z', '2026-03-04T06:00:00Z', 'is on the next hour'],
    ['hourly', '2026-03-04T06:00:00Z', '2026-03-04T07:00:00Z', 'is strictly after a time on the hour'],
    ['daily', '2026-03-04T00:00:00Z', '2026-03-05T00:00:00Z', 'is the next midnight UTC'],
    ['daily', '2026-01-31T12:00:00Z', '2026-02-01T00:00:00Z', 'crosses the month'],
    ['weekly', '2026-03-04T05:06:07Z', '2026-03-09T00:00:00Z', 'is the next Monday'],
    ['weekly', '2026-03-09T00:00:00Z', '2026-03-16T00:00:00Z', 'is a week after a Monday midnight'],
    ['* * * * *', '2026-03-04T05:06:59.999Z', '2026-03-04T05:07:00Z', 'is the next minute'],
    ['30 2 * * *', '2026-12-31T03:00:00Z', '2027-01-01T02:30:00Z', 'crosses the year'],
    ['0 0 1 * *', '2026-02-15T00:00:00Z', '2026-03-01T00:00:00Z', 'crosses February'],
    ['0 0 31 * *', '2026-04-01T00:00:00Z', '2026-05-31T00:00:00Z', 'skips months without the day'],
    ['0 0 29 2 *', '2026-03-01T00:00:00Z', '2028-02-29T00:00:00Z', 'waits for a leap year'],
    ['0 0 29 2 *', '2096-03-01T00:00:00Z', '2104-02-29T00:00:00Z', 'skips 2100, which is not a leap year'],
    ['0 12 13 * 5', '2026-03-01T00:00:00Z', '2026-03-06T12:00:00Z', 'takes a Friday before the 13th (either rule)'],
    ['0 12 13 * 5', '2026-03-07T00:00:00Z', '2026-03-13T12:00:00Z', 'takes the 13th (a Friday here)'],
    ['0 12 13 * 1', '2026-03-10T00:00:00Z', '2026-03-13T12:00:00Z', 'takes a 13th that is not a Monday'],
    ['0 12 */10 * 1', '2026-03-02T13:00:00Z', '2026-05-11T12:00:00Z', 'needs both when the day of month starts with * (Vixie cron)'],
    ['0 12 1 * */2', '2026-03-02T00:00:00Z', '2026-08-01T12:00:00Z', 'needs both when the weekday starts with * (Vixie cron)'],
    ['0 0 * * 7', '2026-03-04T00:00:00Z', '2026-03-08T00:00:00Z', 'reads 7 as Sunday'],
    ['0 12 1 * +mon', '2026-03-02T00:00:00Z', '2026-06-01T12:00:00Z', "needs both with croner's + before the weekday"],
    ['30 2 * * *', '2026-03-29T00:00:00Z', '2026-03-29T02:30:00Z', 'is in UTC, whatever the local daylight saving time'],
    ['0 9-17 * * mon-fri', '2026-03-06T17:30:00Z', '2026-03-09T09:00:00Z', 'skips the weekend'],
  ];
  for (const [text, after, expected, why] of cases) {
    it(`"${text}" after ${after} ${why}: ${expected}`, () => {
      assert.equal(nextRun(parsed(text), at(after)).toISOString(), at(expected).toISOString());
    });
  }
});

describe('scheduleFromFeed', () => {
  const cases: [string, string][] = [
    ['hourly', 'hourly'],
    ['every 6h', 'every 6h'],
    ['*/5 * * * *', '*/5 * * * *'],
    ['', 'daily'],
    ['Twice a day', 'daily'],
    ['every 1s', 'daily'],
  ];
  for (const [feed, expected] of cases) {
    it(`gives "${expected}" for a feed schedule of "${feed}"`, () => assert.equal(scheduleFromFeed(feed).text, expected));
  }
});

describe('retryDelay', () => {
  const now = at('2026-03-04T05:00:00Z');
  const cases: [string, number, number, string][] = [
    ['daily', 1, 60_000, 'waits a minute after the first failure'],
    ['daily', 2, 120_000, 'doubles after the second'],
    ['daily', 5, 16 * 60_000, 'keeps doubling'],
    ['daily', 12, 19 * 3600_000, 'stops at the next regular run'],
    ['daily', 10_000, 19 * 3600_000, 'does not overflow after many failures'],
    ['every 30s', 1, 30_000, 'never waits longer than the interval'],
    ['every 6h', 10, 6 * 3600_000, 'caps at the interval'],
    ['hourly', 7, 3600_000, 'caps at the next hour'],
    ['*/5 * * * *', 4, 5 * 60_000, 'caps a cron at the gap to its next run'],
  ];
  for (const [text, failures, expected, why] of cases) {
    it(`"${text}" after ${failures} failure(s) ${why}`, () => assert.equal(retryDelay(failures, parsed(text), now), expected));
  }

  it('refuses a failure count below one', () => {
    assert.throws(() => retryDelay(0, parsed('daily'), now), RangeError);
  });
});
