// GET /api/search.php, the older search endpoint, as the `pulsedive` Python client (0.1.0) sends it
// (docs/explore.md, "GET /api/search.php"): each form written as an explore query and read as one,
// so it has explore's fields, indexes, answers and errors.
import type { Request } from 'express';
import { BadRequestError } from '../errors.js';
import { exploreFilter, textMatchOf } from '../explore/explore-filters.js';
import { prettyParam, singleParam } from '../http/query-params.js';
import type { FeedFilter } from '../store/contract/explore.js';
import { EXPLORE_MAX_LIMIT } from './explore-requests.js';
import { pageParam } from './lookup-params.js';
import type { ExploreRequest } from './explore-requests.js';

/** The client's threat categories: sent all at once (its default), they mean any category. */
const CLIENT_CATEGORIES = ['general', 'abuse', 'apt', 'attack', 'botnet', 'crime', 'exploitkit', 'fraud', 'group', 'malware', 'proxy', 'pup', 'reconnaissance', 'spam', 'terrorism', 'phishing', 'vulnerability'];

/** Pulsedive's `artifact` (a file, a hash, anything that is not an address, name or URL): the stored types it covers. */
const ARTIFACT_TYPES = ['md5', 'sha1', 'sha256', 'sha512', 'email', 'asn'];

const LIMITS: Readonly<Record<string, number>> = { hundred: 100, thousand: 1000, tenthousand: 10_000 };
const LAST_SEEN: Readonly<Record<string, string>> = { day: '1d', week: '7d', month: '30d' };

export type SearchRequest = ExploreRequest | (Omit<ExploreRequest, 'mode' | 'filter'> & { mode: 'feeds'; filter: FeedFilter });

/** A parameter given as `name[]` (once or repeated) or as `name`: its values, blanks dropped. */
function listParam(req: Request, name: string): string[] {
  const query = req.query as Record<string, string | string[] | undefined>;
  const values = [query[`${name}[]`], query[name]].flatMap((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));
  return values.map((v) => v.trim()).filter((v) => v !== '');
}

/** A value as a quoted explore value: `\` and `"` escaped. */
const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** `field=v1 or field=v2 ...` in parentheses; nothing for no values. */
function anyOf(field: string, values: readonly string[]): string[] {
  if (values.length === 0) return [];
  return [`(${values.map((value) => `${field}=${quoted(value)}`).join(' or ')})`];
}

/** `limit`: hundred, thousand, tenthousand or a number; a page holds at most 1000 rows (more come as pages). */
function searchLimit(req: Request): number {
  const given = singleParam(req, 'limit')?.trim().toLowerCase();
  if (given === undefined || given === '') return 100;
  const limit = LIMITS[given] ?? (/^[1-9][0-9]{0,5}$/.test(given) ? Number(given) : undefined);
  if (limit === undefined) throw new BadRequestError('Parameter "limit" must be hundred, thousand, tenthousand or a whole number.');
  return Math.min(limit, EXPLORE_MAX_LIMIT);
}

function searchExport(req: Request): boolean {
  const given = singleParam(req, 'export')?.trim();
  if (given === undefined || given === '' || given === '0') return false;
  if (given === '1') return true;
  throw new BadRequestError('Parameter "export" must be 0 or 1.');
}

/** The value term: a value search (`zeus`: values holding it), or the pattern as written when it has `*`. */
function valueTerm(req: Request): string[] {
  const value = singleParam(req, 'value')?.trim() ?? '';
  if (value === '') return [];
  return [value.includes('*') ? `ioc=${quoted(value)}` : quoted(value)];
}

function indicatorQuery(req: Request): string[] {
  const types = listParam(req, 'type').flatMap((type) => (type.toLowerCase() === 'artifact' ? ARTIFACT_TYPES : [type]));
  const terms = [...valueTerm(req), ...anyOf('type', [...new Set(types)]), ...anyOf('risk', listParam(req, 'risk')), ...anyOf('feed', listParam(req, 'feed')), ...anyOf('threat', listParam(req, 'threat')), ...anyOf('attribute', listParam(req, 'attribute'))];
  const lastSeen = singleParam(req, 'lastseen')?.trim().toLowerCase();
  if (lastSeen !== undefined && lastSeen !== '') {
    const age = LAST_SEEN[lastSeen];
    if (age === undefined) throw new BadRequestError('Parameter "lastseen" must be day, week or month.');
    terms.push(`seen>${age}`);
  }
  return terms;
}

function threatQuery(req: Request): string[] {
  const categories = listParam(req, 'category').map((c) => c.toLowerCase());
  const anyCategory = CLIENT_CATEGORIES.every((c) => categories.includes(c));
  return [...valueTerm(req), ...(anyCategory ? [] : anyOf('category', categories)), ...anyOf('risk', listParam(req, 'risk'))];
}

/** `search=feed`: feeds by name (a value search, or a wildcard) and category. */
function feedFilter(req: Request): FeedFilter {
  const value = singleParam(req, 'value')?.trim() ?? '';
  const categories = listParam(req, 'category').map((c) => c.toLowerCase());
  const term = { kind: 'term' as const, field: 'value', op: '=' as const, value, at: 1 };
  return {
    name: value === '' ? null : textMatchOf(term, value.includes('*') ? value : `*${value}*`),
    categories: categories.length === 0 || CLIENT_CATEGORIES.every((c) => categories.includes(c)) ? null : categories,
  };
}

/** GET /api/search.php: indicators (the default), `search=threat` or `search=feed`, as an explore request. */
export function searchRequest(req: Request, now: number): SearchRequest {
  const search = singleParam(req, 'search')?.trim().toLowerCase() ?? '';
  const limit = searchLimit(req);
  const page = pageParam(req);
  const csv = searchExport(req);
  const pretty = prettyParam(req);
  if (search === 'feed' || search === 'feeds') {
    return { mode: 'feeds', q: `feed:${singleParam(req, 'value') ?? ''}|${listParam(req, 'category').join('|')}`, filter: feedFilter(req), limit, page, csv, pretty };
  }
  const mode = search === 'threat' || search === 'threats' ? 'threats' : search === '' || search === 'indicator' || search === 'indicators' ? 'indicators' : undefined;
  if (mode === undefined) throw new BadRequestError('Parameter "search" must be "indicator", "threat" or "feed".');
  const terms = mode === 'indicators' ? indicatorQuery(req) : threatQuery(req);
  const q = terms.join(' and ');
  // No term at all asks for everything: every row of the mode, newest first (an empty `and`).
  const filter = q === '' ? { kind: 'and' as const, filters: [] } : exploreFilter(mode, q, now);
  return { mode, q, filter, limit, page, csv, pretty };
}
