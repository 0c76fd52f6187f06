// The operator API in the OpenAPI document (DESIGN 11, /admin/api/): its security schemes, schemas, responses and paths, merged by openapi-document.ts.
import { INDICATOR_TYPES } from '../indicator-types.js';
import { closed, headerRef, integer, JSON_TYPE, nullable, ref, string, type Json } from './openapi-json.js';

const ADMIN_TAG = 'Operator API';
const ADMIN_SECURITY = [{ adminBasic: [] }, { adminBearer: [] }];
const ENTRY = 'An address or CIDR block, a domain (it and every name under it), or an exact value.';
const count = (description?: string): Json => ({ type: 'integer', minimum: 0, ...(description ? { description } : {}) });

export const ADMIN_SECURITY_SCHEMES: Json = {
  adminBasic: { type: 'http', scheme: 'basic', description: 'Operator API: username `admin`, password an admin key (`threatgate keys create --admin`).' },
  adminBearer: { type: 'http', scheme: 'bearer', description: 'Operator API: `Authorization: Bearer <admin key>`.' },
};

export const ADMIN_HEADERS: Json = {
  'WWW-Authenticate-Admin': { description: 'Always `Basic realm="threatgate admin"`.', required: true, schema: { type: 'string', const: 'Basic realm="threatgate admin"' } },
  'Cache-Control-No-Store': { description: 'Always `no-store`: no answer of the operator API is kept by a browser or a proxy.', required: true, schema: { type: 'string', const: 'no-store' } },
};

