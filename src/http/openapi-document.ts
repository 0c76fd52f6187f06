// The OpenAPI 3.1 description of every HTTP route (DESIGN section 9), written by hand from
// docs/interface.md and checked against real responses by test/http/openapi.test.ts and, in CI, by
// schemathesis (interop/run-schemathesis.sh). Values the config decides (plans, page sizes,
// collections) are read from the config the server runs with.
import type { Config } from '../config.js';
import { RISK_LEVELS } from '../domain.js';
import { INDICATOR_TYPES } from '../indicator-types.js';
import { ADMIN_HEADERS, ADMIN_PARAMETERS, ADMIN_SECURITY_SCHEMES, adminPaths, adminResponses, adminSchemas } from './openapi-admin.js';
import { closed, headerRef, integer, JSON_TYPE, nullable, ref, string, type Json } from './openapi-json.js';

/** Written out here: src/http may not import src/taxii (one-way folders), and this is the contract anyway. */
const TAXII = 'application/taxii+json;version=2.1';
const STIX = 'application/stix+json;version=2.1';
/** STIX identifiers as this server writes and accepts them: `type--UUID`, lower case. */
const STIX_ID_PATTERN = '^[a-z0-9][a-z0-9-]+[a-z0-9]--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';

// ---- Headers ---------------------------------------------------------------------------------

const RATE_HEADER_NAMES = ['RateLimit', 'RateLimit-Policy', 'X-Requests-Remaining-Second', 'X-Requests-Remaining-Day', 'X-Requests-Remaining-Month'] as const;

/** The rate-limit headers of a counted response; `required` only where every response carries them. */
function rateHeaders(required: boolean): Json {
  return Object.fromEntries(
    RATE_HEADER_NAMES.map((name) => [name, required ? { $ref: `#/components/headers/${name}` } : { $ref: `#/components/headers/${name}-optional` }]),
  );
}

/** A pattern for a header of comma-separated entries, as several header lines of one name are joined (RFC 9110 section 5.3). */
const listOf = (entry: string) => `^${entry}(, ${entry})*$`;

function headerComponents(): Json {
  const definitions: Record<(typeof RATE_HEADER_NAMES)[number], Json> = {
    RateLimit: {
      description:
        'IETF draft-ietf-httpapi-ratelimit-headers-08: one entry per window (`second`, `day`, `month`) with the requests left (`r`) and the seconds until the window resets (`t`), e.g. `"second"; r=9; t=1, "day"; r=49996; t=51202, "month"; r=999996; t=656002`. Sent as one header line per window.',
      schema: { type: 'string', pattern: listOf('"(second|day|month)"; r=\\d+; t=\\d+') },
    },
    'RateLimit-Policy': {
      description:
        'IETF draft 8: one entry per window with its quota (`q`), its length in seconds (`w`) and a partition key (`pk`, a hash of the counter key, never the API key), e.g. `"second"; q=10; w=1; pk=:OWNkZTk0ZTI2Yzdm:`.',
      schema: { type: 'string', pattern: listOf('"(second|day|month)"; q=\\d+; w=\\d+; pk=:[A-Za-z0-9+/=]*:') },
    },
    'X-Requests-Remaining-Second': { description: 'Requests left in the current one-second window.', schema: { type: 'integer', minimum: 0 } },
    'X-Requests-Remaining-Day': { description: 'Requests left in the current one-day window.', schema: { type: 'integer', minimum: 0 } },
    'X-Requests-Remaining-Month': { description: 'Requests left in the current 30-day window.', schema: { type: 'integer', minimum: 0 } },
  };
  const headers: Json = {};
  for (const name of RATE_HEADER_NAMES) {
    headers[name] = { ...definitions[name], required: true };
    headers[`${name}-optional`] = {
      ...definitions[name],
      description: `${definitions[name].description as string} Present when the request was counted against the rate limits (it got past the key check).`,
    };
  }
  headers['Retry-After'] = { description: 'Seconds to wait before the limit that was used up allows another request.', required: true, schema: { type: 'integer', minimum: 1 } };
  headers['WWW-Authenticate'] = { description: 'Always `Basic realm="threatgate"`.', required: true, schema: { type: 'string', const: 'Basic realm="threatgate"' } };
  headers['Export-ETag'] = {
    description: 'A weak validator of the list: it changes with the data version, the collection\u2019s filter and the list\u2019s parameters. Sent back in `If-None-Match`, it gets a 304 while the list is unchanged.',
    required: true,
    schema: { type: 'string', pattern: '^W/"[A-Za-z0-9_-]{27}"$' },
  };
  headers['Export-Last-Modified'] = {
    description: 'When the import that made the current data ended (HTTP-date); absent while nothing was ever imported.',
    schema: { type: 'string', pattern: '^[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT$' },
  };
  headers['X-Export-Total'] = {
    description: 'With `max` only: the lines the list has without it (a `.txt` list has none for a value holding a line break). Not on a 304.',
    schema: { type: 'integer', minimum: 0 },
  };
  headers['X-Export-Omitted'] = {
    description: 'With `max` only: the lines `max` left out, `X-Export-Total` less the lines sent. Not on a 304.',
    schema: { type: 'integer', minimum: 0 },
  };
  headers['X-TAXII-Date-Added-First'] = {
    description: 'The `date_added` of the first object of the page (RFC 3339, six fractional digits). Only on a page that lists objects.',
    schema: { type: 'string', format: 'date-time' },
  };
  headers['X-TAXII-Date-Added-Last'] = {
    description: 'The `date_added` of the last object of the page; a poller resumes with `added_after` set to it. Only on a page that lists objects.',
    schema: { type: 'string', format: 'date-time' },
  };
  return headers;
}

// ---- Schemas ---------------------------------------------------------------------------------

