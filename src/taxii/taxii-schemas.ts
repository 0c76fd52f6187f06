// The TAXII 2.1 resources this gateway answers as zod schemas (TAXII 2.1 sections 3.6.1, 3.7, 4.1, 4.2, 5.1-5.8).
import { z } from 'zod';
import { STIX_MEDIA_TYPE, TAXII_MEDIA_TYPE } from './media-type.js';

/** STIX identifiers as this server writes and accepts them: `type--UUID`, lower case. */
export const STIX_ID = /^[a-z0-9][a-z0-9-]+[a-z0-9]--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const STIX_TYPE = /^[a-z0-9][a-z0-9-]+[a-z0-9]$/;
const stixId = z.string().regex(STIX_ID);
/** A STIX timestamp as this server writes it: RFC 3339 in UTC. */
const rfc3339 = z.iso.datetime();

export const TaxiiError = z
  .looseObject({
    title: z.string().min(1),
    description: z.string(),
    error_id: z.string().optional(),
    error_code: z.enum(['bad_request', 'unauthorized', 'forbidden', 'not_found', 'method_not_allowed', 'not_acceptable', 'rate_limited', 'internal', 'unavailable']),
    http_status: z.string().regex(/^[1-5][0-9]{2}$/).describe('The HTTP status, as a string.'),
    external_details: z.string().optional(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({
    description: 'The TAXII error resource (TAXII 2.1 section 3.6.1).',
    examples: [{ title: 'Forbidden', description: 'The Free plan may read only the free test collection; TAXII access is included in the Pro or Feed plans.', error_code: 'forbidden', http_status: '403' }],
  });

export const Discovery = z.looseObject({
  title: z.string(),
  description: z.string().optional(),
  contact: z.string().optional(),
  default: z.literal('/taxii2/api/'),
  api_roots: z.array(z.string()).min(1).describe('Absolute paths, without host or query string.'),
});

export const ApiRoot = z.looseObject({
  title: z.string(),
  description: z.string().optional(),
  versions: z.array(z.literal(TAXII_MEDIA_TYPE)).min(1).describe(`The TAXII versions served: \`${TAXII_MEDIA_TYPE}\` alone.`),
  max_content_length: z.int().min(1),
});

export const Collection = z.looseObject({
  id: z.string(),
  title: z.string(),
  description: z.string().optional(),
  alias: z.string().optional(),
  can_read: z.literal(true),
  can_write: z.literal(false).describe('Collections are read-only views of the data.'),
  media_types: z.array(z.literal(STIX_MEDIA_TYPE)),
});

export const Collections = z.looseObject({ collections: z.array(Collection).optional() });

export const StixObject = z
  .looseObject({
    type: z.string().regex(STIX_TYPE),
    spec_version: z.literal('2.1'),
    id: stixId,
    created: rfc3339,
    modified: rfc3339,
    revoked: z.boolean().optional(),
  })
  .describe('A STIX 2.1 object: indicator, malware, intrusion-set, campaign, infrastructure, tool, identity or relationship (docs/stix-mapping.md).');

/**
 * A page of a listing (TAXII 2.1 section 3.7): `more: true` always comes with `next`, and `next`
 * only with `more: true`; `items` are the page's own members.
 */
function page<T extends z.ZodRawShape>(items: T) {
  return z.discriminatedUnion('more', [
    z.strictObject({
      more: z.literal(true).describe('True when another page follows; it then comes with `next`.'),
      next: z.string().describe('The token to send back as `next` for the following page.'),
      ...items,
    }),
    z.strictObject({ more: z.literal(false).describe('False on the last page, which has no `next`.'), ...items }),
  ]);
}

export const Envelope = page({ objects: z.array(StixObject).optional() }).describe(
  'TAXII 2.1 section 3.7. An empty page is `{"more": false}` (or with `"objects": []` under `taxii.emptyObjectsList`).',
);

export const Manifest = page({
  objects: z.array(z.strictObject({ id: stixId, date_added: rfc3339, version: rfc3339, media_type: z.literal(STIX_MEDIA_TYPE) })).min(1).optional(),
}).describe('TAXII 2.1 section 5.3.');

export const Versions = page({ versions: z.array(rfc3339).min(1).optional() }).describe('TAXII 2.1 section 5.8: only the latest version of each object is kept.');
