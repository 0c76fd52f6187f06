// The lookup API's indicators as zod schemas: an indicator (docs/interface.md section 2.5) and the pages of linked indicators (section 5).
import { z } from 'zod';
import { INDICATOR_TYPES } from '../indicator-types.js';
import { count, freeForm, recordId, Risk, stamp, Timestamp } from './lookup-schemas.js';

export const IndicatorType = z.enum(INDICATOR_TYPES);
export const RETIRED_REASONS = ['aged-out', 'allowlisted', 'upstream', 'feed-deleted'] as const;

export const LinkedIndicator = z.strictObject({
  iid: recordId,
  indicator: z.string().describe('The value: an address, a domain, a URL, a hash, ...'),
  type: IndicatorType,
  risk: Risk,
  stamp_linked: Timestamp,
  summary: z.strictObject({ properties: freeForm.describe('The indicator\u2019s free-form properties (`country`, `asn`, ...).') }),
});

export const Indicator = z
  .strictObject({
    iid: recordId,
    type: IndicatorType.describe('As stored: a pull stores the detected type (`ip`, `ipv6`, `domain`, `url`, ...), an import the type its record names.'),
    indicator: z.string().describe('The value, as stored.'),
    risk: Risk,
    retired: z.int().min(0).max(1).describe('1 when its risk is `retired` (aged out or withdrawn upstream) or an import set its `retired` flag.'),
    retired_reason: z
      .enum(RETIRED_REASONS)
      .describe(
        'What retired it, when the service did: `aged-out` (no source listed it for `lifecycle.indicatorRetireDays`), `upstream` (its source withdrew it), `allowlisted` (an allowlist entry covers it), `feed-deleted` (the one feed that gave it was deleted). Null otherwise.',
      )
      .nullable(),
    stamp_added: stamp,
    stamp_updated: stamp,
    stamp_seen: stamp,
    stamp_retired: stamp,
    threats: z
      .array(z.strictObject({ tid: recordId, name: z.string(), category: z.string(), risk: Risk, stamp_linked: Timestamp }))
      .describe('The threats it is linked to, by ascending `tid`.'),
    feeds: z
      .array(z.strictObject({ fid: recordId, name: z.string(), category: z.string(), organization: z.string(), pricing: z.string(), stamp_linked: Timestamp }))
      .describe('The feeds that list or listed it, by ascending `fid`.'),
    attributes: z.record(z.string(), z.array(z.string())).describe('Attribute name -> values, `{}` when none.'),
    sightings: count.describe('How many times it was seen, as reported by sightings (docs/observations.md): the sum of their counts; 0 when none.'),
    stamp_sighted: stamp.describe('When it was last seen by a sighting (the latest `seen_at`); null when it has none.'),
    submissions: count.describe('How many distinct keys submitted it for analysis (analyze.php).'),
    matched: z
      .strictObject({
        query: z.string().describe('The address asked for, normalized.'),
        by: z.literal('block').describe('A stored block holding the address answered.'),
      })
      .optional()
      .describe(
        'Only when the value asked for is an address no indicator holds: the body is then the narrowest active (risk not `retired`) stored block holding it (docs/lookup-api.md, "An address inside a listed block").',
      ),
  })
  .describe('An indicator (docs/interface.md section 2.5, after Pulsedive\u2019s indicator model).');

/** A related indicator in an indicator's links. */
export const RelatedIndicator = z.strictObject({ iid: recordId, indicator: z.string(), type: z.string().describe('As stored.'), risk: Risk });

/** An indicator's properties (`get=properties`). */
export const IndicatorProperties = z
  .strictObject({ properties: freeForm.describe('The indicator\u2019s stored free-form properties (`country`, `asn`, ...), `{}` when none.') })
  .describe('An indicator\u2019s properties (docs/lookup-api.md, "An indicator\u2019s links and properties").');

/** An indicator's links (`get=links`): each relation that applies to its type, a page of each. */
export function indicatorLinksSchema(pageSize: number) {
  const results = z
    .record(z.string(), z.array(RelatedIndicator).max(pageSize))
    .describe(
      'Relation -> related indicators, newest first: `Subdomains` and `URLs` of a domain, `Host` of a URL, `Blocks` (the stored blocks holding it, narrowest first) of an address or block, `Inside` (the addresses and blocks inside it) of a block. Every relation that applies to the indicator\u2019s type is present, empty or not.',
    );
  return z
    .union([z.strictObject({ results }), z.strictObject({ page_current: z.int().min(0), page_next: z.int().min(1).optional(), results })])
    .describe(
      `An indicator\u2019s links, ${pageSize} per relation per page (docs/lookup-api.md, "An indicator\u2019s links and properties"). When every relation fits on page 0 the body is \`results\` alone; otherwise every page has \`page_current\`, and \`page_next\` while any relation has more.`,
    );
}

/**
 * A page of linked indicators (docs/interface.md section 5): `results` alone when every one fits on
 * page 0, else `page_current` on every page and `page_next` while more follow.
 */
export function linksPageSchema(pageSize: number) {
  const results = z.array(LinkedIndicator).max(pageSize);
  return z
    .union([
      z.strictObject({ results }),
      z.strictObject({ page_current: z.int().min(0), page_next: z.int().min(1).optional(), results }),
    ])
    .describe(
      `A page of linked indicators, ascending by \`iid\`, ${pageSize} per page. When every one fits on page 0 the body is \`results\` alone; otherwise every page has \`page_current\`, and \`page_next\` while more follow. A page past the end has \`page_current\` and an empty \`results\`.`,
    );
}
