// Service stamps and dates as STIX 2.1 millisecond timestamps.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import {
  laterStixTime,
  normalizeStixTime,
  stixTimeAfter,
  stixTimeFromDate,
  stixTimeFromStamp,
} from '../../src/stix/stix-time.js';

const isInvalidTimestamp = (error: unknown) => error instanceof StixMappingError && error.code === 'invalid-timestamp';

describe('stixTimeFromStamp', () => {
  describe('with a service stamp', () => {
    it('gives the UTC STIX timestamp with milliseconds', () => {
      assert.equal(stixTimeFromStamp('2024-02-29 23:59:58'), '2024-02-29T23:59:58.000Z');
    });
  });

  describe('with a stamp that is not YYYY-MM-DD HH:MM:SS', () => {
    it('throws an invalid-timestamp error', () => {
      const near = ['2024-01-01 00:00:0a', '2024/01/01 00:00:00', '2024-01-01 00-00:00', ' 2024-01-01 00:00:0', '２０２４-01-01 00:00:00', '2024-01-01 00:00:00\n'];
      for (const stamp of ['2024-01-01T00:00:00', '2024-01-01', '2024-1-1 00:00:00', '', ...near]) {
        assert.throws(() => stixTimeFromStamp(stamp), isInvalidTimestamp, stamp);
      }
    });
  });

  describe('with a date that does not exist', () => {
    it('throws instead of rolling over', () => {
      for (const stamp of ['2023-02-29 00:00:00', '2024-13-01 00:00:00', '2024-01-01 24:00:00', '2024-01-01 00:00:60']) {
        assert.throws(() => stixTimeFromStamp(stamp), isInvalidTimestamp, stamp);
      }
    });
  });

  describe('with a year below 100', () => {
    it('keeps the year as written', () => {
      assert.equal(stixTimeFromStamp('0042-01-01 00:00:00'), '0042-01-01T00:00:00.000Z');
    });
  });
});

describe('stixTimeFromDate', () => {
  describe('with a date', () => {
    it('formats it with milliseconds and Z', () => {
      assert.equal(stixTimeFromDate(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 6))), '2025-01-02T03:04:05.006Z');
    });
  });

  describe('with an invalid date or one past year 9999', () => {
    it('throws', () => {
      assert.throws(() => stixTimeFromDate(new Date(Number.NaN)), isInvalidTimestamp);
      assert.throws(() => stixTimeFromDate(new Date(Date.UTC(10000, 0, 1))), isInvalidTimestamp);
    });
  });
});

describe('normalizeStixTime', () => {
  describe('with microseconds', () => {
    it('truncates to milliseconds', () => {
      assert.equal(normalizeStixTime('2025-01-02T03:04:05.123999Z'), '2025-01-02T03:04:05.123Z');
    });
  });

  describe('without a fraction', () => {
    it('adds .000', () => {
      assert.equal(normalizeStixTime('2025-01-02T03:04:05Z'), '2025-01-02T03:04:05.000Z');
    });
  });

  describe('with an offset', () => {
    it('converts to UTC', () => {
      assert.equal(normalizeStixTime('2025-01-02T01:04:05.5+02:00'), '2025-01-01T23:04:05.500Z');
      assert.equal(normalizeStixTime('2025-01-01T23:30:00-01:00'), '2025-01-02T00:30:00.000Z');
    });
  });

  describe('with a service stamp', () => {
    it('reads it as UTC', () => {
      assert.equal(normalizeStixTime('2025-01-02 03:04:05'), '2025-01-02T03:04:05.000Z');
    });
  });

  describe('with something else', () => {
    it('throws an invalid-timestamp error', () => {
      for (const value of ['yesterday', '2025-01-02T03:04Z', '2025-01-02T03:04:05.Z', '2025-02-30T00:00:00Z']) {
        assert.throws(() => normalizeStixTime(value), isInvalidTimestamp, value);
      }
    });
  });

  describe('with two instants less than a millisecond apart', () => {
    it('never reverses their order', () => {
      const earlier = normalizeStixTime('2025-01-02T03:04:05.123999Z');
      const later = normalizeStixTime('2025-01-02T03:04:05.124000Z');
      assert.ok(earlier < later);
    });
  });
});

describe('laterStixTime', () => {
  describe('with two timestamps', () => {
    it('returns the later one', () => {
      assert.equal(laterStixTime('2025-01-01T00:00:00.000Z', '2024-12-31T23:59:59.999Z'), '2025-01-01T00:00:00.000Z');
      assert.equal(laterStixTime('2024-12-31T23:59:59.999Z', '2025-01-01T00:00:00.000Z'), '2025-01-01T00:00:00.000Z');
    });
  });
});

describe('stixTimeAfter', () => {
  describe('at the end of a year', () => {
    it('gives the next millisecond', () => {
      assert.equal(stixTimeAfter('2024-12-31T23:59:59.999Z'), '2025-01-01T00:00:00.000Z');
    });
  });
});

describe('normalizeStixTime, asked for one value many times (as an import does)', () => {
  it('gives it back each time, and still rejects what is not a timestamp', () => {
    assert.throws(() => normalizeStixTime(''), StixMappingError);
    assert.equal(normalizeStixTime('2026-01-15T10:00:00.000Z'), '2026-01-15T10:00:00.000Z');
    assert.equal(normalizeStixTime('2026-01-15T10:00:00.000Z'), '2026-01-15T10:00:00.000Z');
    assert.throws(() => normalizeStixTime(''), StixMappingError);
    assert.throws(() => normalizeStixTime('2026-02-30T10:00:00.000Z'), StixMappingError);
  });
});
