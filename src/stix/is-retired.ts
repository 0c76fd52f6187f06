// Whether a threat or indicator is retired, which the STIX export shows as revocation or expiry.

import type { Risk } from '../domain.js';

/** Retired by its flag, or by the `retired` risk level (docs/interface.md section 2.3): either one is enough. */
export function isRetired(record: { retired: boolean | null; risk: Risk }): boolean {
  return record.retired === true || record.risk === 'retired';
}
