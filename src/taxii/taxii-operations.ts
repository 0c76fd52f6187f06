// The TAXII 2.1 gateway in the OpenAPI document: its operations, parameters, headers and errors (docs/interface.md section 9).
import { z } from 'zod';
import type { Config } from '../config.js';
import type { OpenApiSurface, OperationDeclaration, ParameterDeclaration, ResponseDeclaration } from '../http/openapi-declarations.js';
import { errorResponse, rateHeaders, TAXII_SECURITY } from '../http/openapi-shared.js';
import { TAXII_MEDIA_TYPE as TAXII } from './media-type.js';
import { ApiRoot, Collection, Collections, Discovery, Envelope, Manifest, STIX_ID, STIX_TYPE, StixObject, TaxiiError, Versions } from './taxii-schemas.js';

const TAG = 'TAXII 2.1';
const GATE_ERRORS = [400, 401, 403, 406, 429, 500, 503];
const RESOURCE_ERRORS = [400, 401, 403, 404, 406, 429, 500, 503];
const LISTING = ['added_after', 'limit', 'next'];
const dateTime = z.iso.datetime({ offset: true });

const query = (name: string, description: string, schema: z.ZodType, extra: Partial<ParameterDeclaration> = {}): ParameterDeclaration => ({ name, in: 'query', description, schema, ...extra });
/** A `match[...]` filter: comma-separated values, any of which an object may match. */
const match = (field: string, item: z.ZodType, description: string, example: string) => query(`match[${field}]`, description, z.array(item).min(1), { list: true, example: [example] });

function parameters(config: Config): Record<string, ParameterDeclaration> {
  return {
    accept: query(
      'accept',
      'With query-string authentication (`key`): takes the place of the Accept header, e.g. `accept=application%2Ftaxii%2Bjson%3Bversion%3D2.1`. A `+` decoded to a space is read as `+`.',
      z.string(),
      { example: TAXII },
    ),
    limit: query(
      'limit',
      `Objects per page: ${config.taxii.defaultLimit} when left out, and a value above ${config.taxii.maxLimit} is lowered to ${config.taxii.maxLimit}. With \`next\`, a \`limit\` wins for that page and is carried on; without one, the token\u2019s limit holds.`,
      z.int().min(1),
    ),
    added_after: query(
      'added_after',
      'Only objects added (`date_added`) later than this: RFC 3339 with 0 to 6 fractional digits and any offset, or `YYYY-MM-DD HH:MM:SS` (UTC).',
      z.union([dateTime, z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)]),
      { example: '2026-01-15T10:00:00.123456Z' },
    ),
    next: query('next', 'The `next` token of the previous page. It carries the first request\u2019s filters; an altered token, or one of another listing, is a 400.', z.string().min(1)),
    'match-id': match('id', z.string().regex(STIX_ID), 'STIX ids, comma-separated; an object matches any of them.', 'indicator--593efada-1b4e-543f-a440-dc78d2ed3018'),
    'match-type': match('type', z.string().regex(STIX_TYPE), 'STIX types, comma-separated.', 'indicator'),
    'match-version': match(
      'version',
      z.union([z.enum(['first', 'last', 'all']), dateTime]),
      '`first`, `last`, `all` or a `modified` timestamp, comma-separated. Only the latest version of each object is kept, so `first`, `last` and `all` give the same one.',
      'last',
    ),
    'match-spec_version': match('spec_version', z.string().regex(/^\d{1,2}\.\d{1,2}$/), 'STIX versions, comma-separated; every object is STIX 2.1.', '2.1'),
    collection_id: {
      name: 'collection_id',
      in: 'path',
      description: 'A collection\u2019s id (see Get Collections).',
      schema: z.string(),
      ...(config.collections.length > 0 ? { examples: Object.fromEntries(config.collections.map((c) => [c.alias ?? c.id, { summary: c.title, value: c.id }])) } : {}),
    },
    object_id: { name: 'object_id', in: 'path', description: 'A STIX object id.', schema: z.string(), example: 'indicator--593efada-1b4e-543f-a440-dc78d2ed3018' },
    status_id: { name: 'status_id', in: 'path', description: 'A status id. None exists: this server accepts no writes.', schema: z.string() },
  };
}

