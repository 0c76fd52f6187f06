// The lookup API in the OpenAPI document: its four operations, their parameters and errors (docs/interface.md sections 4-6).
import { z } from 'zod';
import type { Config } from '../config.js';
import type { OpenApiSurface, OperationDeclaration, ParameterDeclaration, ResponseDeclaration } from '../http/openapi-declarations.js';
import { JSON_TYPE } from '../http/openapi-json.js';
import { errorResponse, ErrorBody, LOOKUP_SECURITY, rateHeaders } from '../http/openapi-shared.js';
import { Indicator, indicatorLinksSchema, IndicatorProperties, LinkedIndicator, linksPageSchema, RelatedIndicator } from './indicator-schemas.js';
import { Feed, pageNumber, PropertyCounts, recordId, Risk, RiskCounts, Threat, Timestamp, ValueCounts } from './lookup-schemas.js';

const TAG = 'Lookup API';
const ERROR_STATUSES = [400, 401, 403, 404, 429, 500, 503];
const name = z.string().min(1);
const query = (parameter: string, description: string, schema: z.ZodType, example?: unknown): ParameterDeclaration => ({
  name: parameter,
  in: 'query',
  description,
  schema,
  ...(example !== undefined ? { example } : {}),
});
const ignored = (parameter: string) => query(parameter, 'info.php: sent by existing clients; accepted and ignored.', z.string());

const PARAMETERS: Record<string, ParameterDeclaration> = {
  tid: query('tid', 'The threat\u2019s identifier. Wins over `threat` when both are given; with neither, the answer is a 400 naming `tid`.', recordId, 1),
  threat: query('threat', 'A threat\u2019s name or alias, ignoring case (the lowest `tid` when several match).', name, 'Vexorat'),
  fid: query('fid', 'The feed\u2019s identifier. When given, `feed` and `organization` are ignored.', recordId, 1),
  feed: query('feed', 'The feed\u2019s name, ignoring case; needs `organization`.', name, 'Botnet C&C (IPv4)'),
  organization: query('organization', 'The organization of the feed named by `feed`, ignoring case.', name, 'Nightwatch Research'),
  get: query(
    'get',
    '`links` asks for a page of the linked indicators of the threat (`tid`) or feed (`fid`), or of the related indicators of the indicator (`iid`, required then); `properties` for the indicator\u2019s properties (`iid`).',
    z.enum(['links', 'properties']),
  ),
  iid: query('iid', 'The indicator\u2019s identifier. Wins over `indicator` when both are given.', recordId, 1),
  indicator: query(
    'indicator',
    'A value as analysts paste it: defanged (`hxxps://`, `[.]`, `[at]`, ...) or with a port after an address or name (`192.0.2.1:80`, `[2001:db8::1]:443`), refanged first; then normalized as pulls normalize it (domains in lower case without a trailing dot, IPv6 in RFC 5952 form, a URL\u2019s scheme and host in lower case, ...), looked up under its type and the alias types an import may use. An address no indicator holds is answered by the narrowest active stored block holding it, with `matched`. A value that is no indicator of any type is a 400.',
    name,
    'example.com',
  ),
  tname: query('tname', 'info.php: a threat\u2019s name or alias, as `threat` on threat.php.', name, 'Zeus'),
  summary: query(
    'summary',
    'info.php: `1` with `get=links` (the pulsedive client\u2019s threat summary) answers the threat or feed itself, whose `summary` sums up its linked indicators, instead of a page of them; any other value changes nothing.',
    z.string(),
  ),
  splitrisk: ignored('splitrisk'),
  sanitize: ignored('sanitize'),
  schema: ignored('schema'),
  page: query(
    'page',
    'With `get=links` (a threat\u2019s, feed\u2019s or indicator\u2019s): the page to read, 0 when left out. A plan reads pages 0 to N-1 of a query, N being its `pages` allowance; a later page is a 403.',
    pageNumber,
  ),
};

/** A GET of the lookup API: its keys, limits and errors, with its own parameters and body. */
function lookupGet(path: string, operationId: string, summary: string, description: string, parameters: string[], body: z.ZodType, notFound: string, ok = summary): OperationDeclaration {
  const errors: Record<string, ResponseDeclaration | string> = Object.fromEntries(ERROR_STATUSES.map((status) => [String(status), `LookupError${status}`]));
  errors['404'] = errorResponse(404, JSON_TYPE, ErrorBody, `${notFound}, or no such path.`);
  return {
    path,
    method: 'get',
    tags: [TAG],
    operationId,
    summary,
    description,
    security: LOOKUP_SECURITY,
    parameters: [...parameters, 'pretty'],
    responses: { '200': { description: ok, headers: rateHeaders(true), content: { [JSON_TYPE]: body } }, ...errors },
  };
}

