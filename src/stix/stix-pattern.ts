// STIX 2.1 patterns (STIX 2.1 §9, STIX Patterning) for the indicator types threatgate stores.

import { isIP } from 'node:net';
import { INDICATOR_TYPES, indicatorTypeOf, isIndicatorType, type IndicatorType } from '../indicator-types.js';
import { StixMappingError } from './stix-mapping-error.js';

type PatternBuilder = (value: string) => string;

/**
 * Hash names from the hashing-algorithm-ov vocabulary (§10.7) with their hex lengths. The name is
 * quoted in the object path because it contains a hyphen (§9, object path: a key that is not a
 * plain identifier is written as a quoted string).
 */
const HASHES: ReadonlyMap<string, { name: string; hexLength: number }> = new Map([
  ['md5', { name: 'MD5', hexLength: 32 }],
  ['sha1', { name: 'SHA-1', hexLength: 40 }],
  ['sha256', { name: 'SHA-256', hexLength: 64 }],
  ['sha512', { name: 'SHA-512', hexLength: 128 }],
]);

/**
 * One builder per type of the vocabulary (indicator-types.ts): a Record over it, so the vocabulary
 * cannot gain a type that has no pattern.
 */
const BUILDERS: Readonly<Record<IndicatorType, PatternBuilder>> = {
  // The address family follows the value, not the label: an IPv6 literal stored as `ip` is an
  // ipv6-addr. The value may be a CIDR block, which ipv4-addr/ipv6-addr values allow (§6.8, §6.9).
  ip: addressPattern,
  ipv4: addressPattern,
  ipv6: addressPattern,
  cidr: addressPattern,
  domain: (value) => comparison('domain-name:value', value),
  hostname: (value) => comparison('domain-name:value', value),
  url: (value) => comparison('url:value', value),
  uri: (value) => comparison('url:value', value),
  email: (value) => comparison('email-addr:value', value),
  asn: asnPattern,
  md5: (value) => hashPattern('md5', value),
  sha1: (value) => hashPattern('sha1', value),
  sha256: (value) => hashPattern('sha256', value),
  sha512: (value) => hashPattern('sha512', value),
};

/** The indicator types that `stixPattern` maps: the whole vocabulary; other types throw. */
export const PATTERNED_INDICATOR_TYPES: readonly string[] = INDICATOR_TYPES;

/**
 * Whether `stixPattern` has a pattern for this indicator type (case-insensitive). Stores may still
 * hold types from before imports checked the vocabulary: the export skips those.
 */
export function isPatternedIndicatorType(type: string): boolean {
  return isIndicatorType(type);
}

/**
 * The STIX pattern matching an indicator value, e.g. `[ipv4-addr:value = '198.51.100.7']`.
 * Throws a StixMappingError with code `unsupported-indicator-type` for a type with no mapping
 * (the export skips such indicators) and `invalid-indicator-value` for a value the type's
 * observable cannot hold (an IP type whose value is not an address, a hash of the wrong length).
 */
export function stixPattern(type: string, value: string): string {
  const known = indicatorTypeOf(type);
  if (known === undefined) {
    throw new StixMappingError('unsupported-indicator-type', `indicator type "${type}" has no STIX pattern`);
  }
  if (value.trim() === '') {
    throw new StixMappingError('invalid-indicator-value', `a ${type} indicator has an empty value`);
  }
  return BUILDERS[known](value);
}

/**
 * A STIX string literal. §9 (STIX Patterning, constants): string constants are enclosed in
 * single quotes, and inside them only `\'` and `\\` are escapes; so the backslash is doubled
 * first, then each quote is escaped (in the other order the new backslashes would be doubled).
 */
export function stixStringLiteral(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function comparison(objectPath: string, value: string): string {
  return `[${objectPath} = ${stixStringLiteral(value)}]`;
}

function addressPattern(value: string): string {
  const [address = '', prefix, ...rest] = value.trim().split('/');
  const family = isIP(address);
  const maxPrefix = family === 4 ? 32 : 128;
  const validPrefix =
    prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= maxPrefix);
  if (family === 0 || !validPrefix || rest.length > 0) {
    throw new StixMappingError('invalid-indicator-value', `"${value}" is not an IP address or CIDR block`);
  }
  return comparison(family === 4 ? 'ipv4-addr:value' : 'ipv6-addr:value', value.trim());
}

function hashPattern(type: string, value: string): string {
  const hash = HASHES.get(type)!;
  const hex = value.trim();
  if (hex.length !== hash.hexLength || !/^[0-9a-fA-F]+$/.test(hex)) {
    throw new StixMappingError('invalid-indicator-value', `"${value}" is not a ${hash.name} hash`);
  }
  return comparison(`file:hashes.${stixStringLiteral(hash.name)}`, hex);
}

/** `AS13335` or `13335` → `[autonomous-system:number = 13335]` (an integer property, §6.2). */
function asnPattern(value: string): string {
  const match = /^(?:AS)?(\d{1,10})$/i.exec(value.trim());
  const number = match === null ? Number.NaN : Number(match[1]);
  if (!Number.isSafeInteger(number) || number > 0xffffffff) {
    throw new StixMappingError('invalid-indicator-value', `"${value}" is not an autonomous system number`);
  }
  return `[autonomous-system:number = ${number}]`;
}
