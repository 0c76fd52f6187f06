// A sighting as a reporter gives it, checked field by field (docs/observations.md, "Recording a
// sighting"): pure, with the time passed in, so every surface refuses the same input the same way.
import { hasControlCharacter } from '../sources/control-characters.js';
import { badField, ObservationRefused } from './observation-refused.js';
import { seenStamp } from './observation-time.js';

/** What the command line, the operator API and the console hand over: a value or a threat, and what was seen. */
export interface SightingInput {
  /** A value as pasted (refanged, then normalized as the lookups do). */
  value?: string;
  /** A threat sighted directly. */
  tid?: number;
  note?: string | null;
  /** When it was seen; now when left out. */
  at?: string | null;
  /** How many times; 1 when left out. */
  count?: number;
}

/** The most times one sighting may say a thing was seen: far beyond any real count, well inside every integer column. */
export const MAX_COUNT = 1_000_000_000;
/** The longest note: a case number, an alert's name, a line or two for whoever reads it next. */
export const MAX_NOTE = 1000;
/** The longest value taken: the longest URL any browser or proxy passes on is shorter. */
export const MAX_VALUE = 8192;

export interface CheckedSighting {
  target: { value: string } | { tid: number };
  note: string | null;
  seenAt: string;
  count: number;
}

function checkedTarget(input: SightingInput): CheckedSighting['target'] {
  const hasValue = input.value !== undefined;
  const hasTid = input.tid !== undefined;
  if (hasValue === hasTid) {
    throw new ObservationRefused(400, 'target', 'value or tid, one of them', 'Give exactly one of "value" (an indicator) and "tid" (a threat).');
  }
  if (hasTid) {
    const tid = input.tid!;
    if (!Number.isSafeInteger(tid) || tid < 1) throw badField('tid', 'must be a positive whole number');
    return { tid };
  }
  const value = input.value!.trim();
  if (value === '') throw badField('value', 'is empty: give the value that was seen');
  if (value.length > MAX_VALUE) throw badField('value', `is at most ${MAX_VALUE} characters`);
  if (hasControlCharacter(value)) throw badField('value', 'must not hold control characters (line breaks, tabs, escapes)');
  return { value };
}

function checkedNote(note: string | null | undefined): string | null {
  if (note === null || note === undefined) return null;
  const trimmed = note.trim();
  if (trimmed === '') return null;
  if (trimmed.length > MAX_NOTE) throw badField('note', `is at most ${MAX_NOTE} characters`);
  // A note is shown on one line by `why`, the console and the operator API; a control character would break that line or drive a terminal.
  if (hasControlCharacter(trimmed)) throw badField('note', 'must not hold control characters (line breaks, tabs, escapes)');
  return trimmed;
}

function checkedCount(count: number | undefined): number {
  if (count === undefined) return 1;
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_COUNT) throw badField('count', `must be a whole number from 1 to ${MAX_COUNT}`);
  return count;
}

/** The sighting's fields checked in the order a form shows them (what, then when, how many, the note); the first problem is thrown. */
export function checkSighting(input: SightingInput, now: number): CheckedSighting {
  const target = checkedTarget(input);
  const seen = seenStamp(input.at, now);
  if ('problem' in seen) throw badField('at', seen.problem);
  const count = checkedCount(input.count);
  const note = checkedNote(input.note);
  return { target, note, seenAt: seen.stamp, count };
}
