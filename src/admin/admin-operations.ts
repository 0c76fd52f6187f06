// The operator API in the OpenAPI document (docs/interface.md section 13, /admin/api/): its security schemes, parameters, errors and operations.
import { z } from 'zod';
import type { OpenApiSurface, OperationDeclaration, ParameterDeclaration, ResponseDeclaration, Security } from '../http/openapi-declarations.js';
import { JSON_TYPE } from '../http/openapi-json.js';
import { ErrorBody } from '../http/openapi-shared.js';
import { DEFAULT_RUNS, MAX_RUNS } from './admin-params.js';
import { FeedRun, FeedRuns, FeedStatus, FeedStatuses, PullRequest } from './admin-schemas.js';
import { Allowlist, AllowlistAdded, AllowlistAddition, AllowlistPreview } from './allowlist-schemas.js';
import { Provenance } from './provenance-schemas.js';
import { DEFAULT_SIGHTINGS, MAX_SIGHTINGS } from './admin-sightings.js';
import { ObservationCounts, Sighting, SightingAddition, SightingPage } from './sighting-schemas.js';

const TAG = 'Operator API';
const SECURITY: Security = [{ adminBasic: [] }, { adminBearer: [] }];
const NO_STORE = { 'Cache-Control': 'Cache-Control-No-Store' };
/** What every operation may answer before its own work: the key, the address's failed authentications, the store. */
const GATE = [400, 401, 403, 429, 500, 503];

const MEANINGS: Record<number, string> = {
  400: 'A parameter or path segment is malformed, or the admin key was sent as `?key=` (refused, never read: a URL ends up in logs and browser history); the message names it.',
  401: 'No credentials, another Basic username than `admin`, or a malformed, unknown or revoked key. A wrong key counts as a failed authentication of the client address (see 429).',
  403: 'A key with a plan: the operator API opens only with an admin key. Or a change requested by a browser from another site (`Sec-Fetch-Site`).',
  404: 'No such feed, no such run-time allowlist entry, no such stored indicator or threat (sightings), or no such path.',
  409: 'The allowlist entry is there already (at run time or in the config), or is the config\u2019s, which only the config changes.',
  413: 'The request body is larger than 16384 bytes.',
  415: 'The request body is not JSON (`Content-Type: application/json`, UTF-8).',
  429: 'The client address made `auth.failuresPerMinute` failed authentications within the last minute: every key it presents is refused until the oldest of them is a minute old. No plan\u2019s rate limits apply here.',
  500: 'An unexpected fault (the body never carries internal details).',
  503: 'The database cannot be reached.',
};

function errorResponses(): Record<string, ResponseDeclaration> {
  const responses: Record<string, ResponseDeclaration> = {};
  for (const [status, description] of Object.entries(MEANINGS)) {
    const headers: Record<string, string> = { ...NO_STORE };
    if (status === '401') headers['WWW-Authenticate'] = 'WWW-Authenticate-Admin';
    if (status === '429') headers['Retry-After'] = 'Retry-After';
    responses[`AdminError${status}`] = { description, headers, content: { [JSON_TYPE]: ErrorBody } };
  }
  return responses;
}

const PARAMETERS: Record<string, ParameterDeclaration> = {
  'admin-fid': { name: 'fid', in: 'path', description: 'The feed\u2019s identifier.', schema: z.int().min(1), example: 1 },
  'runs-limit': {
    name: 'limit',
    in: 'query',
    description: `How many runs, newest first: 1 to ${MAX_RUNS}, ${DEFAULT_RUNS} when left out. Another value is a 400.`,
    schema: z.int().min(1).max(MAX_RUNS).default(DEFAULT_RUNS),
  },
  'allowlist-entry': {
    name: 'entry',
    in: 'path',
    description: 'The run-time entry as listed, URL-encoded: a CIDR block\u2019s `/` as `%2F` (a plain `/` is taken too).',
    schema: z.string().min(1),
    example: '198.51.100.0/24',
  },
  'sightings-value': { name: 'value', in: 'query', description: 'An indicator\u2019s value as pasted (refanged and normalized as indicator.php reads it). Exactly one of `value`, `iid` and `tid`.', schema: z.string().min(1), example: 'example.com' },
  'sightings-iid': { name: 'iid', in: 'query', description: 'An indicator\u2019s id. Exactly one of `value`, `iid` and `tid`.', schema: z.int().min(1) },
  'sightings-tid': { name: 'tid', in: 'query', description: 'A threat\u2019s id. Exactly one of `value`, `iid` and `tid`.', schema: z.int().min(1) },
  'sightings-limit': {
    name: 'limit',
    in: 'query',
    description: `Sightings a page: 1 to ${MAX_SIGHTINGS}, ${DEFAULT_SIGHTINGS} when left out.`,
    schema: z.int().min(1).max(MAX_SIGHTINGS).default(DEFAULT_SIGHTINGS),
  },
  'sightings-before': { name: 'before', in: 'query', description: 'Only sightings older than this sighting id: the next page, as `next` gives it.', schema: z.int().min(1) },
  'why-value': { name: 'value', in: 'query', required: true, description: 'The value, in any spelling: it is normalized as pulls normalize it.', schema: z.string().min(1), example: 'example.com' },
};

