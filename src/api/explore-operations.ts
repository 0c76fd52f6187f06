// Explore and search in the OpenAPI document (docs/explore.md): GET /api/explore.php and the older GET /api/search.php, their parameters and answers.
import { z } from 'zod';
import type { OpenApiSurface, OperationDeclaration, ParameterDeclaration } from '../http/openapi-declarations.js';
import { JSON_TYPE } from '../http/openapi-json.js';
import { errorResponse, ErrorBody, LOOKUP_SECURITY, rateHeaders } from '../http/openapi-shared.js';
import { EXPLORE_DEFAULT_LIMIT, EXPLORE_MAX_LIMIT } from './explore-requests.js';
import { ExploreCsv, ExploreFeed, ExploreFeeds, ExploreIndicator, ExploreIndicators, ExploreThreat, ExploreThreats } from './explore-schemas.js';
import { pageNumber } from './lookup-schemas.js';

const TAG = 'Explore';
const CSV_TYPE = 'text/csv';
const RISKS = ['none', 'unknown', 'low', 'medium', 'high', 'critical', 'retired'] as const;

const query = (name: string, description: string, schema: z.ZodType, extra: Partial<ParameterDeclaration> = {}): ParameterDeclaration => ({ name, in: 'query', description, schema, ...extra });
/** A `name[]` parameter the pulsedive client sends once per value (`type[]=ip&type[]=domain`). */
const repeated = (name: string, description: string, item: z.ZodType = z.string()) => query(`${name}[]`, `${description} Sent once per value; several are joined by \`or\`.`, z.array(item));

const PARAMETERS: Record<string, ParameterDeclaration> = {
  'explore-q': query('q', 'The query (docs/explore.md, "Query language"): terms `FIELD=VALUE` (`!=`, and `<`, `<=`, `>`, `>=` on ordered fields) joined by `and`, `or`, `not` and parentheses; `*` a wildcard over the whole value; a term without a field searches values.', z.string().min(1), {
    required: true,
    examples: {
      subdomains: { summary: 'The subdomains of a parent, as OWASP Amass asks', value: 'type=domain and ioc=*.example.com' },
      recent: { summary: 'High-risk indicators a feed listed this week', value: 'risk>=high and seen>7d and feed="URLhaus"' },
      block: { summary: 'What lies inside a block', value: 'ioc=198.51.100.0/24 and not risk=retired' },
    },
  }),
  'explore-type': query('type', '`indicators` (left out: the default) or `threats`, singular or plural, any case: the rows asked for and the fields `q` may use.', z.enum(['indicators', 'threats', 'indicator', 'threat'])),
  'explore-search': query('search', 'The older name of `type`, read when `type` is left out (OWASP Amass sends `search=indicators`).', z.enum(['indicators', 'threats', 'indicator', 'threat'])),
  'explore-limit': query('limit', `Rows a page, a whole number from 1 to ${EXPLORE_MAX_LIMIT}.`, z.int().min(1).max(EXPLORE_MAX_LIMIT).default(EXPLORE_DEFAULT_LIMIT)),
  'explore-page': query('page', 'The page to read, from 0. A plan reads pages 0 to N-1 of a query, N being its `pages` allowance (as of links); a later page is a 403. Not read with `export`.', pageNumber),
  'explore-export': query('export', '`csv` answers the rows of every page the plan may read as one CSV document instead of a page of JSON.', z.enum(['csv'])),
  'search-value': query('value', 'A value search (values holding the text; threat or feed names holding it with `search=threat|feed`), or a pattern with `*`. Empty or left out: no condition.', z.string(), { example: 'example.com' }),
  'search-search': query('search', '`indicator` (empty or left out: the default), `threat` or `feed`, singular or plural, any case.', z.enum(['', 'indicator', 'indicators', 'threat', 'threats', 'feed', 'feeds'])),
  'search-type': repeated('type', 'Indicators of this type (`ip`, `ipv6`, `domain`, `url`, ...; an alias means its type; `artifact` the hashes, emails and ASNs).'),
  'search-risk': repeated('risk', 'Indicators or threats of this risk.', z.enum(RISKS)),
  'search-feed': repeated('feed', 'Indicators a feed of this name lists (a wildcard with `*`).'),
  'search-threat': repeated('threat', 'Indicators linked to a threat of this name or other name (a wildcard with `*`).'),
  'search-attribute': repeated('attribute', 'Indicators with an attribute of this value.'),
  'search-category': repeated('category', 'With `search=threat|feed`: threats or feeds of this category; every category the pulsedive client knows, sent at once (its default), means any.'),
  'search-property': repeated('property', 'Sent by the pulsedive client; accepted and ignored.'),
  'search-lastseen': query('lastseen', 'Indicators seen within the last `day`, `week` or `month` (30 days).', z.enum(['day', 'week', 'month'])),
  'search-limit': query('limit', `Rows a page: \`hundred\`, \`thousand\`, \`tenthousand\` or a whole number; a page holds at most ${EXPLORE_MAX_LIMIT} rows (a larger limit reads as ${EXPLORE_MAX_LIMIT}, the rest coming as pages).`, z.union([z.enum(['hundred', 'thousand', 'tenthousand']), z.int().min(1).max(999_999)]).default('hundred')),
  'search-export': query('export', '`1` answers CSV (as `export=csv` on explore.php); `0` or left out, a page of JSON.', z.int().min(0).max(1).default(0)),
  'search-page': query('page', 'The page to read, from 0, within the plan\u2019s `pages` allowance (a later page is a 403). Not read with `export=1`.', pageNumber),
  'search-latest': query('latest', 'Sent by the pulsedive client; accepted and ignored.', z.string()),
  'search-splitrisk': query('splitrisk', 'Sent by the pulsedive client with `search=threat|feed`; accepted and ignored.', z.string()),
  'search-sanitize': query('sanitize', 'Sent by the pulsedive client with every call; accepted and ignored.', z.string()),
};