/** References to the shared TAXII error responses; a status with its own description is written out. */
function errors(statuses: number[], descriptions: Record<number, string> = {}): Record<string, ResponseDeclaration | string> {
  return Object.fromEntries(statuses.map((status) => [String(status), descriptions[status] ? taxiiError(status, descriptions[status]) : `TaxiiError${status}`]));
}

const taxiiError = (status: number, description?: string) => errorResponse(status, TAXII, TaxiiError, description, status === 401 ? { 'WWW-Authenticate': 'WWW-Authenticate' } : {});

const DATE_HEADERS = { 'X-TAXII-Date-Added-First': 'X-TAXII-Date-Added-First', 'X-TAXII-Date-Added-Last': 'X-TAXII-Date-Added-Last' };
const TO_OBJECT = {
  GetObject: { operationId: 'getObject', parameters: { collection_id: '$request.path.collection_id', object_id: '$response.body#/objects/0/id' }, description: 'The first listed object.' },
  GetObjectVersions: { operationId: 'getObjectVersions', parameters: { collection_id: '$request.path.collection_id', object_id: '$response.body#/objects/0/id' }, description: 'The versions of the first listed object.' },
};

interface TaxiiGet {
  path: string;
  operationId: string;
  summary: string;
  description: string;
  parameters: string[];
  body: z.ZodType;
  statuses: number[];
  paging?: boolean;
  links?: boolean;
}

function taxiiGet(get: TaxiiGet): OperationDeclaration {
  const headers = { ...rateHeaders(true), ...(get.paging ? DATE_HEADERS : {}) };
  return {
    path: get.path,
    method: 'get',
    tags: [TAG],
    operationId: get.operationId,
    summary: get.summary,
    description: get.description,
    security: TAXII_SECURITY,
    parameters: [...get.parameters, 'accept', 'pretty'],
    responses: { '200': { description: get.summary, headers, content: { [TAXII]: get.body }, ...(get.links ? { links: TO_OBJECT } : {}) }, ...errors(get.statuses) },
  };
}

function refusedWrite(path: string, method: 'post' | 'delete', operationId: string, summary: string, parameters: string[]): OperationDeclaration {
  return {
    path,
    method,
    tags: [TAG],
    operationId,
    summary,
    description: 'Collections are read-only (`can_write` is false): a request that passes authentication, the rate limits, the plan and the media type is refused with 403. Any body is ignored.',
    security: TAXII_SECURITY,
    parameters: [...parameters, 'accept'],
    responses: errors(RESOURCE_ERRORS, { 403: 'Always, past the earlier checks: this server accepts no writes.' }),
  };
}

