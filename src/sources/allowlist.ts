// The values a source pull never stores: exact values, address ranges and domain suffixes.

import { ConfigError } from '../errors.js';
import type { IndicatorType } from '../indicator-types.js';
import { normalizeValue, parseIpBlock, type IpBlock } from './normalize-value.js';

export interface Allowlist {
  /** Whether a normalized value (normalizeValue's output) is allowlisted, that is never stored. */
  allows(value: string, type: IndicatorType): boolean;
  /** The entry that keeps a normalized value out, as the config writes it (for `why`); undefined when none does. */
  entryFor(value: string, type: IndicatorType): string | undefined;
}

/**
 * The allowlist when the config gives none: addresses that name no one's infrastructure but the
 * reader's own, so a feed listing them would only flag local traffic.
 */
export const DEFAULT_ALLOWLIST: readonly string[] = Object.freeze([
  // Private: RFC 1918 §3 and unique local IPv6 (RFC 4193 §3).
  '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7',
  // Loopback: RFC 1122 §3.2.1.3 (all of 127/8) and RFC 4291 §2.5.3.
  '127.0.0.0/8', '::1',
  // Link-local: RFC 3927 and RFC 4291 §2.5.6.
  '169.254.0.0/16', 'fe80::/10',
  // Multicast: RFC 5771 and RFC 4291 §2.7.
  '224.0.0.0/4', 'ff00::/8',
  // Unspecified: all of 0/8 ("this network", RFC 1122 §3.2.1.3; no host is reached there) and RFC 4291 §2.5.2.
  '0.0.0.0/8', '::',
  // RFC 6761 §6.3: localhost and every name under it resolve to loopback.
  'localhost',
]);

/**
 * An allowlist from config entries; `undefined` gives DEFAULT_ALLOWLIST, a list (even an empty
 * one) replaces it, so an operator who keeps the defaults lists them too. An entry is:
 *  - an address or CIDR block (v4 or v6): it covers every address and block inside it;
 *  - a domain, written plainly (`example.com`; a leading dot, `.example.com`, means the same):
 *    it covers itself and every name under it, at label boundaries (not `badexample.com`), as a
 *    domain value, a URL's host or an email's domain;
 *  - any other value (a URL, an email, a hash): that exact value, once normalized.
 * A bad entry throws a ConfigError naming it, so start-up stops rather than store what it meant to keep out.
 */
export function createAllowlist(entries: readonly string[] | undefined): Allowlist {
  // Each range, suffix and exact value keeps the entry it came from, so that one lookup answers both
  // whether a value is kept out and which entry does it; the first entry that gives a key keeps it.
  const blocks: { range: IpBlock; entry: string }[] = [];
  const suffixes = new Map<string, string>();
  const exact = new Map<string, string>();
  const keep = (to: Map<string, string>, key: string, entry: string) => {
    if (!to.has(key)) to.set(key, entry);
  };
  for (const entry of entries ?? DEFAULT_ALLOWLIST) {
    const trimmed = entry.trim();
    const normalized = normalizeValue(trimmed.startsWith('.') ? trimmed.slice(1) : trimmed);
    if (!normalized.ok) {
      // A single-label name such as `localhost` or `corp` is a valid suffix though not a valid indicator.
      if (/^[a-z0-9-]+$/i.test(trimmed)) keep(suffixes, trimmed.toLowerCase(), entry);
      else throw new ConfigError(`allowlist: entry "${entry}": ${normalized.reason}`);
    } else if (normalized.type === 'ip' || normalized.type === 'ipv6') {
      blocks.push({ range: parseIpBlock(normalized.value)!, entry });
    } else if (normalized.type === 'domain') {
      keep(suffixes, normalized.value, entry);
    } else {
      keep(exact, normalized.value, entry);
    }
  }

  // A block that overlaps an allowlisted range is kept out too, not only one inside it: a feed's
  // 0.0.0.0/0 or 192.168.0.0/15, exported to a firewall's block list, would block the private
  // networks the allowlist exists to protect.
  const blockEntry = (block: IpBlock): string | undefined => blocks.find(({ range }) => contains(range, block) || contains(block, range))?.entry;
  const domainEntry = (name: string): string | undefined => {
    // Walk up the labels: a.b.example.com, b.example.com, example.com, com.
    for (let rest = name.toLowerCase(); rest !== ''; rest = rest.slice(rest.indexOf('.') + 1 || rest.length)) {
      const entry = suffixes.get(rest);
      if (entry !== undefined) return entry;
    }
    return undefined;
  };
  const hostEntry = (host: string): string | undefined => {
    const block = parseIpBlock(host.startsWith('[') ? host.slice(1, -1) : host);
    return block === undefined ? domainEntry(host) : blockEntry(block);
  };

  const entryFor = (value: string, type: IndicatorType): string | undefined => {
    const entry = exact.get(value);
    if (entry !== undefined) return entry;
    switch (type) {
      case 'ip': case 'ipv4': case 'ipv6': case 'cidr': {
        const block = parseIpBlock(value);
        return block === undefined ? undefined : blockEntry(block);
      }
      case 'domain': case 'hostname':
        return domainEntry(value);
      case 'url': case 'uri':
        return hostEntry(urlHostname(value));
      case 'email':
        return domainEntry(value.slice(value.lastIndexOf('@') + 1));
      default:
        return undefined;
    }
  };
  return { allows: (value, type) => entryFor(value, type) !== undefined, entryFor };
}

/**
 * Whether `range` holds all of `block`. An IPv4-mapped IPv6 block (::ffff:0:0/96, RFC 4291
 * §2.5.5.2) is that IPv4 block, so ::ffff:10.0.0.1 is as private as 10.0.0.1.
 */
function contains(range: IpBlock, block: IpBlock): boolean {
  const candidate = asMappedIpv4(block) ?? block;
  range = asMappedIpv4(range) ?? range;
  if (range.family !== candidate.family || candidate.prefix < range.prefix) return false;
  const width = range.family === 4 ? 32 : 128;
  const shift = BigInt(width - range.prefix);
  return candidate.bits >> shift === range.bits >> shift;
}

function asMappedIpv4(block: IpBlock): IpBlock | undefined {
  if (block.family !== 6 || block.prefix < 96 || block.bits >> 32n !== 0xffffn) return undefined;
  return { family: 4, bits: block.bits & 0xffffffffn, prefix: block.prefix - 96 };
}

/** The host of a normalized URL (IPv6 in brackets), or '' when it does not parse. */
function urlHostname(value: string): string {
  try {
    return new URL(value).hostname;
  } catch {
    return '';
  }
}