/** Written out as the contract (src/http imports neither src/sources nor the store's runs for its enums); the OpenAPI test holds them true to the responses. */
export function adminSchemas(): Json {
  const timestamp = ref('Timestamp');
  return {
    FeedRun: closed(
      {
        run: { type: 'integer', minimum: 1, description: 'The run\u2019s id, increasing across the store.' },
        fid: { type: 'integer', minimum: 1 },
        started: timestamp,
        finished: timestamp,
        seconds: { type: 'number', minimum: 0, description: 'finished - started, to a tenth of a second.' },
        trigger: { type: 'string', enum: ['schedule', 'command', 'console'], description: 'What started the pull: the background schedule, `threatgate feeds pull`, or the operator API.' },
        outcome: { type: 'string', enum: ['ok', 'not-modified', 'failed'] },
        http_status: nullable(integer('The status of the upstream\u2019s last response; null when there was none.')),
        bytes: nullable(count('Body bytes read, after decompression.')),
        values: nullable(count('Distinct values listed; null for a failed run.')),
        new_indicators: nullable(count()),
        new_links: nullable(count()),
        unlisted: nullable(count('Values the feed listed before and no longer lists.')),
        churn: nullable({
          type: 'number', minimum: 0, maximum: 1,
          description: 'The share of the previous listing\u2019s values this pull no longer lists (`unlisted` over the values listed before it); null for a failed run, a first pull and an incremental source (taxii, misp).',
        }),
        rejected: closed({ unparseable: count(), allowlisted: count() }, { description: 'Values left out, by reason.' }),
        threats: nullable(count('Threats the pull named.')),
        error: nullable(string('Why it failed, with every secret masked; null unless failed.')),
        etag: nullable(string('The upstream\u2019s ETag.')),
        last_modified: nullable(string('The upstream\u2019s Last-Modified.')),
      },
      { description: 'One pull of a feed (DESIGN 11), as `threatgate feeds history --json` prints it.' },
    ),
    FeedStatus: closed(
      {
        fid: { type: 'integer', minimum: 1 },
        feed: string(),
        organization: string(),
        state: {
          type: 'string',
          enum: ['paused', 'never-pulled', 'failing', 'stale', 'quiet-upstream', 'ok'],
          description: 'The first that holds: `paused` (no source), `never-pulled`, `failing` (the last run failed), `stale` (no good pull for two schedule periods), `quiet-upstream` (good pulls, but nothing changed for `health.quietDays`), else `ok`.',
        },
        schedule: string('The schedule its pulls follow.'),
        last_good_pull: nullable(timestamp),
        last_good_pull_age_seconds: nullable(count()),
        last_run: nullable(ref('FeedRun')),
        values: count('Values the feed lists now.'),
        new_in_last_run: nullable(count('New indicators of the last run.')),
        churn: nullable({ type: 'number', minimum: 0, maximum: 1, description: 'The churn of the latest good run (FeedRun `churn`).' }),
        last_error: nullable(string('Why the last run failed; null unless it did.')),
        stamp_modified: nullable(timestamp),
      },
      { description: 'A feed\u2019s health (DESIGN 11), as `threatgate feeds status --json` prints it.' },
    ),
    FeedStatuses: closed({ feeds: { type: 'array', items: ref('FeedStatus'), description: 'Every feed with a source or runs, by ascending `fid`.' } }),
    FeedRuns: closed({ runs: { type: 'array', items: ref('FeedRun'), description: 'Newest first.' } }),
    Provenance: closed(
      {
        value: string('The value as asked.'),
        normalized: nullable(closed({ value: string(), type: { type: 'string', enum: [...INDICATOR_TYPES] } }, { description: 'The value as pulls normalize it, and its detected type; null when it is no indicator of any type.' })),
        unparseable: nullable(string('Why it is no indicator; null when it is one.')),
        indicator: nullable(
          closed({
            iid: { type: 'integer', minimum: 1 },
            type: string(),
            value: string(),
            risk: ref('Risk'),
            retired: { type: 'boolean' },
            retired_reason: nullable({ type: 'string', enum: ['aged-out', 'allowlisted', 'upstream', 'feed-deleted'] }),
            stamp_retired: nullable(timestamp),
            stamp_added: nullable(timestamp),
            stamp_seen: nullable(timestamp),
          }),
        ),
        feeds: {
          type: 'array',
          description: 'Each feed that lists it now or listed it.',
          items: closed({
            fid: { type: 'integer', minimum: 1 },
            feed: string(),
            organization: string(),
            listed_now: { type: 'boolean' },
            first_listed: timestamp,
            last_listed: nullable(timestamp),
            risk: nullable(ref('Risk')),
            linked_by: { type: 'string', enum: ['pull', 'import'] },
          }),
        },
        threats: {
          type: 'array',
          description: 'Each threat it is linked to, and the feed whose pull linked it (null: an import file).',
          items: closed({
            tid: { type: 'integer', minimum: 1 },
            name: string(),
            retired: { type: 'boolean' },
            stamp_linked: timestamp,
            linked_by: nullable(closed({ fid: { type: 'integer', minimum: 1 }, feed: string() })),
          }),
        },
        risk_from: { type: 'array', description: 'The feeds listing it now that give it the indicator\u2019s risk.', items: closed({ fid: { type: 'integer', minimum: 1 }, feed: string() }) },
        allowlist: nullable(closed({ entry: string() }, { description: 'The allowlist entry that keeps it out of every pull.' })),
        rejection: nullable(closed({ fid: { type: 'integer', minimum: 1 }, feed: string(), at: timestamp, reason: { type: 'string', enum: ['unparseable', 'allowlisted'] } }, { description: 'The last time a pull rejected it.' })),
        collections: { type: 'array', items: closed({ id: string(), title: string(), alias: nullable(string()) }) },
        exports: { type: 'array', description: 'The exports that list it: its collections while it is not retired.', items: closed({ collection: string(), url: string() }) },
      },
      { description: 'Why a value is (or is not) on the lists (DESIGN 11), as `threatgate why --json` prints it.' },
    ),
    Allowlist: closed({
      entries: {
        type: 'array',
        description: 'The effective allowlist: the config\u2019s `allowlist` (or the built-in default when the config gives none), then the entries added at run time, oldest first.',
        items: {
          oneOf: [
            closed({ entry: string(ENTRY), origin: { type: 'string', const: 'config', description: 'From the config\u2019s `allowlist`: changed there, never here.' } }),
            closed({
              entry: string(ENTRY),
              origin: { type: 'string', const: 'runtime', description: 'Added at run time (`threatgate allowlist add`, the console or POST /admin/api/allowlist).' },
              added_by: string('Who added it: the admin key\u2019s id, or `command line`.'),
              added_by_label: nullable(string('The label of the admin key that added it; null when the key has none, or is not in the store (and for `command line`).')),
              added_at: timestamp,
              reason: nullable(string('Why, as its author wrote it; null when none was given.')),
            }),
          ],
        },
      },
    }),
    AllowlistAddition: closed(
      {
        entry: { type: 'string', minLength: 1, maxLength: 2048, description: `${ENTRY} Leading and trailing blanks are dropped.` },
        reason: { type: 'string', maxLength: 500, description: 'Why, for the next operator; control characters become spaces. Empty when left out.' },
        dryRun: { type: 'boolean', default: false, description: 'true: only count and name what adding it would retire, and change nothing.' },
      },
      { required: ['entry'] },
    ),
    AllowlistPreview: closed(
      {
        entry: string('The entry as it would be kept.'),
        dryRun: { type: 'boolean', const: true },
        count: count('Stored indicators, not retired yet, that adding it would retire: exactly what applying it retires now.'),
        sample: { type: 'array', maxItems: 20, description: 'The first of them.', items: closed({ iid: { type: 'integer', minimum: 1 }, value: string(), type: string() }) },
      },
      { description: 'The dry run of an allowlist entry: nothing was changed.' },
    ),
    PullRequest: closed(
      {
        fid: { type: 'integer', minimum: 1 },
        state: { type: 'string', enum: ['queued', 'running'], description: '`queued` until a puller takes the feed\u2019s lease; `running` when a pull of the feed is under way already (the requested one follows it).' },
        requested: timestamp,
        requested_by: nullable(string('The id of the admin key that asked first.')),
        pulling: nullable(string('The holder of the lease and since when, when `running`.')),
        runs: string('The path of the feed\u2019s latest runs, where the requested run appears.'),
      },
      { description: 'A "Pull now" handed to the puller.' },
    ),
    AllowlistAdded: closed(
      {
        entry: string('The entry as it is kept.'),
        added: { type: 'boolean', const: true },
        retired: count('Stored indicators it retired (risk `retired`, reason `allowlisted`, their STIX indicators expired).'),
      },
      { description: 'An allowlist entry added at run time.' },
    ),
  };
}

