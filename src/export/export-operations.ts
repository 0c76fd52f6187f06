// The exports in the OpenAPI document: GET /export/{collection_id}.txt and .csv (docs/interface.md section 11).
import { z } from 'zod';
import type { Config } from '../config.js';
import type { OpenApiSurface, OperationDeclaration } from '../http/openapi-declarations.js';
import { JSON_TYPE } from '../http/openapi-json.js';
import { errorResponse, ErrorBody, rateHeaders, TAXII_SECURITY } from '../http/openapi-shared.js';
import { ExportEtag, ExportList, ExportMax, ExportStyle, ExportTypes, HttpDate, LineCount } from './export-schemas.js';
import { MAX_LINES } from './export-format.js';

const TAG = 'Exports';
const MEDIA_TYPES = { txt: 'text/plain', csv: 'text/csv' } as const;
const VALIDATORS = { ETag: 'Export-ETag', 'Last-Modified': 'Export-Last-Modified' };

function exportOperation(format: 'txt' | 'csv', description: string): OperationDeclaration {
  const lookupErrors = (statuses: number[]) => Object.fromEntries(statuses.map((status) => [String(status), `LookupError${status}`]));
  return {
    path: `/export/{collection_id}.${format}`,
    method: 'get',
    tags: [TAG],
    operationId: format === 'txt' ? 'getExportText' : 'getExportCsv',
    summary: format === 'txt' ? 'A collection\u2019s active indicators, one value per line' : 'A collection\u2019s active indicators as CSV',
    description,
    security: TAXII_SECURITY,
    parameters: ['export-collection', 'export-type', 'export-style', 'export-max'],
    responses: {
      '200': {
        description: 'The list, streamed (gzip when Accept-Encoding asks for it).',
        headers: { ...rateHeaders(true), ...VALIDATORS, 'X-Export-Total': 'X-Export-Total', 'X-Export-Omitted': 'X-Export-Omitted' },
        content: { [MEDIA_TYPES[format]]: ExportList },
      },
      '304': { description: 'The list is unchanged since the `If-None-Match` validator: nothing is read or sent.', headers: { ...rateHeaders(true), ...VALIDATORS } },
      ...lookupErrors([400]),
      '401': {
        ...errorResponse(401, JSON_TYPE, ErrorBody, 'No key, or a malformed, unknown or revoked one (HTTP Basic `taxii2:KEY` or `?key=`). Not counted against the rate limits.'),
        headers: { 'WWW-Authenticate': 'WWW-Authenticate' },
      },
      '403': errorResponse(403, JSON_TYPE, ErrorBody, 'The plan does not include TAXII (or only the free test collection), the key\u2019s plan is no longer offered, or the key is an admin key: as TAXII answers.'),
      '404': errorResponse(404, JSON_TYPE, ErrorBody, 'No collection with this id or alias.'),
      ...lookupErrors([429, 500, 503]),
    },
  };
}

export function exportOpenApi(config: Config): OpenApiSurface {
  const examples = Object.fromEntries(
    config.collections.flatMap((c) => [[c.id, { summary: c.title, value: c.id }], ...(c.alias ? [[c.alias, { summary: `${c.title}, by its alias`, value: c.alias }]] : [])]),
  );
  return {
    tags: [{ name: TAG, description: 'Plain-text and CSV lists of a collection for firewalls and scripts (docs/interface.md section 11): the keys, plan gate and rate limits of TAXII, `ETag`/`If-None-Match`, gzip when asked.' }],
    parameters: {
      'export-collection': {
        name: 'collection_id',
        in: 'path',
        description: 'A collection\u2019s id (see Get Collections), or its `alias`, as `threatgate export` takes it.',
        schema: z.string(),
        ...(config.collections.length > 0 ? { examples } : {}),
      },
      'export-type': {
        name: 'type',
        in: 'query',
        description: `Only indicators of these types, comma-separated (case ignored). Pulls store an IPv4 address as \`ip\`, a CIDR block as \`ip\` or \`ipv6\`, a hostname as \`domain\` and a URI as \`url\`, so \`ipv4\` also lists \`ip\`, \`cidr\` both \`ip\` and \`ipv6\`, \`hostname\` \`domain\` and \`uri\` \`url\`. An unknown type, or \`type\` given twice, is a 400.`,
        schema: ExportTypes,
        list: true,
        example: ['ip'],
      },
      'export-style': { name: 'style', in: 'query', description: '`panos` writes URLs without their scheme (`https://`), as PAN-OS URL lists take them. Another value is a 400.', schema: ExportStyle },
      'export-max': {
        name: 'max',
        in: 'query',
        description: `A device limit: at most this many lines, chosen by risk (critical, high, medium, low, none, unknown), then \`stamp_seen\` (latest first, never seen last), then value, and listed in that order. \`X-Export-Total\` and \`X-Export-Omitted\` say what it left out. A whole number from 1 to ${MAX_LINES}; another value, or \`max\` given twice, is a 400.`,
        schema: ExportMax,
        example: 50000,
      },
    },
    headers: {
      'Export-ETag': {
        description: 'A weak validator of the list: it changes with the data version, the collection\u2019s filter and the list\u2019s parameters. Sent back in `If-None-Match`, it gets a 304 while the list is unchanged.',
        required: true,
        schema: ExportEtag,
      },
      'Export-Last-Modified': { description: 'When the import that made the current data ended (HTTP-date); absent while nothing was ever imported.', schema: HttpDate },
      'X-Export-Total': { description: 'With `max` only: the lines the list has without it (a `.txt` list has none for a value holding a line break). Not on a 304.', schema: LineCount },
      'X-Export-Omitted': { description: 'With `max` only: the lines `max` left out, `X-Export-Total` less the lines sent. Not on a 304.', schema: LineCount },
    },
    operations: [
      exportOperation(
        'txt',
        'For firewalls\u2019 external lists (PAN-OS EDL, FortiGate threat feeds, pfBlockerNG): each active (not retired) indicator of the collection\u2019s view, its value alone, in ascending `iid` (with `max`, the kept ones in the order they are chosen), with no header; a value holding a line break is left out. The checks run in TAXII\u2019s order: the key (401), the rate limits (429), the plan (403), the collection (404), the parameters (400). Also answers HEAD.',
      ),
      exportOperation(
        'csv',
        'The same indicators as the `.txt` list, under the header `value,type,risk,stamp_seen,threats`, one record per indicator quoted per RFC 4180 (CRLF line ends); `stamp_seen` is `YYYY-MM-DD HH:MM:SS` or empty, `threats` the names of its linked threats joined with `|`. Also answers HEAD.',
      ),
    ],
  };
}