export function taxiiOpenApi(config: Config): OpenApiSurface {
  const collection = '/taxii2/api/collections/{collection_id}';
  const object = `${collection}/objects/{object_id}`;
  const filters = ['match-id', 'match-type', 'match-version', 'match-spec_version'];
  return {
    tags: [{ name: TAG, description: 'The read-only TAXII 2.1 gateway (docs/interface.md section 9). The checks run in this order: authentication (401), rate limits (429), plan (403), media type (406), resource (404), parameters (400). Every path also answers without its trailing slash.' }],
    schemas: { TaxiiError, Discovery, ApiRoot, Collection, Collections, StixObject, Envelope, Manifest, Versions },
    parameters: parameters(config),
    headers: {
      'WWW-Authenticate': { description: 'Always `Basic realm="threatgate"`.', required: true, schema: z.literal('Basic realm="threatgate"') },
      'X-TAXII-Date-Added-First': { description: 'The `date_added` of the first object of the page (RFC 3339, six fractional digits). Only on a page that lists objects.', schema: z.iso.datetime() },
      'X-TAXII-Date-Added-Last': { description: 'The `date_added` of the last object of the page; a poller resumes with `added_after` set to it. Only on a page that lists objects.', schema: z.iso.datetime() },
    },
    responses: Object.fromEntries(RESOURCE_ERRORS.map((status) => [`TaxiiError${status}`, taxiiError(status)])),
    operations: [
      taxiiGet({ path: '/taxii2/', operationId: 'getDiscovery', summary: 'Server discovery', description: 'TAXII 2.1 section 4.1: the one API root, as a path without host or query string.', parameters: [], body: Discovery, statuses: GATE_ERRORS }),
      taxiiGet({ path: '/taxii2/api/', operationId: 'getApiRoot', summary: 'API root information', description: 'TAXII 2.1 section 4.2.', parameters: [], body: ApiRoot, statuses: GATE_ERRORS }),
      {
        path: '/taxii2/api/status/{status_id}/',
        method: 'get',
        tags: [TAG],
        operationId: 'getStatus',
        summary: 'Get status (always 404)',
        description: 'TAXII 2.1 section 4.3. Nothing is ever written, so no status exists: past the earlier checks the answer is 404, whatever the method.',
        security: TAXII_SECURITY,
        parameters: ['status_id', 'accept'],
        responses: errors(RESOURCE_ERRORS),
      },
      taxiiGet({ path: '/taxii2/api/collections/', operationId: 'getCollections', summary: 'The collections', description: 'TAXII 2.1 section 5.1.', parameters: [], body: Collections, statuses: GATE_ERRORS }),
      taxiiGet({
        path: `${collection}/`,
        operationId: 'getCollection',
        summary: 'One collection',
        description: 'TAXII 2.1 section 5.2. Plans without TAXII `all` may read only the collections marked free (the test collection).',
        parameters: ['collection_id'],
        body: Collection,
        statuses: RESOURCE_ERRORS,
      }),
      taxiiGet({
        path: `${collection}/manifest/`,
        operationId: 'getManifest',
        summary: 'Object manifests',
        description: 'TAXII 2.1 section 5.3: ascending `date_added`, a page at a time.',
        parameters: ['collection_id', ...LISTING, ...filters],
        body: Manifest,
        statuses: RESOURCE_ERRORS,
        paging: true,
        links: true,
      }),
      taxiiGet({
        path: `${collection}/objects/`,
        operationId: 'getObjects',
        summary: 'Objects',
        description:
          'TAXII 2.1 section 5.4: an envelope of STIX objects in ascending `date_added`, each object in its latest version. A `match[...]` filter the endpoint does not support, an unknown one, a malformed value or a repeated parameter is a 400.',
        parameters: ['collection_id', ...LISTING, ...filters],
        body: Envelope,
        statuses: RESOURCE_ERRORS,
        paging: true,
        links: true,
      }),
      refusedWrite(`${collection}/objects/`, 'post', 'addObjects', 'Add objects (refused)', ['collection_id']),
      taxiiGet({
        path: `${object}/`,
        operationId: 'getObject',
        summary: 'One object',
        description: 'TAXII 2.1 section 5.6: the object in an envelope.',
        parameters: ['collection_id', 'object_id', ...LISTING, 'match-version', 'match-spec_version'],
        body: Envelope,
        statuses: RESOURCE_ERRORS,
        paging: true,
      }),
      refusedWrite(`${object}/`, 'delete', 'deleteObject', 'Delete an object (refused)', ['collection_id', 'object_id']),
      taxiiGet({
        path: `${object}/versions/`,
        operationId: 'getObjectVersions',
        summary: 'Versions of an object',
        description: 'TAXII 2.1 section 5.8.',
        parameters: ['collection_id', 'object_id', ...LISTING, 'match-spec_version'],
        body: Versions,
        statuses: RESOURCE_ERRORS,
        paging: true,
      }),
    ],
  };
}
