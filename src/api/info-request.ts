// GET /api/info.php, the single entry point older integrations call (DESIGN section 4): which lookup
// its parameters name, read as the endpoint it stands for reads them.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { singleParam } from '../http/query-params.js';
import { feedRequest, indicatorRequest, threatRequest, type LookupRequest } from './lookup-requests.js';

/**
 * `iid` or `indicator`: indicator.php; `tid` or `tname` (a name or other name): threat.php; `fid`, or
 * `feed` with `organization`: feed.php. When a request names several, the first of that order wins.
 * `get=links`, `page` and `pretty` mean what they mean there; `summary`, `splitrisk`, `sanitize` and
 * `schema`, which those clients send, are read by no lookup, here as there.
 */
export function infoRequest(req: Request): LookupRequest {
  const given = (name: string) => singleParam(req, name) !== undefined;
  if (given('iid') || given('indicator')) return indicatorRequest(req);
  if (given('tid') || given('tname')) return threatRequest(req, 'tname');
  if (given('fid') || given('feed')) return feedRequest(req);
  throw new BadRequestError('Parameter "iid", "indicator", "tid", "tname", "fid" or "feed" is required.');
}