function schemaComponents(config: Config): Json {
  const timestamp: Json = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: 'UTC, `YYYY-MM-DD HH:MM:SS`.', examples: ['2026-01-15 10:00:00'] };
  const valueCounts: Json = { type: 'object', description: 'Each value found, with the number of linked indicators that have it.', additionalProperties: { type: 'integer', minimum: 0 } };
  const attributeCounts = (keys: string[]): Json =>
    closed(Object.fromEntries(keys.map((key) => [key, ref('ValueCounts')])), { description: 'Counts of the linked indicators\u2019 attribute values, per attribute.' });
  const stixId: Json = { type: 'string', pattern: STIX_ID_PATTERN };
  const rfc3339: Json = { type: 'string', format: 'date-time' };
  const continuation = {
    more: { type: 'boolean', description: 'True when another page follows; it then comes with `next`.' },
    next: { type: 'string', description: 'The token to send back as `next` for the following page.' },
  };
  /** `more: true` always comes with `next`, and `next` only with `more: true`. */
  const moreNeedsNext: Json = { if: { properties: { more: { const: true } } }, then: { required: ['next'] }, else: { not: { required: ['next'] } } };

  return {
    Timestamp: timestamp,
    Risk: { type: 'string', enum: [...RISK_LEVELS], description: 'A risk level.' },
    RiskCounts: closed(
      Object.fromEntries(['unknown', 'low', 'medium', 'high', 'critical', 'retired', 'total', 'none'].map((k) => [k, { type: 'integer', minimum: 0 }])),
      { description: 'Linked indicators per risk level; an indicator whose `retired` flag is set counts as `retired`; `total` counts them all.' },
    ),
    ValueCounts: valueCounts,
    PropertyCounts: {
      type: 'object',
      description: 'For each scalar property of the linked indicators (`country`, `asn`, ...), its 25 most frequent values with their counts.',
      additionalProperties: ref('ValueCounts'),
    },
    Threat: closed(
      {
        tid: { type: 'integer', minimum: 1 },
        threat: string('Its name.'),
        category: string('E.g. `malware`, `apt`, `botnet`; the data decides.'),
        othernames: { type: 'array', items: { type: 'string' }, description: 'Aliases.' },
        risk: ref('Risk'),
        description: nullable(string()),
        notes: nullable(string()),
        wikisummary: nullable(string()),
        wikireference: nullable(string('Address of the encyclopedia article.')),
        retired: nullable({ type: 'boolean', description: 'True for a retired threat, false for an active one.' }),
        stamp_added: nullable(ref('Timestamp')),
        stamp_updated: nullable(ref('Timestamp')),
        stamp_seen: nullable(ref('Timestamp')),
        stamp_retired: nullable(ref('Timestamp')),
        updated_last_domain: nullable(ref('Timestamp')),
        related: {
          type: 'array',
          items: closed({ tid: { type: 'integer', minimum: 1 }, name: string(), category: string(), risk: ref('Risk'), stamp_updated: nullable(ref('Timestamp')) }),
        },
        attributes: { type: 'object', description: 'Free-form attributes.' },
        ttps: { type: 'array', items: { type: 'object' }, description: 'Tactics, techniques and procedures, free-form.' },
        news: {
          type: 'array',
          items: closed({ title: string(), channel: string(), icon: string(), link: string(), stamp: ref('Timestamp'), primary: integer() }),
        },
        comments: {
          type: 'array',
          items: closed({ cid: integer(), username: string(), title: string(), comment: string(), stamp_added: ref('Timestamp'), stamp_updated: ref('Timestamp') }),
        },
        summary: closed({
          updated_last_domain: nullable(ref('Timestamp')),
          attributes: attributeCounts(['technology', 'hosttype', 'protocol', 'port']),
          properties: ref('PropertyCounts'),
          feeds: {
            type: 'array',
            description: 'Feeds sharing indicators with the threat.',
            items: closed({ fid: { type: 'integer', minimum: 1 }, organization: string(), name: string(), pricing: string(), category: string(), indicators: { type: 'integer', minimum: 0, description: 'Shared indicators.' } }),
          },
          risk: ref('RiskCounts'),
        }),
      },
      { description: 'A threat (spec section 2.1). Every field is present; the aggregates are computed from the stored links.' },
    ),
    Feed: closed(
      {
        fid: { type: 'integer', minimum: 1 },
        feed: string('Its name.'),
        organization: string(),
        category: string(),
        pricing: string('Free-form, e.g. `free`, `commercial`.'),
        contact: closed({ name: string(), email: string(), phone: string() }),
        website: string(),
        schedule: string('How often it is updated, free-form.'),
        stamp_added: nullable(ref('Timestamp')),
        stamp_updated: nullable(ref('Timestamp')),
        stamp_pulled: nullable(ref('Timestamp')),
        stamp_modified: nullable(ref('Timestamp')),
        description: string(),
        accesslink: string('Where the feed is obtained: no credentials, query values shown as `***`.'),
        indicators: ref('RiskCounts'),
        summary: closed({
          properties: ref('PropertyCounts'),
          attributes: attributeCounts(['technology', 'protocol', 'port']),
          threats: {
            type: 'array',
            description: 'Threats sharing indicators with the feed.',
            items: closed({
              indicators: { type: 'integer', minimum: 0, description: 'Shared indicators.' },
              tid: { type: 'integer', minimum: 1 },
              category: string(),
              stamp_updated: nullable(ref('Timestamp')),
              risk: ref('Risk'),
              name: string(),
            }),
          },
          risk: ref('RiskCounts'),
        }),
      },
      { description: 'A feed (spec section 2.2).' },
    ),
    LinkedIndicator: closed({
      iid: { type: 'integer', minimum: 1 },
      indicator: string('The value: an address, a domain, a URL, a hash, ...'),
      type: { type: 'string', enum: [...INDICATOR_TYPES] },
      risk: ref('Risk'),
      stamp_linked: ref('Timestamp'),
      summary: closed({ properties: { type: 'object', description: 'The indicator\u2019s free-form properties (`country`, `asn`, ...).' } }),
    }),
    Indicator: closed(
      {
        iid: { type: 'integer', minimum: 1 },
        type: { type: 'string', enum: [...INDICATOR_TYPES], description: 'As stored: a pull stores the detected type (`ip`, `ipv6`, `domain`, `url`, ...), an import the type its record names.' },
        indicator: string('The value, as stored.'),
        risk: ref('Risk'),
        retired: { type: 'integer', enum: [0, 1], description: '1 when its risk is `retired` (aged out or withdrawn upstream) or an import set its `retired` flag.' },
        retired_reason: nullable({ type: 'string', enum: ['aged-out', 'allowlisted', 'upstream', 'feed-deleted'], description: 'What retired it, when the service did: `aged-out` (no source listed it for `lifecycle.indicatorRetireDays`), `upstream` (its source withdrew it), `allowlisted` (an allowlist entry covers it), `feed-deleted` (the one feed that gave it was deleted). Null otherwise.' }),
        stamp_added: nullable(ref('Timestamp')),
        stamp_updated: nullable(ref('Timestamp')),
        stamp_seen: nullable(ref('Timestamp')),
        stamp_retired: nullable(ref('Timestamp')),
        threats: {
          type: 'array',
          description: 'The threats it is linked to, by ascending `tid`.',
          items: closed({ tid: { type: 'integer', minimum: 1 }, name: string(), category: string(), risk: ref('Risk'), stamp_linked: ref('Timestamp') }),
        },
        feeds: {
          type: 'array',
          description: 'The feeds that list or listed it, by ascending `fid`.',
          items: closed({ fid: { type: 'integer', minimum: 1 }, name: string(), category: string(), organization: string(), pricing: string(), stamp_linked: ref('Timestamp') }),
        },
        attributes: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, description: 'Attribute name -> values, `{}` when none.' },
      },
      { description: 'An indicator (DESIGN section 4, after Pulsedive\u2019s indicator model).' },
    ),
    LinksPage: {
      type: 'object',
      description: `A page of linked indicators, ascending by \`iid\`, ${config.linksPageSize} per page. When every one fits on page 0 the body is \`results\` alone; otherwise every page has \`page_current\`, and \`page_next\` while more follow. A page past the end has \`page_current\` and an empty \`results\`.`,
      required: ['results'],
      properties: {
        page_current: { type: 'integer', minimum: 0 },
        page_next: { type: 'integer', minimum: 1 },
        results: { type: 'array', items: ref('LinkedIndicator'), maxItems: config.linksPageSize },
      },
      dependentRequired: { page_next: ['page_current'] },
      additionalProperties: false,
    },
    Error: closed({ error: string('What went wrong, naming the parameter or the limit; never internal details.') }, { examples: [{ error: 'Parameter "tid" must be a positive integer.' }] }),
    Liveness: closed({ status: { const: 'ok' } }),
    Readiness: {
      type: 'object',
      additionalProperties: false,
      required: ['status', 'puller'],
      properties: {
        status: { const: 'ready' },
        puller: { type: 'string', enum: ['up', 'down', 'off'], description: 'The thread that pulls source feeds: `up`, `down` (it died and is being restarted; lookups are still served), or `off` (this instance runs none).' },
        pullerRestarts: { type: 'integer', minimum: 0, description: 'Times the puller was restarted since the process started (absent when `off`).' },
      },
    },
    NotReady: closed({ status: { const: 'unavailable' }, error: string() }),
    // TAXII 2.1 resources (TAXII 2.1 sections 3.6.1, 3.7, 4.1, 4.2, 5.1-5.8).
    TaxiiError: {
      type: 'object',
      description: 'The TAXII error resource (TAXII 2.1 section 3.6.1).',
      required: ['title', 'description', 'error_code', 'http_status'],
      properties: {
        title: { type: 'string', minLength: 1 },
        description: string(),
        error_id: string(),
        error_code: { type: 'string', enum: ['bad_request', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'not_acceptable', 'rate_limited', 'internal', 'unavailable'] },
        http_status: { type: 'string', pattern: '^[1-5][0-9]{2}$', description: 'The HTTP status, as a string.' },
        external_details: string(),
        details: { type: 'object' },
      },
      examples: [{ title: 'Forbidden', description: 'The Free plan may read only the free test collection; TAXII access is included in the Pro or Feed plans.', error_code: 'forbidden', http_status: '403' }],
    },
    Discovery: {
      type: 'object',
      required: ['title', 'default', 'api_roots'],
      properties: {
        title: string(),
        description: string(),
        contact: string(),
        default: { type: 'string', const: '/taxii2/api/' },
        api_roots: { type: 'array', items: { type: 'string' }, minItems: 1, description: 'Absolute paths, without host or query string.' },
      },
    },
    ApiRoot: {
      type: 'object',
      required: ['title', 'versions', 'max_content_length'],
      properties: {
        title: string(),
        description: string(),
        versions: { type: 'array', items: { type: 'string' }, contains: { const: TAXII } },
        max_content_length: { type: 'integer', minimum: 1 },
      },
    },
    Collection: {
      type: 'object',
      required: ['id', 'title', 'can_read', 'can_write', 'media_types'],
      properties: {
        id: string(),
        title: string(),
        description: string(),
        alias: string(),
        can_read: { const: true },
        can_write: { const: false, description: 'Collections are read-only views of the data.' },
        media_types: { type: 'array', items: { const: STIX } },
      },
    },
    Collections: { type: 'object', properties: { collections: { type: 'array', items: ref('Collection') } } },
    StixObject: {
      type: 'object',
      description: 'A STIX 2.1 object: indicator, malware, intrusion-set, campaign, infrastructure, tool, identity or relationship (docs/stix-mapping.md).',
      required: ['type', 'spec_version', 'id', 'created', 'modified'],
      properties: {
        type: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]+[a-z0-9]$' },
        spec_version: { const: '2.1' },
        id: stixId,
        created: rfc3339,
        modified: rfc3339,
        revoked: { type: 'boolean' },
      },
      additionalProperties: true,
    },
    Envelope: {
      type: 'object',
      description: 'TAXII 2.1 section 3.7. An empty page is `{"more": false}` (or with `"objects": []` under `taxii.emptyObjectsList`).',
      required: ['more'],
      properties: { ...continuation, objects: { type: 'array', items: ref('StixObject') } },
      ...moreNeedsNext,
      additionalProperties: false,
    },
    Manifest: {
      type: 'object',
      description: 'TAXII 2.1 section 5.3.',
      required: ['more'],
      properties: {
        ...continuation,
        objects: {
          type: 'array',
          minItems: 1,
          items: closed({ id: stixId, date_added: rfc3339, version: rfc3339, media_type: { const: STIX } }),
        },
      },
      ...moreNeedsNext,
      additionalProperties: false,
    },
    Versions: {
      type: 'object',
      description: 'TAXII 2.1 section 5.8: only the latest version of each object is kept.',
      required: ['more'],
      properties: { ...continuation, versions: { type: 'array', minItems: 1, items: rfc3339 } },
      ...moreNeedsNext,
      additionalProperties: false,
    },
    OpenApiDocument: { type: 'object', required: ['openapi', 'info', 'paths'], properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' } } },
  };
}

