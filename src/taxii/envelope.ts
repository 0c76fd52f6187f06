// Builds TAXII envelopes and manifests (TAXII 2.1 sections 3.7, 5.3) from listed objects, without re-parsing them.
import { serialize } from '../http/send-json.js';
import type { ListedObject } from '../store/contract/records.js';
import { STIX_MEDIA_TYPE } from './media-type.js';
import { formatMicros } from './taxii-time.js';

export interface PageResult {
  items: ListedObject[];
  more: boolean;
  next: string | null;
}

/** X-TAXII-Date-Added-First/Last (section 3.4.3), only for a non-empty page. */
export function dateAddedHeaders(items: ListedObject[]): Record<string, string> {
  const first = items[0];
  const last = items.at(-1);
  if (!first || !last) return {};
  return { 'X-TAXII-Date-Added-First': formatMicros(first.dateAdded), 'X-TAXII-Date-Added-Last': formatMicros(last.dateAdded) };
}

/** `more` and `next` of every body: `more: true` only with a `next` to follow (docs/interface.md section 9.4, one rule for all). */
function continuation(page: PageResult): { more: boolean; next?: string } {
  return page.more && page.next !== null ? { more: true, next: page.next } : { more: false };
}

function head(page: PageResult): string {
  const { more, next } = continuation(page);
  return more ? `{"more":true,"next":${JSON.stringify(next)}` : '{"more":false';
}

/**
 * The objects' serialized bodies (stored, or rendered by the listing) are spliced in as they are.
 * An empty envelope leaves `objects` out (TAXII 2.1 section 3.7: the property is optional, and
 * docs/interface.md section 9.4 leaves it out), unless `emptyObjectsList` (config `taxii.emptyObjectsList`) asks for
 * `"objects": []`, for clients that take its absence as an error (Elastic's TAXII input).
 */
export function envelopeJson(page: PageResult, pretty: boolean, emptyObjectsList = false): string {
  if (pretty) {
    const body: Record<string, unknown> = continuation(page);
    if (page.items.length > 0 || emptyObjectsList) body.objects = page.items.map((item) => JSON.parse(item.body!));
    return JSON.stringify(body, null, 2);
  }
  if (page.items.length === 0) return emptyObjectsList ? `${head(page)},"objects":[]}` : `${head(page)}}`;
  return `${head(page)},"objects":[${page.items.map((item) => item.body).join(',')}]}`;
}

export function manifestJson(page: PageResult, pretty: boolean): string {
  const body: Record<string, unknown> = continuation(page);
  if (page.items.length > 0) {
    body.objects = page.items.map((item) => ({
      id: item.id,
      date_added: formatMicros(item.dateAdded),
      version: item.modified,
      media_type: STIX_MEDIA_TYPE,
    }));
  }
  return serialize(body, pretty);
}

export function versionsJson(page: PageResult, pretty: boolean): string {
  const body: Record<string, unknown> = continuation(page);
  if (page.items.length > 0) body.versions = page.items.map((item) => item.modified);
  return serialize(body, pretty);
}
