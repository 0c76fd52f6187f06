// A value asked about as the store holds values: normalized as pulls normalize them (docs/interface.md
// section 4.3), with the types it may be stored under; for the lookup API's `indicator` and for `why`.
import type { IndicatorType } from '../indicator-types.js';
import { normalizeValue } from './normalize-value.js';
import { refang } from './refang.js';

export interface IndicatorValue {
  value: string;
  /** The stored type names to look under: the detected type first. */
  types: readonly string[];
}

/**
 * A pull stores each value under its detected type (`ip`, `ipv6`, `domain`, `url`, ...); an import
 * file stores the type its record names, which may be an alias of that type (`ipv4`, `cidr`,
 * `hostname`, `uri`). The lookup looks under both, so `1.2.3.4` is found whichever wrote it.
 */
const STORED_UNDER: Readonly<Partial<Record<IndicatorType, readonly IndicatorType[]>>> = {
  ip: ['ip', 'ipv4', 'cidr'],
  ipv6: ['ipv6', 'cidr'],
  domain: ['domain', 'hostname'],
  url: ['url', 'uri'],
};

/** The stored type names a type's values may be under (`ip`: `ip`, `ipv4`, `cidr`). */
export function storedTypesOf(type: IndicatorType): readonly string[] {
  return STORED_UNDER[type] ?? [type];
}

/** A value read as an indicator: its type as detected and where to look it up, or why it is none. */
export type IndicatorReading = { ok: true; type: IndicatorType; lookup: IndicatorValue } | { ok: false; reason: string };

/**
 * `raw` read as an indicator, its defanging undone first (refang.ts). Values are detected as a pull without a fixed type detects them (url,
 * ip and CIDR, ipv6, hash, email, domain); sha512 hashes and AS numbers, which a pull takes only
 * from a source of that fixed type, are tried after, so that they can be looked up too. The reason
 * for text that is none is detection's, the one such a pull gives.
 */
export function readIndicatorValue(raw: string): IndicatorReading {
  let reason: string | undefined;
  const value = refang(raw);
  for (const type of [undefined, 'sha512', 'asn'] as const) {
    const normalized = normalizeValue(value, type);
    if (normalized.ok) return { ok: true, type: normalized.type, lookup: { value: normalized.value, types: STORED_UNDER[normalized.type] ?? [normalized.type] } };
    reason ??= normalized.reason;
  }
  return { ok: false, reason: reason ?? 'not an indicator' };
}

/** The normalized value and its types, or undefined when `raw` is no indicator of any type. */
export function indicatorValueOf(raw: string): IndicatorValue | undefined {
  const reading = readIndicatorValue(raw);
  return reading.ok ? reading.lookup : undefined;
}
