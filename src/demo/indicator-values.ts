// Invented but well-formed indicator values (IPv4, IPv6, domains, URLs), unique per type and value.

import type { IndicatorKind } from './generate-feeds.js';
import type { Prng } from './prng.js';
import { LURE_WORDS, SYLLABLES, TLDS, URL_FILES, URL_PATH_WORDS } from './vocabulary.js';

/**
 * Values that exercise escaping downstream: STIX patterns must escape `'` and `\` (STIX 2.1
 * section 9.2), SQL and JSON must round-trip them, and lookups must keep the case as given.
 * Keyed by the iid that carries each one, all small so that small data sets include them too.
 */
export const TRICKY_VALUES: ReadonlyMap<number, { type: IndicatorKind; value: string }> = new Map([
  [7, { type: 'url', value: "http://docs-share.kavintor.top/o'brien/invoice_2025'final.zip" }],
  [19, { type: 'url', value: 'http://update.moraxel.xyz/c$\\windows\\temp\\svchost.exe' }],
  [31, { type: 'url', value: "https://files.lutrana.icu/dl.php?f=it's\\report.doc&lang=en" }],
  [43, { type: 'domain', value: 'Secure-Login.VanTelio.com' }],
  [55, { type: 'url', value: 'https://Account-Verify.Dexmaro.shop/Login/Index.html?next=%2Fhome' }],
]);

/** First octets of busy public hosting space; none of 0, 10, 100.64/10, 127, 169.254, 172.16/12, 192.168, 224+. */
const IPV4_FIRST_OCTETS = [
  5, 23, 31, 37, 45, 46, 62, 77, 78, 79, 80, 81, 82, 85, 87, 89, 91, 93, 94, 95, 103, 104, 107, 109,
  134, 139, 141, 146, 151, 154, 157, 159, 162, 167, 176, 178, 185, 185, 185, 188, 193, 194, 195, 212,
  213, 217,
] as const;

/** Global unicast /16s (2000::/3); 2001:db8 is the documentation prefix, kept for a few obvious demo values. */
const IPV6_PREFIXES = ['2a02', '2a05', '2a0b', '2a10', '2604', '2607', '2001:db8'] as const;

export interface ValueFactory {
  /** A value of `type` not produced before. */
  next(type: IndicatorKind): string;
}

export function createValueFactory(prng: Prng): ValueFactory {
  // Generated values are lower case; tricky ones are held case-folded so that no two values
  // differ only by case (stores may compare hosts case-insensitively).
  const seen: Record<IndicatorKind, Set<string>> = { ip: new Set(), ipv6: new Set(), domain: new Set(), url: new Set() };
  for (const tricky of TRICKY_VALUES.values()) seen[tricky.type].add(tricky.value.toLowerCase());
  const draw: Record<IndicatorKind, () => string> = {
    ip: () => ipv4(prng),
    ipv6: () => ipv6(prng),
    domain: () => domain(prng),
    url: () => url(prng),
  };
  return {
    next(type) {
      // Collisions are rare in these spaces; retrying keeps the draw simple and still deterministic.
      for (;;) {
        const value = draw[type]();
        if (!seen[type].has(value)) {
          seen[type].add(value);
          return value;
        }
      }
    },
  };
}

export function ipv4(prng: Prng): string {
  return `${prng.pick(IPV4_FIRST_OCTETS)}.${prng.int(0, 255)}.${prng.int(0, 255)}.${prng.int(1, 254)}`;
}

function ipv6(prng: Prng): string {
  const hex = (): string => prng.int(1, 0xffff).toString(16);
  const prefix = prng.pick(IPV6_PREFIXES);
  const head = prefix.includes(':') ? prefix : `${prefix}:${hex()}`;
  // Groups 5-7 are zero, so `::` stands for exactly that run (RFC 5952 canonical form).
  return `${head}:${hex()}:${hex()}::${hex()}`;
}

function label(prng: Prng, syllables: number): string {
  let text = '';
  for (let i = 0; i < syllables; i++) text += prng.pick(SYLLABLES);
  return text;
}

/** Looks like what abuse feeds list: brand-free lures, random syllables, some DGA noise. */
export function domain(prng: Prng): string {
  const roll = prng.next();
  const tld = prng.pick(TLDS);
  if (roll < 0.1) return `${dgaLabel(prng)}.${tld}`;
  const base = roll < 0.45 ? `${prng.pick(LURE_WORDS)}-${label(prng, prng.int(2, 3))}` : label(prng, prng.int(2, 4));
  return prng.chance(0.2) ? `${prng.pick(LURE_WORDS)}.${base}.${tld}` : `${base}.${tld}`;
}

function dgaLabel(prng: Prng): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  let text = '';
  const length = prng.int(12, 18);
  for (let i = 0; i < length; i++) text += alphabet[prng.int(0, alphabet.length - 1)];
  return text;
}

function url(prng: Prng): string {
  const scheme = prng.chance(0.55) ? 'http' : 'https';
  const host = prng.chance(0.1) ? `${ipv4(prng)}${prng.chance(0.5) ? `:${prng.pick(['8080', '8443', '81'])}` : ''}` : domain(prng);
  const words = prng.sample(URL_PATH_WORDS, prng.int(0, 3));
  const query = prng.chance(0.2) ? `?id=${prng.int(1000, 999999)}` : '';
  return `${scheme}://${host}/${[...words, prng.pick(URL_FILES)].join('/')}${query}`;
}
