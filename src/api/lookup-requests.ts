// What a lookup request asks for, read from its query parameters (docs/interface.md sections 4 and 5):
// every 400 is raised here, before the plan's page allowance (403) and the record (404) are checked.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { prettyParam, singleParam } from '../http/query-params.js';
import type { LinkOwner } from '../store/contract/records.js';
import { indicatorValueOf, type IndicatorValue } from '../sources/indicator-value.js';
import { refang } from '../sources/refang.js';
import { idParam, pageParam, requiredParam } from './lookup-params.js';
import { rememberBounded } from '../bounded-map.js';

export type Lookup =
  | { kind: 'threat'; tid: number }
  | { kind: 'threat-name'; name: string }
  | { kind: 'feed'; fid: number }
  | { kind: 'feed-name'; feed: string; organization: string }
  | { kind: 'links'; owner: LinkOwner; page: number }
  | { kind: 'indicator'; iid: number }
  | { kind: 'indicator-value'; value: string; types: readonly string[]; asGiven: string }
  | { kind: 'indicator-links'; iid: number; page: number }
  | { kind: 'indicator-properties'; iid: number };

export interface LookupRequest {
  lookup: Lookup;
  pretty: boolean;
}

/** `get` selects the linked indicators; its only value is `links`. */
function wantsLinks(req: Request): boolean {
  const get = singleParam(req, 'get');
  if (get === undefined) return false;
  if (get !== 'links') throw new BadRequestError('Parameter "get" must be "links".');
  return true;
}

function linksRequest(req: Request, owner: LinkOwner): LookupRequest {
  const page = pageParam(req);
  return { lookup: { kind: 'links', owner, page }, pretty: prettyParam(req) };
}

/**
 * threat.php: `tid`, the threat's name or other name (`nameParam`: threat.php's `threat`, info.php's
 * `tname`), or `tid` with `get=links[&page=P]`. `tid` wins when both are given.
 */
export function threatRequest(req: Request, nameParam = 'threat'): LookupRequest {
  if (wantsLinks(req)) return linksRequest(req, { kind: 'threat', tid: idParam(req, 'tid') });
  return threatRecordRequest(req, nameParam);
}

/** The threat itself, by `tid` or by name, whatever `get` says (info.php's summary, info-request.ts). */
export function threatRecordRequest(req: Request, nameParam: string): LookupRequest {
  const pretty = prettyParam(req);
  if (singleParam(req, 'tid') !== undefined || singleParam(req, nameParam) === undefined) return { lookup: { kind: 'threat', tid: idParam(req, 'tid') }, pretty };
  return { lookup: { kind: 'threat-name', name: requiredParam(req, nameParam).trim() }, pretty };
}

/** feed.php: `fid`, `feed` with `organization`, or `fid` with `get=links[&page=P]`. `fid` wins when given. */
export function feedRequest(req: Request): LookupRequest {
  if (wantsLinks(req)) return linksRequest(req, { kind: 'feed', fid: idParam(req, 'fid') });
  return feedRecordRequest(req);
}

/** The feed itself, by `fid` or by name and organization, whatever `get` says (info.php's summary). */
export function feedRecordRequest(req: Request): LookupRequest {
  const pretty = prettyParam(req);
  if (singleParam(req, 'fid') !== undefined) return { lookup: { kind: 'feed', fid: idParam(req, 'fid') }, pretty };
  const feed = requiredParam(req, 'feed').trim();
  const organization = requiredParam(req, 'organization').trim();
  return { lookup: { kind: 'feed-name', feed, organization }, pretty };
}

/** Values read lately: normalizing is a pure function of the text, and a cached lookup asks for the same text again. */
const readValues = new Map<string, IndicatorValue | undefined>();
/** The most texts remembered: past it the memory starts afresh, so a stream of distinct values costs no more than this. */
const READ_VALUES_KEPT = 4096;

function valueOf(raw: string): IndicatorValue | undefined {
  if (readValues.has(raw)) return readValues.get(raw);
  const value = indicatorValueOf(raw);
  rememberBounded(readValues, READ_VALUES_KEPT, raw, value);
  return value;
}

/**
 * indicator.php: `iid`, or the value (`indicator`), which must be an indicator of some type. `iid`
 * wins when both are given. With `iid`, `get=links[&page=P]` asks for the indicators related to it
 * and `get=properties` for its properties (docs/lookup-api.md, "An indicator's links and
 * properties"), as the pulsedive client's `indicator.links` and `indicator.properties` send them.
 */
export function indicatorRequest(req: Request): LookupRequest {
  const pretty = prettyParam(req);
  const get = singleParam(req, 'get');
  if (get !== undefined) {
    if (get !== 'links' && get !== 'properties') throw new BadRequestError('Parameter "get" must be "links" or "properties".');
    // Related indicators are found from the stored indicator, so it is named by its id, as Pulsedive names it.
    if (singleParam(req, 'iid') === undefined) throw new BadRequestError(`Parameter "iid" is required with get=${get}.`);
    const iid = idParam(req, 'iid');
    if (get === 'properties') return { lookup: { kind: 'indicator-properties', iid }, pretty };
    return { lookup: { kind: 'indicator-links', iid, page: pageParam(req) }, pretty };
  }
  if (singleParam(req, 'iid') !== undefined) return { lookup: { kind: 'indicator', iid: idParam(req, 'iid') }, pretty };
  const raw = requiredParam(req, 'indicator');
  const value = valueOf(raw);
  if (value === undefined) {
    const shown = raw.length > 100 ? `${raw.slice(0, 100)}...` : raw;
    throw new BadRequestError(`Parameter "indicator": ${JSON.stringify(shown)} is no indicator (an IP address or CIDR block, domain, URL, email address, hash or AS number).`);
  }
  // As pasted too, its defanging undone: a value an import stored unnormalized is found when written as stored.
  return { lookup: { kind: 'indicator-value', ...value, asGiven: refang(raw) }, pretty };
}
