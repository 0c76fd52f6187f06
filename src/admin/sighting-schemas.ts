// The operator API's sightings as zod schemas (docs/observations.md): a sighting as stored, the body of POST, a page of them.
import { z } from 'zod';
import { count, recordId, Timestamp } from '../api/lookup-schemas.js';
import { MAX_COUNT, MAX_NOTE, MAX_VALUE } from '../observations/sighting-input.js';
import { MAX_SIGHTINGS } from './admin-sightings.js';

const text = (description: string) => z.string().describe(description);

export const Sighting = z
  .strictObject({
    id: recordId.describe('The sighting\u2019s id, increasing: a newer sighting has a higher one.'),
    iid: recordId.describe('The indicator sighted; null for a threat sighted directly.').nullable(),
    tid: recordId.describe('The threat sighted directly; null for an indicator.').nullable(),
    reported_by: text('The id of the key that reported it; null for the command line.').nullable(),
    reported_by_label: text('That key\u2019s label when it was reported (`command line` for the command line); null when the key has none.').nullable(),
    reported_at: Timestamp.describe('When it was reported.'),
    seen_at: Timestamp.describe('When it was seen: `at` as given, or the time it was reported.'),
    count: z.int().min(1).max(MAX_COUNT).describe('How many times it was seen then.'),
    note: text('The reporter\u2019s note; null when none was given.').nullable(),
  })
  .describe('A sighting (docs/observations.md): someone met an indicator or a threat in their network.');

const sightingFields = {
  note: z.string().max(MAX_NOTE).nullable().optional().describe(`A case, an alert, a line for whoever reads it next: at most ${MAX_NOTE} characters, no control characters. Blank or null: none.`),
  at: z
    .string()
    .nullable()
    .optional()
    .describe('When it was seen: RFC 3339 (`2026-03-02T08:00:00Z`, any offset), `YYYY-MM-DD HH:MM:SS` in UTC, or a date (its first second, UTC); not in the future (five minutes of clock skew are taken as now). Left out, null or blank: now.'),
  count: z.int().min(1).max(MAX_COUNT).optional().describe('How many times it was seen then; 1 when left out.'),
};

/** The body of POST /admin/api/sightings, as admin-sightings.ts reads it: a value or a threat, never both. */
export const SightingAddition = z
  .union([
    z.strictObject({ value: z.string().min(1).max(MAX_VALUE).describe('The value seen, as pasted: refanged and normalized as indicator.php reads it; it must be a stored indicator.'), ...sightingFields }),
    z.strictObject({ tid: recordId.describe('The threat seen: a stored threat\u2019s tid.'), ...sightingFields }),
  ])
  .describe('A sighting to record: exactly one of `value` and `tid`.');

export const ObservationCounts = z
  .strictObject({
    sightings: count.describe('The sum of its sightings\u2019 counts.'),
    stamp_sighted: Timestamp.describe('The latest `seen_at` of its sightings; null when it has none.').nullable(),
    submissions: count.describe('Distinct keys that submitted it for analysis (0 for a threat).'),
  })
  .describe('What its observations add up to.');

export const SightingPage = z
  .strictObject({
    target: z.union([z.strictObject({ iid: recordId }), z.strictObject({ tid: recordId })]).describe('The indicator (a `value` is answered by its iid) or the threat listed.'),
    counts: ObservationCounts,
    sightings: z.array(Sighting).max(MAX_SIGHTINGS).describe('Newest (highest id) first.'),
    next: text('The path of the next (older) page; null when this one holds the oldest.').nullable(),
  })
  .describe('A page of an indicator\u2019s or a threat\u2019s sightings.');
