// GET /api/info.php, the single entry point older integrations call (docs/interface.md section 4.4): which lookup
// its parameters name, read as the endpoint it stands for reads them.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { singleParam } from '../http/query-params.js';
import { feedRecordRequest, feedRequest, indicatorRequest, threatRecordRequest, threatRequest, type LookupRequest } from './lookup-requests.js';

/**
 * `get=links&summary=1` is what the pulsedive client's `threat.summary()` sends: "a summary of a
 * threat that gives counts of indicators per feed, attribute, etc.", not the indicators. That summary
 * is the record's own `summary` (aggregated at import), so the answer is the threat or feed itself
 * rather than a page of 1,000 rows. Any other `summary` value leaves `get=links` a page.
 */
function asksSummary(req: Request): boolean {
  return singleParam(req, 'get') === 'links' && singleParam(req, 'summary') === '1';
}

/**
 * `iid` or `indicator`: indicator.php, `get=links` and `get=properties` with `iid` included (the
 * pulsedive client's `indicator.links` and `indicator.properties` send them here); `tid` or `tname` (a name or other name): threat.php; `fid`, or
 * `feed` with `organization`: feed.php. When a request names several, the first of that order wins.
 * `get=links`, `page` and `pretty` mean what they mean there, and `summary=1` with `get=links` asks for
 * the record (above). `splitrisk`, `sanitize` and `schema`, which those clients send, are read by no
 * lookup: the summary's counts are not split by risk beyond its own `risk` counts.
 */
export function infoRequest(req: Request): LookupRequest {
  const given = (name: string) => singleParam(req, name) !== undefined;
  if (given('iid') || given('indicator')) return indicatorRequest(req);
  if (given('tid') || given('tname')) return asksSummary(req) ? threatRecordRequest(req, 'tname') : threatRequest(req, 'tname');
  if (given('fid') || given('feed')) return asksSummary(req) ? feedRecordRequest(req) : feedRequest(req);
  throw new BadRequestError('Parameter "iid", "indicator", "tid", "tname", "fid" or "feed" is required.');
}