// ---- Parameters ------------------------------------------------------------------------------

function parameterComponents(config: Config): Json {
  const query = (name: string, description: string, schema: Json, extra: Json = {}): Json => ({ name, in: 'query', required: false, description, schema, ...extra });
  const idSchema: Json = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER };
  const collectionIds = config.collections.map((c) => c.id);
  const list = (items: Json, description: string, example: string): Json => ({
    description,
    schema: { type: 'array', minItems: 1, items: { type: 'string', ...items } },
    style: 'form',
    explode: false,
    example: [example],
  });
  return {
    pretty: query('pretty', '`1` indents the JSON by two spaces; `0` (or leaving it out) gives compact JSON. Any other value is a 400.', { type: 'integer', enum: [0, 1], default: 0 }),
    tid: query('tid', 'The threat\u2019s identifier. Wins over `threat` when both are given; with neither, the answer is a 400 naming `tid`.', idSchema, { example: 1 }),
    threat: query('threat', 'A threat\u2019s name or alias, ignoring case (the lowest `tid` when several match).', { type: 'string', minLength: 1 }, { example: 'Vexorat' }),
    fid: query('fid', 'The feed\u2019s identifier. When given, `feed` and `organization` are ignored.', idSchema, { example: 1 }),
    feed: query('feed', 'The feed\u2019s name, ignoring case; needs `organization`.', { type: 'string', minLength: 1 }, { example: 'Botnet C&C (IPv4)' }),
    organization: query('organization', 'The organization of the feed named by `feed`, ignoring case.', { type: 'string', minLength: 1 }, { example: 'Nightwatch Research' }),
    get: query('get', '`links` asks for a page of the linked indicators of the threat (`tid`) or feed (`fid`).', { type: 'string', enum: ['links'] }),
    iid: query('iid', 'The indicator\u2019s identifier. Wins over `indicator` when both are given.', idSchema, { example: 1 }),
    indicator: query(
      'indicator',
      'A value, normalized as pulls normalize it (domains in lower case without a trailing dot, IPv6 in RFC 5952 form, a URL\u2019s scheme and host in lower case, ...), looked up under its type and the alias types an import may use. A value that is no indicator of any type is a 400.',
      { type: 'string', minLength: 1 },
      { example: 'example.com' },
    ),
    tname: query('tname', 'info.php: a threat\u2019s name or alias, as `threat` on threat.php.', { type: 'string', minLength: 1 }, { example: 'Zeus' }),
    summary: query('summary', 'info.php: `1` with `get=links` (the pulsedive client\u2019s threat summary) answers the threat or feed itself, whose `summary` sums up its linked indicators, instead of a page of them; any other value changes nothing.', { type: 'string' }),
    ...Object.fromEntries(
      ['splitrisk', 'sanitize', 'schema'].map((name) => [name, query(name, 'info.php: sent by existing clients; accepted and ignored.', { type: 'string' })]),
    ),
    page: query(
      'page',
      'With `get=links`: the page to read, 0 when left out. A plan reads pages 0 to N-1 of a query, N being its `pages` allowance; a later page is a 403.',
      { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
    ),
    accept: query(
      'accept',
      `With query-string authentication (\`key\`): takes the place of the Accept header, e.g. \`accept=application%2Ftaxii%2Bjson%3Bversion%3D2.1\`. A \`+\` decoded to a space is read as \`+\`.`,
      { type: 'string' },
      { example: TAXII },
    ),
    limit: query(
      'limit',
      `Objects per page: ${config.taxii.defaultLimit} when left out, and a value above ${config.taxii.maxLimit} is lowered to ${config.taxii.maxLimit}. With \`next\`, a \`limit\` wins for that page and is carried on; without one, the token\u2019s limit holds.`,
      { type: 'integer', minimum: 1 },
    ),
    added_after: query(
      'added_after',
      'Only objects added (`date_added`) later than this: RFC 3339 with 0 to 6 fractional digits and any offset, or `YYYY-MM-DD HH:MM:SS` (UTC).',
      { type: 'string', anyOf: [{ format: 'date-time' }, { pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' }] },
      { example: '2026-01-15T10:00:00.123456Z' },
    ),
    next: query('next', 'The `next` token of the previous page. It carries the first request\u2019s filters; an altered token, or one of another listing, is a 400.', { type: 'string', minLength: 1 }),
    'match-id': { name: 'match[id]', in: 'query', required: false, ...list({ pattern: STIX_ID_PATTERN }, 'STIX ids, comma-separated; an object matches any of them.', 'indicator--593efada-1b4e-543f-a440-dc78d2ed3018') },
    'match-type': { name: 'match[type]', in: 'query', required: false, ...list({ pattern: '^[a-z0-9][a-z0-9-]+[a-z0-9]$' }, 'STIX types, comma-separated.', 'indicator') },
    'match-version': {
      name: 'match[version]',
      in: 'query',
      required: false,
      ...list({ anyOf: [{ enum: ['first', 'last', 'all'] }, { format: 'date-time' }] }, '`first`, `last`, `all` or a `modified` timestamp, comma-separated. Only the latest version of each object is kept, so `first`, `last` and `all` give the same one.', 'last'),
    },
    'match-spec_version': { name: 'match[spec_version]', in: 'query', required: false, ...list({ pattern: '^\\d{1,2}\\.\\d{1,2}$' }, 'STIX versions, comma-separated; every object is STIX 2.1.', '2.1') },
    collection_id: {
      name: 'collection_id',
      in: 'path',
      required: true,
      description: 'A collection\u2019s id (see Get Collections).',
      schema: { type: 'string' },
      ...(collectionIds.length > 0 ? { examples: Object.fromEntries(config.collections.map((c) => [c.alias ?? c.id, { summary: c.title, value: c.id }])) } : {}),
    },
    'export-collection': {
      name: 'collection_id',
      in: 'path',
      required: true,
      description: 'A collection\u2019s id (see Get Collections), or its `alias`, as `threatgate export` takes it.',
      schema: { type: 'string' },
      ...(collectionIds.length > 0
        ? { examples: Object.fromEntries(config.collections.flatMap((c) => [[c.id, { summary: c.title, value: c.id }], ...(c.alias ? [[c.alias, { summary: `${c.title}, by its alias`, value: c.alias }]] : [])])) }
        : {}),
    },
    'export-type': {
      name: 'type',
      in: 'query',
      required: false,
      ...list(
        { enum: [...INDICATOR_TYPES] },
        'Only indicators of these types, comma-separated (case ignored). Pulls store an IPv4 address as `ip`, a CIDR block as `ip` or `ipv6`, a hostname as `domain` and a URI as `url`, so `ipv4` also lists `ip`, `cidr` both `ip` and `ipv6`, `hostname` `domain` and `uri` `url`. An unknown type, or `type` given twice, is a 400.',
        'ip',
      ),
    },
    'export-style': query('style', '`panos` writes URLs without their scheme (`https://`), as PAN-OS URL lists take them. Another value is a 400.', { type: 'string', enum: ['panos'] }),
    // MAX_LINES of export/export-format.ts, which http cannot import (export imports http); test/export/export-max.test.ts holds the two equal.
    'export-max': query(
      'max',
      `A device limit: at most this many lines, chosen by risk (critical, high, medium, low, none, unknown), then \`stamp_seen\` (latest first, never seen last), then value, and listed in that order. \`X-Export-Total\` and \`X-Export-Omitted\` say what it left out. A whole number from 1 to ${EXPORT_MAX_LINES}; another value, or \`max\` given twice, is a 400.`,
      { type: 'integer', minimum: 1, maximum: EXPORT_MAX_LINES },
      { example: 50000 },
    ),
    object_id: { name: 'object_id', in: 'path', required: true, description: 'A STIX object id.', schema: { type: 'string' }, example: 'indicator--593efada-1b4e-543f-a440-dc78d2ed3018' },
    status_id: { name: 'status_id', in: 'path', required: true, description: 'A status id. None exists: this server accepts no writes.', schema: { type: 'string' } },
  };
}

// ---- Responses -------------------------------------------------------------------------------

/** What each error status means, on either surface (docs/interface.md sections 6 and 9.5). */
const ERROR_MEANINGS: Record<number, string> = {
  400: 'A parameter is missing, malformed or repeated; the message names it.',
  401: 'The key is missing (TAXII), malformed, unknown or revoked. Not counted against the rate limits; a key given but malformed, unknown or revoked counts as a failed authentication of the client address (see 429).',
  403: 'Refused by the plan: a links page beyond its allowance, TAXII beyond the free test collection, or a key whose plan this server no longer offers. Or an admin key, which opens only the operator API (`/admin/api/`).',
  404: 'No such record, collection, object or path.',
  406: `The request does not accept \`${TAXII}\` (Accept header, or the \`accept\` parameter with query-string authentication).`,
  429: 'A rate limit is used up, or the client address made `auth.failuresPerMinute` failed authentications within the last minute (then every key it presents is refused until the oldest of them is a minute old, before it is checked); the message says which, and `Retry-After` how long to wait.',
  500: 'An unexpected fault (the body never carries internal details).',
  503: 'The database cannot be reached, or the rate limits cannot be checked while Redis is down and configured to fail closed.',
};

function errorResponse(status: number, mediaType: string, description = ERROR_MEANINGS[status]!): Json {
  // A 401 is never counted; a 429 of a plan's limit was, up to the window that refused it; a 429 for
  // failed authentications comes before the key is known, and so carries no rate-limit headers.
  const headers: Json = status === 401 ? {} : rateHeaders(false);
  if (status === 429) headers['Retry-After'] = headerRef('Retry-After');
  if (status === 401 && mediaType === TAXII) headers['WWW-Authenticate'] = headerRef('WWW-Authenticate');
  return { description, headers, content: { [mediaType]: { schema: ref(mediaType === TAXII ? 'TaxiiError' : 'Error') } } };
}

/** The component name of a surface's error response: `LookupError400`, `TaxiiError404`, ... */
const errorResponseName = (mediaType: string, status: number) => `${mediaType === TAXII ? 'Taxii' : 'Lookup'}Error${status}`;

function errorResponseComponents(): Json {
  const responses: Json = {};
  for (const status of [400, 401, 403, 404, 429, 500, 503]) responses[errorResponseName(JSON_TYPE, status)] = errorResponse(status, JSON_TYPE);
  for (const status of [400, 401, 403, 404, 406, 429, 500, 503]) responses[errorResponseName(TAXII, status)] = errorResponse(status, TAXII);
  return responses;
}

/** References to the shared error responses; a status with its own description here is written out. */
function errors(mediaType: string, statuses: number[], descriptions: Record<number, string> = {}): Json {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      descriptions[status] ? errorResponse(status, mediaType, descriptions[status]) : { $ref: `#/components/responses/${errorResponseName(mediaType, status)}` },
    ]),
  );
}