const MEANINGS: Record<number, string> = {
  400: 'A parameter or path segment is malformed, or the admin key was sent as `?key=` (refused, never read: a URL ends up in logs and browser history); the message names it.',
  401: 'No credentials, another Basic username than `admin`, or a malformed, unknown or revoked key. A wrong key counts as a failed authentication of the client address (see 429).',
  403: 'A key with a plan: the operator API opens only with an admin key. Or a change requested by a browser from another site (`Sec-Fetch-Site`).',
  404: 'No such feed, no such run-time allowlist entry, or no such path.',
  409: 'The allowlist entry is there already (at run time or in the config), or is the config\u2019s, which only the config changes.',
  413: 'The request body is larger than 16384 bytes.',
  415: 'The request body is not JSON (`Content-Type: application/json`, UTF-8).',
  429: 'The client address made `auth.failuresPerMinute` failed authentications within the last minute: every key it presents is refused until the oldest of them is a minute old. No plan\u2019s rate limits apply here.',
  500: 'An unexpected fault (the body never carries internal details).',
  503: 'The database cannot be reached.',
};

export function adminResponses(): Json {
  const responses: Json = {};
  for (const [status, description] of Object.entries(MEANINGS)) {
    const headers: Json = { 'Cache-Control': headerRef('Cache-Control-No-Store') };
    if (status === '401') headers['WWW-Authenticate'] = headerRef('WWW-Authenticate-Admin');
    if (status === '429') headers['Retry-After'] = headerRef('Retry-After');
    responses[`AdminError${status}`] = { description, headers, content: { [JSON_TYPE]: { schema: ref('Error') } } };
  }
  return responses;
}

export const ADMIN_PARAMETERS: Json = {
  'admin-fid': { name: 'fid', in: 'path', required: true, description: 'The feed\u2019s identifier.', schema: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER }, example: 1 },
  'runs-limit': { name: 'limit', in: 'query', required: false, description: 'How many runs, newest first: 1 to 1000, 20 when left out. Another value is a 400.', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 20 } },
  'allowlist-entry': {
    name: 'entry',
    in: 'path',
    required: true,
    description: 'The run-time entry as listed, URL-encoded: a CIDR block\u2019s `/` as `%2F` (a plain `/` is taken too).',
    schema: { type: 'string', minLength: 1 },
    example: '198.51.100.0/24',
  },
  'why-value': { name: 'value', in: 'query', required: true, description: 'The value, in any spelling: it is normalized as pulls normalize it.', schema: { type: 'string', minLength: 1 }, example: 'example.com' },
};

/** One operation of the operator API: `success` names the 200 body's schema, or gives the success responses. */
function operation(
  method: 'get' | 'post' | 'delete',
  operationId: string,
  summary: string,
  description: string,
  parameters: string[],
  success: string | Json,
  statuses: number[],
  extra: Json = {},
): Json {
  const errors = Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/AdminError${status}` }]));
  const noStore = { 'Cache-Control': headerRef('Cache-Control-No-Store') };
  return {
    [method]: {
      tags: [ADMIN_TAG],
      operationId,
      summary,
      description: `${description} Admin keys only; not cached (\`Cache-Control: no-store\`).`,
      security: ADMIN_SECURITY,
      parameters: parameters.map((name) => ({ $ref: `#/components/parameters/${name}` })),
      ...extra,
      responses: {
        ...(typeof success === 'string' ? { '200': { description: summary, headers: noStore, content: { [JSON_TYPE]: { schema: ref(success) } } } } : success),
        ...errors,
      },
    },
  };
}

