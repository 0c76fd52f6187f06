// What an explore or search request asks for, read from its query parameters (docs/explore.md):
// every 400 is raised here, before the plan's page allowance (403) is checked and the store asked.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { exploreFilter, type ExploreMode } from '../explore/explore-filters.js';
import { prettyParam, singleParam } from '../http/query-params.js';
import type { IndicatorFilter, ThreatFilter } from '../store/contract/explore.js';
import { pageParam, requiredParam } from './lookup-params.js';

export const EXPLORE_DEFAULT_LIMIT = 100;
export const EXPLORE_MAX_LIMIT = 1000;

export interface ExploreRequest {
  mode: ExploreMode;
  /** The query as given: with the mode and paging, what the answer depends on (the cache key). */
  q: string;
  filter: IndicatorFilter | ThreatFilter;
  limit: number;
  page: number;
  csv: boolean;
  pretty: boolean;
}

const MODES: Readonly<Record<string, ExploreMode>> = { indicators: 'indicators', indicator: 'indicators', threats: 'threats', threat: 'threats' };

/** `type`, or its older name `search`: indicators (the default) or threats, singular or plural, any case. */
function modeParam(req: Request): ExploreMode {
  const name = singleParam(req, 'type') !== undefined ? 'type' : 'search';
  const given = singleParam(req, name);
  if (given === undefined || given.trim() === '') return 'indicators';
  const mode = MODES[given.trim().toLowerCase()];
  if (mode === undefined) throw new BadRequestError(`Parameter "${name}" must be "indicators" or "threats".`);
  return mode;
}

/** `limit`: rows a page, 1 to 1000; omitted, 100. */
export function limitParam(req: Request): number {
  const given = singleParam(req, 'limit');
  if (given === undefined) return EXPLORE_DEFAULT_LIMIT;
  const text = given.trim();
  const limit = /^[1-9][0-9]{0,3}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit >= 1 && limit <= EXPLORE_MAX_LIMIT)) throw new BadRequestError(`Parameter "limit" must be a whole number from 1 to ${EXPLORE_MAX_LIMIT}.`);
  return limit;
}

function csvParam(req: Request): boolean {
  const given = singleParam(req, 'export');
  if (given === undefined) return false;
  if (given.trim().toLowerCase() === 'csv') return true;
  throw new BadRequestError('Parameter "export" must be "csv".');
}

/** GET /api/explore.php: `q` in the mode's fields, with its page. */
export function exploreRequest(req: Request, now: number): ExploreRequest {
  const mode = modeParam(req);
  const q = requiredParam(req, 'q');
  const limit = limitParam(req);
  const page = pageParam(req);
  const csv = csvParam(req);
  const pretty = prettyParam(req);
  return { mode, q, filter: exploreFilter(mode, q, now), limit, page, csv, pretty };
}