interface AdminOperation {
  path: string;
  method: OperationDeclaration['method'];
  operationId: string;
  summary: string;
  description: string;
  parameters?: string[];
  /** The 200 body, or the success responses written out. */
  success: z.ZodType | Record<string, ResponseDeclaration>;
  statuses: number[];
  requestBody?: OperationDeclaration['requestBody'];
}

function operation(op: AdminOperation): OperationDeclaration {
  const errors = Object.fromEntries(op.statuses.map((status) => [String(status), `AdminError${status}`]));
  const success = op.success instanceof z.ZodType ? { '200': { description: op.summary, headers: NO_STORE, content: { [JSON_TYPE]: op.success } } } : op.success;
  return {
    path: op.path,
    method: op.method,
    tags: [TAG],
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description} Admin keys only; not cached (\`Cache-Control: no-store\`).`,
    security: SECURITY,
    parameters: op.parameters ?? [],
    ...(op.requestBody ? { requestBody: op.requestBody } : {}),
    responses: { ...success, ...errors },
  };
}

const OPERATIONS: AdminOperation[] = [
  { path: '/admin/api/feeds', method: 'get', operationId: 'getAdminFeeds', summary: 'Every feed\u2019s health and last run', description: 'One entry per feed with a source or runs: its state, last good pull and last run.', success: FeedStatuses, statuses: GATE },
  {
    path: '/admin/api/feeds/{fid}/runs',
    method: 'get',
    operationId: 'getAdminFeedRuns',
    summary: 'A feed\u2019s runs, newest first',
    description: 'Its latest runs (pulls), kept per feed for `health.keepRuns` runs. An unknown feed is a 404; a feed never pulled has none.',
    parameters: ['admin-fid', 'runs-limit'],
    success: FeedRuns,
    statuses: [...GATE, 404],
  },
  {
    path: '/admin/api/feeds/{fid}/pull',
    method: 'post',
    operationId: 'pullAdminFeed',
    summary: 'Ask for a pull of a feed now',
    description:
      'Hands the pull to the puller (never pulls in the serving process) and answers 202 at once with the request. The puller of any instance takes it at its next check (at once on this instance), under the feed\u2019s lease as every pull, and records a run with trigger `console`: the first such run started at or after `requested`, listed under `runs` (also the `Location` header). Asking again while the request waits is the same request; a feed being pulled now is `running`, and the requested pull follows it. A feed with no source is a 404. Any request body is ignored.',
    parameters: ['admin-fid'],
    success: {
      '202': {
        description: 'The request, waiting for the puller',
        headers: { ...NO_STORE, Location: { description: 'Where the run will appear: the feed\u2019s latest runs.', schema: z.string() } },
        content: { [JSON_TYPE]: PullRequest },
      },
    },
    statuses: [...GATE, 404],
  },
  {
    path: '/admin/api/why',
    method: 'get',
    operationId: 'getAdminWhy',
    summary: 'Why a value is (or is not) on the lists',
    description: 'Its indicator, the feeds that list or listed it, its threats and what linked them, the allowlist entry that keeps it out, the last rejection by a pull, its collections and exports.',
    parameters: ['why-value'],
    success: Provenance,
    statuses: GATE,
  },
  { path: '/admin/api/allowlist', method: 'get', operationId: 'getAdminAllowlist', summary: 'The allowlist', description: 'The entries pulls keep out: the config\u2019s, then those added at run time with who added them, when and why.', success: Allowlist, statuses: GATE },
  {
    path: '/admin/api/allowlist',
    method: 'post',
    operationId: 'addAdminAllowlistEntry',
    summary: 'Add an allowlist entry, or dry-run it',
    description:
      'Adds a run-time entry, which retires the stored indicators it covers in one write (risk `retired`, reason `allowlisted`, STIX `valid_until`) and keeps them out of every later pull; with `dryRun` true, counts and names them and changes nothing. The entry is checked as the config\u2019s are: a bad one is a 400 naming it, one already there (at run time or in the config) a 409.',
    success: {
      '200': { description: 'The dry run: what adding the entry would retire now.', headers: NO_STORE, content: { [JSON_TYPE]: AllowlistPreview } },
      '201': {
        description: 'Added: the indicators it retired.',
        headers: { ...NO_STORE, Location: { description: 'The entry\u2019s path, for DELETE.', required: true, schema: z.string().regex(new RegExp('^/admin/api/allowlist/')) } },
        content: { [JSON_TYPE]: AllowlistAdded },
      },
    },
    statuses: [...GATE, 409, 413, 415],
    requestBody: { required: true, content: { [JSON_TYPE]: AllowlistAddition } },
  },
  {
    path: '/admin/api/allowlist/{entry}',
    method: 'delete',
    operationId: 'removeAdminAllowlistEntry',
    summary: 'Remove a run-time allowlist entry',
    description: 'The next pulls may store again what it kept out; what it retired stays retired until a pull lists it again. An entry of the config is a 409 (only the config changes it); one on neither list a 404.',
    parameters: ['allowlist-entry'],
    success: { '204': { description: 'Removed.', headers: NO_STORE } },
    statuses: [...GATE, 404, 409],
  },
  {
    path: '/admin/api/sightings',
    method: 'get',
    operationId: 'getAdminSightings',
    summary: 'An indicator\u2019s or a threat\u2019s sightings, newest first',
    description:
      'Of the indicator named by `value` or `iid`, or of the threat `tid` (exactly one of them): what its observations add up to, and a page of its sightings, newest first, with the path of the next page while older ones remain. A value that is no indicator is a 400; one the store does not hold, or an unknown iid or tid, a 404.',
    parameters: ['sightings-value', 'sightings-iid', 'sightings-tid', 'sightings-limit', 'sightings-before'],
    success: SightingPage,
    statuses: [...GATE, 404],
  },
  {
    path: '/admin/api/sightings',
    method: 'post',
    operationId: 'recordAdminSighting',
    summary: 'Record a sighting of an indicator or a threat',
    description:
      'Records that the value (a stored indicator) or the threat was seen, reported by the admin key: an observation of it, as a pull\u2019s listing is (its `stamp_seen`, and that of each threat the indicator is linked to, become the time it was seen when that is later; a retired threat stays retired). Each field is checked: a bad one is a 400 naming it, a value or tid the store does not hold a 404; either way nothing is written.',
    success: { '201': { description: 'The sighting as stored.', headers: NO_STORE, content: { [JSON_TYPE]: Sighting } } },
    statuses: [...GATE, 404, 413, 415],
    requestBody: { required: true, content: { [JSON_TYPE]: SightingAddition } },
  },
];