export function lookupOpenApi(config: Config): OpenApiSurface {
  const LinksPage = linksPageSchema(config.linksPageSize);
  const recordOrLinks = (record: z.ZodType, what: string) => ({
    body: z.union([record, LinksPage]),
    ok: `The ${what} (without \`get\`), or a page of its linked indicators (\`get=links\`).`,
  });
  const IndicatorLinks = indicatorLinksSchema(config.linksPageSize);
  const threat = recordOrLinks(Threat, 'threat');
  const feed = recordOrLinks(Feed, 'feed');
  return {
    tags: [{ name: TAG, description: 'Threats, feeds, their linked indicators, and one indicator by value (docs/interface.md sections 4-6).' }],
    schemas: { Timestamp, Risk, RiskCounts, ValueCounts, PropertyCounts, Threat, Feed, LinkedIndicator, Indicator, LinksPage, RelatedIndicator, IndicatorLinks, IndicatorProperties },
    parameters: PARAMETERS,
    responses: Object.fromEntries(ERROR_STATUSES.map((status) => [`LookupError${status}`, errorResponse(status, JSON_TYPE, ErrorBody)])),
    operations: [
      lookupGet(
        '/api/threat.php',
        'getThreat',
        'A threat, or a page of its linked indicators',
        'By `tid`, by name or alias (`threat`), or `tid` with `get=links[&page=P]` for its linked indicators. The checks run in this order: the key (401), the rate limits (429), the parameters (400), the page allowance (403), the record (404). Also answers HEAD; other methods are 405 with `Allow: GET, HEAD`.',
        ['tid', 'threat', 'get', 'page'],
        threat.body,
        '`Threat not found.`',
        threat.ok,
      ),
      lookupGet(
        '/api/feed.php',
        'getFeed',
        'A feed, or a page of its linked indicators',
        'By `feed` and `organization` (both required), by `fid`, or `fid` with `get=links[&page=P]` for its linked indicators. The checks run in the same order as for threats. Also answers HEAD; other methods are 405.',
        ['fid', 'feed', 'organization', 'get', 'page'],
        feed.body,
        '`Feed not found.`',
        feed.ok,
      ),
      lookupGet(
        '/api/indicator.php',
        'getIndicator',
        'An indicator, by value or by id, or its links or properties',
        'By `indicator` (a value in any spelling pulls normalize to the same one, defanged or with a port as analysts paste it; an address no indicator holds answers the narrowest active stored block holding it, with `matched`) or by `iid`. With `iid`, `get=links[&page=P]` answers its related indicators by relation and `get=properties` its properties. The checks run in the same order as for threats. Also answers HEAD; other methods are 405.',
        ['iid', 'indicator', 'get', 'page'],
        z.union([Indicator, IndicatorLinks, IndicatorProperties]),
        '`Indicator not found.`',
        'The indicator (without `get`), its links (`get=links`) or its properties (`get=properties`).',
      ),
      lookupGet(
        '/api/info.php',
        'getInfo',
        'The older single entry point: an indicator, a threat, a feed, or a page of linked indicators',
        'Stands for another endpoint, by the first of its parameters given: `iid` or `indicator` for indicator.php, `tid` or `tname` (a name or alias) for threat.php, `fid`, or `feed` with `organization`, for feed.php; with `get=links` (and `get=properties` for an `iid`), `page` and `pretty` as there. Same bodies, errors and limits as that endpoint; a request naming none of them is a 400. `summary=1` with `get=links` answers the threat or feed, for its `summary`; `splitrisk`, `sanitize` and `schema` are accepted and ignored.',
        ['iid', 'indicator', 'tid', 'tname', 'fid', 'feed', 'organization', 'get', 'page', 'summary', 'splitrisk', 'sanitize', 'schema'],
        z.union([Indicator, Threat, Feed, LinksPage, IndicatorLinks, IndicatorProperties]),
        '`Indicator not found.`, `Threat not found.` or `Feed not found.`',
      ),
    ],
  };
}
