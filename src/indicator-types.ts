// The indicator type vocabulary: what an import accepts, what a source feed may name, what STIX maps.

/**
 * Every indicator type the service stores. Each has a STIX pattern (stix/stix-pattern.ts keys its
 * builders by this list, so a type added here does not compile until it is mapped), and the demo
 * data and the import fixtures use only these. A record of another type is refused at import
 * rather than stored and then silently left out of the TAXII export.
 */
export const INDICATOR_TYPES = Object.freeze([
  'ip', 'ipv4', 'ipv6', 'cidr', 'domain', 'hostname', 'url', 'uri', 'email', 'md5', 'sha1', 'sha256', 'sha512', 'asn',
] as const);

export type IndicatorType = (typeof INDICATOR_TYPES)[number];

const BY_NAME: ReadonlySet<string> = new Set(INDICATOR_TYPES);

/**
 * The vocabulary's name for a type as written, or undefined when it is not one of them. Matching
 * ignores case and surrounding blanks, as the STIX mapping always has (`IP` is `ip`); an import
 * stores the name this returns, so the store holds one spelling of each type.
 */
export function indicatorTypeOf(name: string): IndicatorType | undefined {
  if (BY_NAME.has(name)) return name as IndicatorType;
  const folded = name.trim().toLowerCase();
  return BY_NAME.has(folded) ? (folded as IndicatorType) : undefined;
}

/** Whether `name` is a type of the vocabulary (case and surrounding blanks ignored). */
export function isIndicatorType(name: string): boolean {
  return indicatorTypeOf(name) !== undefined;
}
