// The final version of an object that leaves the export: the same object, `revoked`, at a later `modified`.

import { laterStixTime, normalizeStixTime } from './stix-time.js';
import type { StixObject } from './stix-types.js';

/**
 * STIX 2.1 §3.2 (`revoked`): a revoked object is no longer valid, and revocation is final. A TAXII
 * client only learns that an object is gone from a newer version saying so: an object that simply
 * disappears from a collection stays in every client that already holds it. `modified` is raised
 * to `created` if earlier, as in every mapper; `revoked` goes right after it, where the mappers
 * write it, so revoked versions read like any other.
 */
export function toRevokedVersion<T extends StixObject>(object: T, modified: string): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key === 'revoked') continue;
    if (key === 'modified') {
      out.modified = laterStixTime(normalizeStixTime(modified), object.created);
      out.revoked = true;
      continue;
    }
    out[key] = value;
  }
  return out as T;
}
