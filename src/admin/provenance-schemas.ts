// The operator API's answer to "why is this value (not) on the lists" as a zod schema (docs/interface.md section 12.4).
import { z } from 'zod';
import { IndicatorType, RETIRED_REASONS } from '../api/indicator-schemas.js';
import { recordId, Risk, Timestamp } from '../api/lookup-schemas.js';
import { LATEST_OBSERVATIONS } from '../observations/value-observations.js';
import { Sighting } from './sighting-schemas.js';

const text = (description: string) => z.string().describe(description);
const feedRef = z.strictObject({ fid: recordId, feed: z.string() });

export const Provenance = z
  .strictObject({
    value: text('The value as asked.'),
    normalized: z
      .strictObject({ value: z.string(), type: IndicatorType })
      .describe('The value as pulls normalize it, and its detected type; null when it is no indicator of any type.')
      .nullable(),
    unparseable: text('Why it is no indicator; null when it is one.').nullable(),
    indicator: z
      .strictObject({
        iid: recordId,
        type: z.string(),
        value: z.string(),
        risk: Risk,
        retired: z.boolean(),
        retired_reason: z.enum(RETIRED_REASONS).nullable(),
        stamp_retired: Timestamp.nullable(),
        stamp_added: Timestamp.nullable(),
        stamp_seen: Timestamp.nullable(),
      })
      .nullable(),
    feeds: z
      .array(
        z.strictObject({
          fid: recordId,
          feed: z.string(),
          organization: z.string(),
          listed_now: z.boolean(),
          first_listed: Timestamp,
          last_listed: Timestamp.nullable(),
          risk: Risk.nullable(),
          linked_by: z.enum(['pull', 'import']),
        }),
      )
      .describe('Each feed that lists it now or listed it.'),
    threats: z
      .array(z.strictObject({ tid: recordId, name: z.string(), retired: z.boolean(), stamp_linked: Timestamp, linked_by: feedRef.nullable() }))
      .describe('Each threat it is linked to, and the feed whose pull linked it (null: an import file).'),
    risk_from: z.array(feedRef).describe('The feeds listing it now that give it the indicator\u2019s risk.'),
    allowlist: z.strictObject({ entry: z.string() }).describe('The allowlist entry that keeps it out of every pull.').nullable(),
    rejection: z
      .strictObject({ fid: recordId, feed: z.string(), at: Timestamp, reason: z.enum(['unparseable', 'allowlisted']) })
      .describe('The last time a pull rejected it.')
      .nullable(),
    collections: z.array(z.strictObject({ id: z.string(), title: z.string(), alias: z.string().nullable() })),
    exports: z.array(z.strictObject({ collection: z.string(), url: z.string() })).describe('The exports that list it: its collections while it is not retired.'),
    blocks: z
      .array(z.strictObject({ iid: recordId, value: z.string(), risk: Risk, retired: z.boolean() }))
      .describe('For an address or block: every stored block holding it, narrowest first, retired ones too; empty for any other value (docs/lookup-api.md, "An address inside a listed block").'),
    sightings: z.array(Sighting).max(LATEST_OBSERVATIONS).describe(`The indicator\u2019s latest sightings, newest first, at most ${LATEST_OBSERVATIONS} (docs/observations.md); empty when it has none or there is no indicator.`),
    submissions: z
      .array(z.strictObject({ qid: recordId, key_id: z.string().describe('The key that submitted it.'), submitted_at: Timestamp }))
      .max(LATEST_OBSERVATIONS)
      .describe(`The indicator\u2019s latest submissions for analysis (analyze.php), newest first, at most ${LATEST_OBSERVATIONS}.`),
  })
  .describe('Why a value is (or is not) on the lists (docs/interface.md section 12.4), as `threatgate why --json` prints it.');