const CSV_HEADERS = {
  'Content-Disposition': {
    description: 'With `export`: the CSV as an attachment, `explore-indicators.csv`, `explore-threats.csv` or `explore-feeds.csv`.',
    schema: z.string().regex(/^attachment; filename="explore-(indicators|threats|feeds)\.csv"$/),
  },
};

function exploreGet(path: string, operationId: string, summary: string, description: string, parameters: string[], pages: z.ZodType): OperationDeclaration {
  const shared = (statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), `LookupError${status}`]));
  return {
    path,
    method: 'get',
    tags: [TAG],
    operationId,
    summary,
    description,
    security: LOOKUP_SECURITY,
    parameters: [...parameters, 'pretty'],
    responses: {
      '200': {
        description: 'A page of rows as JSON, or with `export` the rows of every page the plan may read as CSV.',
        headers: { ...rateHeaders(true), ...CSV_HEADERS },
        content: { [JSON_TYPE]: pages, [CSV_TYPE]: ExploreCsv },
      },
      '400': errorResponse(
        400,
        JSON_TYPE,
        ErrorBody,
        'A parameter is missing, malformed or repeated, or the query cannot be answered as written; the message names the parameter, and for `q` where and what (`q: at 6: expected a value after "risk="`). A wildcard without three characters in a row, or a query still running after `explore.maxMillis`, is `narrow the query`.',
      ),
      ...shared([401]),
      '403': errorResponse(403, JSON_TYPE, ErrorBody, 'A page beyond the plan\u2019s allowance, a key whose plan this server no longer offers, or an admin key.'),
      ...shared([429, 500, 503]),
    },
  };
}

export function exploreOpenApi(): OpenApiSurface {
  return {
    tags: [{ name: TAG, description: 'Questions asked of the whole store, in a query language (docs/explore.md): the endpoint OWASP Amass calls, and the older search the pulsedive client sends. Keys, plans, rate limits and error bodies are the lookup API\u2019s.' }],
    schemas: { ExploreIndicator, ExploreThreat, ExploreFeed, ExploreIndicators, ExploreThreats, ExploreFeeds, ExploreCsv },
    parameters: PARAMETERS,
    operations: [
      exploreGet(
        '/api/explore.php',
        'exploreQuery',
        'Indicators or threats matching a query, a page at a time or as CSV',
        'Rows newest first (by `iid` or `tid`, descending); a row keeps its place while pulls write, new ones coming at the front. The checks run in this order: the key (401), the rate limits (429), the parameters and the query (400), the page allowance (403). Every field is answered through an index of its own (docs/explore.md, "How queries stay bounded").',
        ['explore-q', 'explore-type', 'explore-search', 'explore-limit', 'explore-page', 'explore-export'],
        z.union([ExploreIndicators, ExploreThreats]),
      ),
      exploreGet(
        '/api/search.php',
        'searchLegacy',
        'The older search, as the pulsedive client sends it: indicators, threats or feeds',
        'Each form is an explore query underneath (docs/explore.md, "GET /api/search.php"), with the same rows, paging, CSV, errors and limits as explore.php: indicators by `value`, `type[]`, `risk[]`, `feed[]`, `threat[]`, `attribute[]` and `lastseen`; `search=threat` threats by `value`, `category[]` and `risk[]`; `search=feed` feeds by `value` and `category[]`. A request with no condition lists every row, newest first.',
        ['search-value', 'search-search', 'search-type', 'search-risk', 'search-feed', 'search-threat', 'search-attribute', 'search-category', 'search-property', 'search-lastseen', 'search-limit', 'search-export', 'search-page', 'search-latest', 'search-splitrisk', 'search-sanitize'],
        z.union([ExploreIndicators, ExploreThreats, ExploreFeeds]),
      ),
    ],
  };
}
