// When a sighting was seen (docs/observations.md, "When it was seen"): the forms a time may take, and
// what is refused; table-driven, with the time passed in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOCK_SKEW_MS, parseObservationTime, seenStamp } from '../../src/observations/observation-time.js';

const NOW = Date.parse('2026-03-02T08:00:00Z');

describe('parseObservationTime', () => {
  const read: [text: string, iso: string][] = [
    ['2026-03-01T10:20:30Z', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01t10:20:30z', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T10:20:30.987654Z', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T12:20:30+02:00', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T05:50:30-04:30', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01 10:20:30Z', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01 10:20:30', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['  2024-02-29  ', '2024-02-29T00:00:00.000Z'],
  ];
  for (const [text, iso] of read) {
    it(`${JSON.stringify(text)} › ${iso}`, () => assert.equal(new Date(parseObservationTime(text)!).toISOString(), iso));
  }

  const refused = ['', 'yesterday', '2026-03-01T10:20:30', '2026-02-30', '2025-02-29', '2026-13-01', '2026-03-01 24:00:00', '2026-03-01T10:20:60Z', '2026-03-01T10:20Z', '1772445600', '2026-03-01T10:20:30+24:00', '2026/03/01'];
  for (const text of refused) {
    it(`${JSON.stringify(text)} › none`, () => assert.equal(parseObservationTime(text), undefined));
  }
});

describe('seenStamp', () => {
  it('left out, null or blank › now', () => {
    for (const text of [undefined, null, '', '  ']) assert.deepEqual(seenStamp(text, NOW), { stamp: '2026-03-02 08:00:00' });
  });
  it('a past time › that time, as the store writes stamps', () => assert.deepEqual(seenStamp('2026-02-27T23:59:59+01:00', NOW), { stamp: '2026-02-27 22:59:59' }));
  it('ahead of now within the clock skew › now: never seen after it is reported', () => {
    assert.deepEqual(seenStamp(new Date(NOW + CLOCK_SKEW_MS).toISOString(), NOW), { stamp: '2026-03-02 08:00:00' });
  });
  it('further ahead › in the future, saying what now is', () => {
    assert.deepEqual(seenStamp(new Date(NOW + CLOCK_SKEW_MS + 1000).toISOString(), NOW), { problem: 'is in the future (it is 2026-03-02 08:00:00 UTC now)' });
    assert.deepEqual(seenStamp('2027-01-01', NOW), { problem: 'is in the future (it is 2026-03-02 08:00:00 UTC now)' });
  });
  it('not a time › the forms it may take', () => assert.match((seenStamp('last tuesday', NOW) as { problem: string }).problem, /^must be a timestamp: RFC 3339 .*YYYY-MM-DD HH:MM:SS in UTC, or a date/));
  it('before 1970 › refused', () => assert.deepEqual(seenStamp('1969-12-31', NOW), { problem: 'is before 1970' }));
});