// ---- Operations ------------------------------------------------------------------------------

const LOOKUP_SECURITY = [{}, { apiKey: [] }];
const TAXII_SECURITY = [{ taxiiBasic: [] }, { apiKey: [] }];
const TAXII_GATE_ERRORS = [400, 401, 403, 406, 429, 500, 503];
const TAXII_RESOURCE_ERRORS = [400, 401, 403, 404, 406, 429, 500, 503];

/** GET /api/threat.php and /api/feed.php: the record, or a page of its linked indicators with `get=links`. */
function lookupOperation(operationId: string, summary: string, description: string, parameters: string[], record: string, notFound: string): Json {
  return lookupGet(operationId, summary, description, [...parameters, 'get', 'page'], { oneOf: [ref(record), ref('LinksPage')] }, `\`${notFound}\``, {
    ok: `The ${record.toLowerCase()} (without \`get\`), or a page of its linked indicators (\`get=links\`).`,
  });
}

/** A GET of the lookup API: its keys, limits and errors, with its own parameters and body. */
function lookupGet(operationId: string, summary: string, description: string, parameters: string[], body: Json, notFound: string, text: { ok?: string } = {}): Json {
  return {
    get: {
      tags: ['Lookup API'],
      operationId,
      summary,
      description,
      security: LOOKUP_SECURITY,
      parameters: [...parameters, 'pretty'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
      responses: {
        '200': { description: text.ok ?? summary, headers: rateHeaders(true), content: { [JSON_TYPE]: { schema: body } } },
        ...errors(JSON_TYPE, [400, 401, 403, 404, 429, 500, 503], { 404: `${notFound}, or no such path.` }),
      },
    },
  };
}

function taxiiGet(operationId: string, summary: string, description: string, parameters: string[], body: string, statuses: number[], extra: Json = {}): Json {
  return {
    tags: ['TAXII 2.1'],
    operationId,
    summary,
    description,
    security: TAXII_SECURITY,
    parameters: [...parameters, 'accept', 'pretty'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
    responses: {
      '200': { description: summary, headers: { ...rateHeaders(true), ...(extra.headers as Json | undefined) }, content: { [TAXII]: { schema: ref(body) } }, ...(extra.links ? { links: extra.links } : {}) },
      ...errors(TAXII, statuses),
    },
  };
}

function refusedWrite(operationId: string, summary: string, parameters: string[]): Json {
  return {
    tags: ['TAXII 2.1'],
    operationId,
    summary,
    description: 'Collections are read-only (`can_write` is false): a request that passes authentication, the rate limits, the plan and the media type is refused with 403. Any body is ignored.',
    security: TAXII_SECURITY,
    parameters: [...parameters, 'accept'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
    responses: errors(TAXII, [400, 401, 403, 404, 406, 429, 500, 503], { 403: 'Always, past the earlier checks: this server accepts no writes.' }),
  };
}

const EXPORT_TYPES: Record<string, string> = { txt: 'text/plain', csv: 'text/csv' };
/** The largest `max` of an export (export-format.ts MAX_LINES). */
export const EXPORT_MAX_LINES = 1_000_000;

/** GET /export/{collection_id}.txt|.csv (DESIGN section 10): TAXII's keys and plan gate, the lookup API's error bodies. */
function exportOperation(format: 'txt' | 'csv', description: string): Json {
  const validators = { ETag: headerRef('Export-ETag'), 'Last-Modified': headerRef('Export-Last-Modified') };
  return {
    get: {
      tags: ['Exports'],
      operationId: format === 'txt' ? 'getExportText' : 'getExportCsv',
      summary: format === 'txt' ? 'A collection\u2019s active indicators, one value per line' : 'A collection\u2019s active indicators as CSV',
      description,
      security: TAXII_SECURITY,
      parameters: ['export-collection', 'export-type', 'export-style', 'export-max'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
      responses: {
        '200': {
          description: 'The list, streamed (gzip when Accept-Encoding asks for it).',
          headers: { ...rateHeaders(true), ...validators, 'X-Export-Total': headerRef('X-Export-Total'), 'X-Export-Omitted': headerRef('X-Export-Omitted') },
          content: { [EXPORT_TYPES[format]!]: { schema: { type: 'string' } } },
        },
        '304': { description: 'The list is unchanged since the `If-None-Match` validator: nothing is read or sent.', headers: { ...rateHeaders(true), ...validators } },
        ...errors(JSON_TYPE, [400]),
        '401': { ...errorResponse(401, JSON_TYPE, 'No key, or a malformed, unknown or revoked one (HTTP Basic `taxii2:KEY` or `?key=`). Not counted against the rate limits.'), headers: { 'WWW-Authenticate': headerRef('WWW-Authenticate') } },
        ...errors(JSON_TYPE, [403, 404, 429, 500, 503], {
          403: 'The plan does not include TAXII (or only the free test collection), the key\u2019s plan is no longer offered, or the key is an admin key: as TAXII answers.',
          404: 'No collection with this id or alias.',
        }),
      },
    },
  };
}

function paths(): Json {
  const listing = ['added_after', 'limit', 'next'];
  const dateHeaders = { 'X-TAXII-Date-Added-First': headerRef('X-TAXII-Date-Added-First'), 'X-TAXII-Date-Added-Last': headerRef('X-TAXII-Date-Added-Last') };
  const toObject = {
    GetObject: { operationId: 'getObject', parameters: { collection_id: '$request.path.collection_id', object_id: '$response.body#/objects/0/id' }, description: 'The first listed object.' },
    GetObjectVersions: { operationId: 'getObjectVersions', parameters: { collection_id: '$request.path.collection_id', object_id: '$response.body#/objects/0/id' }, description: 'The versions of the first listed object.' },
  };
  const collectionPath = '/taxii2/api/collections/{collection_id}';
  const objectPath = `${collectionPath}/objects/{object_id}`;
  return {
    '/api/threat.php': lookupOperation(
      'getThreat',
      'A threat, or a page of its linked indicators',
      'By `tid`, by name or alias (`threat`), or `tid` with `get=links[&page=P]` for its linked indicators. The checks run in this order: the key (401), the rate limits (429), the parameters (400), the page allowance (403), the record (404). Also answers HEAD; other methods are 405 with `Allow: GET, HEAD`.',
      ['tid', 'threat'],
      'Threat',
      'Threat not found.',
    ),
    '/api/feed.php': lookupOperation(
      'getFeed',
      'A feed, or a page of its linked indicators',
      'By `feed` and `organization` (both required), by `fid`, or `fid` with `get=links[&page=P]` for its linked indicators. The checks run in the same order as for threats. Also answers HEAD; other methods are 405.',
      ['fid', 'feed', 'organization'],
      'Feed',
      'Feed not found.',
    ),
    '/api/indicator.php': lookupGet(
      'getIndicator',
      'An indicator, by value or by id',
      'By `indicator` (a value in any spelling pulls normalize to the same one) or by `iid`. `get` is refused (400): an indicator has no linked indicators here. The checks run in the same order as for threats. Also answers HEAD; other methods are 405.',
      ['iid', 'indicator'],
      ref('Indicator'),
      '`Indicator not found.`',
    ),
    '/api/info.php': lookupGet(
      'getInfo',
      'The older single entry point: an indicator, a threat, a feed, or a page of linked indicators',
      'Stands for another endpoint, by the first of its parameters given: `iid` or `indicator` for indicator.php, `tid` or `tname` (a name or alias) for threat.php, `fid`, or `feed` with `organization`, for feed.php; with `get=links`, `page` and `pretty` as there. Same bodies, errors and limits as that endpoint; a request naming none of them is a 400. `summary=1` with `get=links` answers the threat or feed, for its `summary`; `splitrisk`, `sanitize` and `schema` are accepted and ignored.',
      ['iid', 'indicator', 'tid', 'tname', 'fid', 'feed', 'organization', 'get', 'page', 'summary', 'splitrisk', 'sanitize', 'schema'],
      { oneOf: [ref('Indicator'), ref('Threat'), ref('Feed'), ref('LinksPage')] },
      '`Indicator not found.`, `Threat not found.` or `Feed not found.`',
    ),
    '/taxii2/': {
      get: taxiiGet('getDiscovery', 'Server discovery', 'TAXII 2.1 section 4.1: the one API root, as a path without host or query string.', [], 'Discovery', TAXII_GATE_ERRORS),
    },
    '/taxii2/api/': {
      get: taxiiGet('getApiRoot', 'API root information', 'TAXII 2.1 section 4.2.', [], 'ApiRoot', TAXII_GATE_ERRORS),
    },
    '/taxii2/api/status/{status_id}/': {
      get: {
        tags: ['TAXII 2.1'],
        operationId: 'getStatus',
        summary: 'Get status (always 404)',
        description: 'TAXII 2.1 section 4.3. Nothing is ever written, so no status exists: past the earlier checks the answer is 404, whatever the method.',
        security: TAXII_SECURITY,
        parameters: ['status_id', 'accept'].map((name) => ({ $ref: `#/components/parameters/${name}` })),
        responses: errors(TAXII, TAXII_RESOURCE_ERRORS),
      },
    },
    '/taxii2/api/collections/': {
      get: taxiiGet('getCollections', 'The collections', 'TAXII 2.1 section 5.1.', [], 'Collections', TAXII_GATE_ERRORS),
    },
    [`${collectionPath}/`]: {
      get: taxiiGet('getCollection', 'One collection', 'TAXII 2.1 section 5.2. Plans without TAXII `all` may read only the collections marked free (the test collection).', ['collection_id'], 'Collection', TAXII_RESOURCE_ERRORS),
    },
    [`${collectionPath}/manifest/`]: {
      get: taxiiGet(
        'getManifest',
        'Object manifests',
        'TAXII 2.1 section 5.3: ascending `date_added`, a page at a time.',
        ['collection_id', ...listing, 'match-id', 'match-type', 'match-version', 'match-spec_version'],
        'Manifest',
        TAXII_RESOURCE_ERRORS,
        { headers: dateHeaders, links: toObject },
      ),
    },
    [`${collectionPath}/objects/`]: {
      get: taxiiGet(
        'getObjects',
        'Objects',
        'TAXII 2.1 section 5.4: an envelope of STIX objects in ascending `date_added`, each object in its latest version. A `match[...]` filter the endpoint does not support, an unknown one, a malformed value or a repeated parameter is a 400.',
        ['collection_id', ...listing, 'match-id', 'match-type', 'match-version', 'match-spec_version'],
        'Envelope',
        TAXII_RESOURCE_ERRORS,
        { headers: dateHeaders, links: toObject },
      ),
      post: refusedWrite('addObjects', 'Add objects (refused)', ['collection_id']),
    },
    [`${objectPath}/`]: {
      get: taxiiGet('getObject', 'One object', 'TAXII 2.1 section 5.6: the object in an envelope.', ['collection_id', 'object_id', ...listing, 'match-version', 'match-spec_version'], 'Envelope', TAXII_RESOURCE_ERRORS, { headers: dateHeaders }),
      delete: refusedWrite('deleteObject', 'Delete an object (refused)', ['collection_id', 'object_id']),
    },
    [`${objectPath}/versions/`]: {
      get: taxiiGet('getObjectVersions', 'Versions of an object', 'TAXII 2.1 section 5.8.', ['collection_id', 'object_id', ...listing, 'match-spec_version'], 'Versions', TAXII_RESOURCE_ERRORS, { headers: dateHeaders }),
    },
    '/export/{collection_id}.txt': exportOperation(
      'txt',
      'For firewalls\u2019 external lists (PAN-OS EDL, FortiGate threat feeds, pfBlockerNG): each active (not retired) indicator of the collection\u2019s view, its value alone, in ascending `iid` (with `max`, the kept ones in the order they are chosen), with no header; a value holding a line break is left out. The checks run in TAXII\u2019s order: the key (401), the rate limits (429), the plan (403), the collection (404), the parameters (400). Also answers HEAD.',
    ),
    '/export/{collection_id}.csv': exportOperation(
      'csv',
      'The same indicators as the `.txt` list, under the header `value,type,risk,stamp_seen,threats`, one record per indicator quoted per RFC 4180 (CRLF line ends); `stamp_seen` is `YYYY-MM-DD HH:MM:SS` or empty, `threats` the names of its linked threats joined with `|`. Also answers HEAD.',
    ),
    '/healthz': {
      get: {
        tags: ['Operations'],
        operationId: 'getLiveness',
        summary: 'Liveness',
        description: 'The process runs. No key, not rate limited, not cached.',
        security: [],
        responses: { '200': { description: 'Up.', content: { [JSON_TYPE]: { schema: ref('Liveness') } } } },
      },
    },
    '/readyz': {
      get: {
        tags: ['Operations'],
        operationId: 'getReadiness',
        summary: 'Readiness',
        description: 'The store answers within 2 s and its migrations are current. No key, not rate limited, not cached.',
        security: [],
        responses: {
          '200': { description: 'Ready.', content: { [JSON_TYPE]: { schema: ref('Readiness') } } },
          '503': { description: 'The store cannot be reached or is not migrated.', content: { [JSON_TYPE]: { schema: ref('NotReady') } } },
        },
      },
    },
    '/openapi.json': {
      get: {
        tags: ['Operations'],
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        description: 'No key, not rate limited; built once per process from the running configuration.',
        security: [],
        parameters: [{ $ref: '#/components/parameters/pretty' }],
        responses: {
          '200': { description: 'The OpenAPI 3.1 document.', content: { [JSON_TYPE]: { schema: ref('OpenApiDocument') } } },
          '400': { description: ERROR_MEANINGS[400], content: { [JSON_TYPE]: { schema: ref('Error') } } },
        },
      },
    },
    '/metrics': {
      get: {
        tags: ['Operations'],
        operationId: 'getMetrics',
        summary: 'Prometheus metrics',
        description:
          'Prometheus text exposition format (prom-client), summed over the `--workers` processes: requests by route and status with durations, rate-limit refusals by plan, cache hits, store errors, feed pulls, lifecycle retirements. No key, not rate limited; keep it off the public internet (docs/deployment.md).',
        security: [],
        responses: {
          '200': { description: 'The metrics.', content: { 'text/plain': { schema: { type: 'string' } } } },
          '404': { description: 'Metrics are turned off (`metrics.enabled` is false).', content: { [JSON_TYPE]: { schema: ref('Error') } } },
        },
      },
    },
  };
}

// ---- The document ----------------------------------------------------------------------------

function planTable(config: Config): string {
  const rows = Object.entries(config.plans).map(
    ([name, p]) => `| \`${name}\` | ${p.perSecond} | ${p.perDay} | ${p.perMonth} | ${p.pages} | ${p.taxii === 'all' ? 'every collection' : 'the free test collection only'} |`,
  );
  return ['| plan | per second | per day | per 30 days | links pages per query | TAXII |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The OpenAPI 3.1 document for a server running with `config`. */
export function buildOpenApiDocument(config: Config, version: string): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'threatgate',
      version,
      summary: 'Threat-intelligence lookups and a TAXII 2.1 gateway.',
      description: [
        'The lookup API (`/api/threat.php`, `/api/feed.php`, `/api/indicator.php`, and `/api/info.php`, which stands for any of them) answers JSON (`application/json; charset=utf-8`); the TAXII 2.1 gateway (`/taxii2/`) answers exactly `application/taxii+json;version=2.1`, errors included. Everything is read with GET (HEAD gives the headers alone); other methods on a known path are 405 with `Allow`. A parameter the service reads may be given once; a repeated one is a 400 (a repeated TAXII `key` is a 401). docs/interface.md is the full reference.',
        '',
        '**Keys.** The lookup API takes an optional `key` query parameter: without one, requests run under the `anonymous` plan and are counted per client address; a key that is given but malformed, unknown or revoked is a 401. Every TAXII request needs a key: HTTP Basic with username `taxii2` and the key as password, or `?key=KEY&accept=...` for trying things out. An admin key (no plan) opens only the operator API (`/admin/api/`), and the other surfaces refuse it with 403. ' +
          `A client address that presents ${config.auth.failuresPerMinute} malformed, unknown or revoked keys within a minute (\`auth.failuresPerMinute\`, a sliding minute) gets a 429 with \`Retry-After\` for any key it presents until the oldest of them is a minute old.`,
        '',
        '**Rate limits.** Each plan has three fixed windows; a request must fit in all three, and the lookup API and the TAXII gateway share one budget per key. Counted responses carry `RateLimit`, `RateLimit-Policy` and `X-Requests-Remaining-Second|Day|Month`; a request over a limit is a 429 with `Retry-After`. The limits of this server:',
        '',
        planTable(config),
      ].join('\n'),
    },
    tags: [
      { name: 'Lookup API', description: 'Threats, feeds, their linked indicators, and one indicator by value (docs/interface.md sections 4-6).' },
      { name: 'TAXII 2.1', description: 'The read-only TAXII 2.1 gateway (docs/interface.md section 9). The checks run in this order: authentication (401), rate limits (429), plan (403), media type (406), resource (404), parameters (400). Every path also answers without its trailing slash.' },
      { name: 'Exports', description: 'Plain-text and CSV lists of a collection for firewalls and scripts (docs/interface.md section 11): the keys, plan gate and rate limits of TAXII, `ETag`/`If-None-Match`, gzip when asked.' },
      { name: 'Operations', description: 'Probes, metrics and this document: no key, no rate limits.' },
      { name: 'Operator API', description: 'Feed health, runs, pulls, provenance and the allowlist (docs/interface.md, Operator API): admin keys only, sent as HTTP Basic `admin:KEY` or `Authorization: Bearer KEY`, never in the query; no plan\u2019s rate limits, failed authentications counted as everywhere.' },
    ],
    paths: { ...paths(), ...adminPaths() },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'query', name: 'key', description: 'An API key (43 characters, base64url). Optional on the lookup API; on TAXII, with the `accept` parameter, for trying things out (the key then shows in URLs and logs).' },
        taxiiBasic: { type: 'http', scheme: 'basic', description: 'TAXII: username `taxii2`, password the API key. Wins over `?key=` when both are sent.' },
        ...ADMIN_SECURITY_SCHEMES,
      },
      schemas: { ...schemaComponents(config), ...adminSchemas() },
      parameters: { ...parameterComponents(config), ...ADMIN_PARAMETERS },
      headers: { ...headerComponents(), ...ADMIN_HEADERS },
      responses: { ...errorResponseComponents(), ...adminResponses() },
    },
  };
}
