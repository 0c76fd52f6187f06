// What the surfaces of the OpenAPI document share: the error body, the rate-limit headers, the error statuses' meanings, the key schemes and `pretty`.
import { z } from 'zod';
import type { HeaderDeclaration, OpenApiSurface, ParameterDeclaration, ResponseDeclaration, Security } from './openapi-declarations.js';

/** Written out here: src/http may not import src/taxii (one-way folders), and this is the contract anyway. */
export const TAXII_TYPE = 'application/taxii+json;version=2.1';

/** The body of every error the lookup API, the exports, the operator API and the probes answer. */
export const ErrorBody = z
  .strictObject({ error: z.string().describe('What went wrong, naming the parameter or the limit; never internal details.') })
  .meta({ examples: [{ error: 'Parameter "tid" must be a positive integer.' }] });

export const LOOKUP_SECURITY: Security = [{}, { apiKey: [] }];
export const TAXII_SECURITY: Security = [{ taxiiBasic: [] }, { apiKey: [] }];

const RATE_HEADER_NAMES = ['RateLimit', 'RateLimit-Policy', 'X-Requests-Remaining-Second', 'X-Requests-Remaining-Day', 'X-Requests-Remaining-Month'] as const;

/** The rate-limit headers of a counted response, by component name; `required` only where every response carries them. */
export function rateHeaders(required: boolean): Record<string, string> {
  return Object.fromEntries(RATE_HEADER_NAMES.map((name) => [name, required ? name : `${name}-optional`]));
}

/** A header of comma-separated entries, as several header lines of one name are joined (RFC 9110 section 5.3). */
const listOf = (entry: string) => z.string().regex(new RegExp(`^${entry}(, ${entry})*$`));
const remaining = z.int().min(0);

function headerComponents(): Record<string, HeaderDeclaration> {
  const definitions: Record<(typeof RATE_HEADER_NAMES)[number], HeaderDeclaration> = {
    RateLimit: {
      description:
        'IETF draft-ietf-httpapi-ratelimit-headers-08: one entry per window (`second`, `day`, `month`) with the requests left (`r`) and the seconds until the window resets (`t`), e.g. `"second"; r=9; t=1, "day"; r=49996; t=51202, "month"; r=999996; t=656002`. Sent as one header line per window.',
      schema: listOf('"(second|day|month)"; r=\\d+; t=\\d+'),
    },
    'RateLimit-Policy': {
      description:
        'IETF draft 8: one entry per window with its quota (`q`), its length in seconds (`w`) and a partition key (`pk`, a hash of the counter key, never the API key), e.g. `"second"; q=10; w=1; pk=:OWNkZTk0ZTI2Yzdm:`.',
      schema: listOf('"(second|day|month)"; q=\\d+; w=\\d+; pk=:[A-Za-z0-9+/=]*:'),
    },
    'X-Requests-Remaining-Second': { description: 'Requests left in the current one-second window.', schema: remaining },
    'X-Requests-Remaining-Day': { description: 'Requests left in the current one-day window.', schema: remaining },
    'X-Requests-Remaining-Month': { description: 'Requests left in the current 30-day window.', schema: remaining },
  };
  const headers: Record<string, HeaderDeclaration> = {};
  for (const name of RATE_HEADER_NAMES) {
    headers[name] = { ...definitions[name], required: true };
    headers[`${name}-optional`] = {
      ...definitions[name],
      description: `${definitions[name].description} Present when the request was counted against the rate limits (it got past the key check).`,
    };
  }
  headers['Retry-After'] = { description: 'Seconds to wait before the limit that was used up allows another request.', required: true, schema: z.int().min(1) };
  return headers;
}

/** What each error status means, on the lookup API and TAXII alike (docs/interface.md sections 6 and 9.5). */
export const ERROR_MEANINGS: Record<number, string> = {
  400: 'A parameter is missing, malformed or repeated; the message names it.',
  401: 'The key is missing (TAXII), malformed, unknown or revoked. Not counted against the rate limits; a key given but malformed, unknown or revoked counts as a failed authentication of the client address (see 429).',
  403: 'Refused by the plan: a links page beyond its allowance, TAXII beyond the free test collection, or a key whose plan this server no longer offers. Or an admin key, which opens only the operator API (`/admin/api/`).',
  404: 'No such record, collection, object or path.',
  406: `The request does not accept \`${TAXII_TYPE}\` (Accept header, or the \`accept\` parameter with query-string authentication).`,
  429: 'A rate limit is used up, or the client address made `auth.failuresPerMinute` failed authentications within the last minute (then every key it presents is refused until the oldest of them is a minute old, before it is checked); the message says which, and `Retry-After` how long to wait.',
  500: 'An unexpected fault (the body never carries internal details).',
  503: 'The database cannot be reached, or the rate limits cannot be checked while Redis is down and configured to fail closed.',
};

/**
 * An error answer of a rate-limited surface. A 401 is never counted; a 429 of a plan's limit was,
 * up to the window that refused it; a 429 for failed authentications comes before the key is known,
 * and so carries no rate-limit headers: hence all of them optional.
 */
export function errorResponse(status: number, mediaType: string, body: z.ZodType, description = ERROR_MEANINGS[status]!, extra: Record<string, string> = {}): ResponseDeclaration {
  const headers: Record<string, string> = status === 401 ? {} : rateHeaders(false);
  if (status === 429) headers['Retry-After'] = 'Retry-After';
  return { description, headers: { ...headers, ...extra }, content: { [mediaType]: body } };
}

const pretty: ParameterDeclaration = {
  name: 'pretty',
  in: 'query',
  description: '`1` indents the JSON by two spaces; `0` (or leaving it out) gives compact JSON. Any other value is a 400.',
  schema: z.int().min(0).max(1).default(0),
};

/** The shared components every other surface refers to by name. */
export function sharedOpenApi(): OpenApiSurface {
  return {
    schemas: { Error: ErrorBody },
    parameters: { pretty },
    headers: headerComponents(),
    securitySchemes: {
      apiKey: { type: 'apiKey', in: 'query', name: 'key', description: 'An API key (43 characters, base64url). Optional on the lookup API; on TAXII, with the `accept` parameter, for trying things out (the key then shows in URLs and logs).' },
      taxiiBasic: { type: 'http', scheme: 'basic', description: 'TAXII: username `taxii2`, password the API key. Wins over `?key=` when both are sent.' },
    },
    operations: [],
  };
}