export function adminOpenApi(): OpenApiSurface {
  return {
    tags: [{ name: TAG, description: 'Feed health, runs, pulls, provenance, the allowlist and sightings (docs/interface.md, Operator API; docs/observations.md): admin keys only, sent as HTTP Basic `admin:KEY` or `Authorization: Bearer KEY`, never in the query; no plan\u2019s rate limits, failed authentications counted as everywhere.' }],
    schemas: { FeedRun, FeedStatus, FeedStatuses, FeedRuns, Provenance, Allowlist, AllowlistPreview, PullRequest, AllowlistAdded, Sighting, ObservationCounts, SightingPage },
    requestSchemas: { AllowlistAddition, SightingAddition },
    parameters: PARAMETERS,
    headers: {
      'WWW-Authenticate-Admin': { description: 'Always `Basic realm="threatgate admin"`.', required: true, schema: z.literal('Basic realm="threatgate admin"') },
      'Cache-Control-No-Store': { description: 'Always `no-store`: no answer of the operator API is kept by a browser or a proxy.', required: true, schema: z.literal('no-store') },
    },
    responses: errorResponses(),
    securitySchemes: {
      adminBasic: { type: 'http', scheme: 'basic', description: 'Operator API: username `admin`, password an admin key (`threatgate keys create --admin`).' },
      adminBearer: { type: 'http', scheme: 'bearer', description: 'Operator API: `Authorization: Bearer <admin key>`.' },
    },
    operations: OPERATIONS.map(operation),
  };
}