/** GET, POST (add or dry run) and DELETE of the allowlist (DESIGN 12). */
function allowlistPaths(gate: number[]): Json {
  const noStore = { 'Cache-Control': headerRef('Cache-Control-No-Store') };
  const add = operation(
    'post',
    'addAdminAllowlistEntry',
    'Add an allowlist entry, or dry-run it',
    'Adds a run-time entry, which retires the stored indicators it covers in one write (risk `retired`, reason `allowlisted`, STIX `valid_until`) and keeps them out of every later pull; with `dryRun` true, counts and names them and changes nothing. The entry is checked as the config\u2019s are: a bad one is a 400 naming it, one already there (at run time or in the config) a 409.',
    [],
    {
      '200': { description: 'The dry run: what adding the entry would retire now.', headers: noStore, content: { [JSON_TYPE]: { schema: ref('AllowlistPreview') } } },
      '201': {
        description: 'Added: the indicators it retired.',
        headers: { ...noStore, Location: { description: 'The entry\u2019s path, for DELETE.', required: true, schema: { type: 'string', pattern: '^/admin/api/allowlist/' } } },
        content: { [JSON_TYPE]: { schema: ref('AllowlistAdded') } },
      },
    },
    [...gate, 409, 413, 415],
    { requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref('AllowlistAddition') } } } },
  );
  const remove = operation(
    'delete',
    'removeAdminAllowlistEntry',
    'Remove a run-time allowlist entry',
    'The next pulls may store again what it kept out; what it retired stays retired until a pull lists it again. An entry of the config is a 409 (only the config changes it); one on neither list a 404.',
    ['allowlist-entry'],
    { '204': { description: 'Removed.', headers: noStore } },
    [...gate, 404, 409],
  );
  return {
    '/admin/api/allowlist': { ...operation('get', 'getAdminAllowlist', 'The allowlist', 'The entries pulls keep out: the config\u2019s, then those added at run time with who added them, when and why.', [], 'Allowlist', gate), ...add },
    '/admin/api/allowlist/{entry}': remove,
  };
}

export function adminPaths(): Json {
  const gate = [400, 401, 403, 429, 500, 503];
  return {
    '/admin/api/feeds': operation('get', 'getAdminFeeds', 'Every feed\u2019s health and last run', 'One entry per feed with a source or runs: its state, last good pull and last run.', [], 'FeedStatuses', gate),
    '/admin/api/feeds/{fid}/runs': operation('get', 'getAdminFeedRuns', 'A feed\u2019s runs, newest first', 'Its latest runs (pulls), kept per feed for `health.keepRuns` runs. An unknown feed is a 404; a feed never pulled has none.', ['admin-fid', 'runs-limit'], 'FeedRuns', [...gate, 404]),
    '/admin/api/feeds/{fid}/pull': operation(
      'post',
      'pullAdminFeed',
      'Ask for a pull of a feed now',
      'Hands the pull to the puller (never pulls in the serving process) and answers 202 at once with the request. The puller of any instance takes it at its next check (at once on this instance), under the feed\u2019s lease as every pull, and records a run with trigger `console`: the first such run started at or after `requested`, listed under `runs` (also the `Location` header). Asking again while the request waits is the same request; a feed being pulled now is `running`, and the requested pull follows it. A feed with no source is a 404. Any request body is ignored.',
      ['admin-fid'],
      { '202': { description: 'The request, waiting for the puller', headers: { 'Cache-Control': headerRef('Cache-Control-No-Store'), Location: { description: 'Where the run will appear: the feed\u2019s latest runs.', schema: { type: 'string' } } }, content: { [JSON_TYPE]: { schema: ref('PullRequest') } } } },
      [...gate, 404],
    ),
    '/admin/api/why': operation('get', 'getAdminWhy', 'Why a value is (or is not) on the lists', 'Its indicator, the feeds that list or listed it, its threats and what linked them, the allowlist entry that keeps it out, the last rejection by a pull, its collections and exports.', ['why-value'], 'Provenance', gate),
    ...allowlistPaths(gate),
  };
}
