// Explore's and search's answers as zod schemas (docs/explore.md): the indicator, threat and feed rows, their pages, and the CSV export.
import { z } from 'zod';
import { EXPLORE_NAMES_PER_ROW } from '../store/contract/explore.js';
import { EXPLORE_MAX_LIMIT } from './explore-requests.js';
import { IndicatorType } from './indicator-schemas.js';
import { count, recordId, Risk, stamp } from './lookup-schemas.js';

const names = (what: string) => z.array(z.string()).max(EXPLORE_NAMES_PER_ROW).describe(`The names of its ${what}, at most ${EXPLORE_NAMES_PER_ROW}.`);

export const ExploreIndicator = z
  .strictObject({
    iid: recordId,
    indicator: z.string().describe('The value, as stored.'),
    type: IndicatorType.describe('As stored.'),
    risk: Risk,
    stamp_added: stamp,
    stamp_updated: stamp,
    stamp_seen: stamp,
    stamp_retired: stamp,
    threats: names('linked threats'),
    feeds: names('feeds that list or listed it'),
  })
  .describe('An indicator as explore lists it (docs/explore.md); indicator.php answers the whole record by its `iid`.');

export const ExploreThreat = z
  .strictObject({
    tid: recordId,
    threat: z.string().describe('Its name.'),
    category: z.string(),
    risk: Risk,
    othernames: z.array(z.string()).describe('Aliases.'),
    stamp_added: stamp,
    stamp_seen: stamp,
    retired: z.boolean().nullable().describe('True for a retired threat, false for an active one, as threat.php gives it.'),
    indicators: count.describe('How many indicators are linked to it.'),
  })
  .describe('A threat as explore lists it (docs/explore.md); threat.php answers the whole record by its `tid`.');

export const ExploreFeed = z
  .strictObject({
    fid: recordId,
    feed: z.string().describe('Its name.'),
    organization: z.string(),
    category: z.string(),
    pricing: z.string(),
    stamp_added: stamp,
    stamp_pulled: stamp,
    indicators: count.describe('How many indicators it lists (its links).'),
  })
  .describe('A feed as search.php\u2019s `search=feed` lists it; feed.php answers the whole record by its `fid`.');

/** A page of explore rows: `results` alone when they all fit on page 0, else `page_current` on every page and `page_next` while more follow. */
function pageOf(row: z.ZodType, what: string) {
  const results = z.array(row).max(EXPLORE_MAX_LIMIT);
  return z
    .union([z.strictObject({ results }), z.strictObject({ page_current: z.int().min(0), page_next: z.int().min(1).optional(), results })])
    .describe(
      `A page of ${what}, newest first, \`limit\` a page (docs/explore.md). When every match fits on page 0 the body is \`results\` alone; otherwise every page has \`page_current\`, and \`page_next\` while more follow. A page past the end has \`page_current\` and an empty \`results\`.`,
    );
}

export const ExploreIndicators = pageOf(ExploreIndicator, 'indicators');
export const ExploreThreats = pageOf(ExploreThreat, 'threats');
export const ExploreFeeds = pageOf(ExploreFeed, 'feeds');

export const ExploreCsv = z
  .string()
  .regex(/^(iid,indicator,type,risk,stamp_added,stamp_updated,stamp_seen,stamp_retired,threats,feeds|tid,threat,category,risk,othernames,stamp_added,stamp_seen,retired,indicators|fid,feed,organization,category,pricing,stamp_added,stamp_pulled,indicators)\r\n/)
  .describe(
    'A header row of the JSON rows\u2019 fields, then one record per row of every page the plan may read, quoted per RFC 4180 (CRLF line ends); names of threats, feeds and other names joined with `|`; a cell a spreadsheet would run as a formula is prefixed with `\'` (docs/exports.md).',
  );
