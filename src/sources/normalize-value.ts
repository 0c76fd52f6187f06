// A source feed's raw value as one (type, value) of the vocabulary, normalized, or why it was rejected.

import { isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import type { IndicatorType } from '../indicator-types.js';

export type NormalizedValue = { ok: true; value: string; type: IndicatorType } | { ok: false; reason: string };

/** An address or CIDR block as a number: 32 bits for IPv4, 128 for IPv6. */
export interface IpBlock {
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}

/**
 * Normalizes `raw` (docs/feeds.md, "What a pull does with each row"; docs/sources.md, "Values").
 * With `type` (a source's `type` setting) the value must be of that type; without it the type is
 * detected in the order url, ip (and CIDR), ipv6, hash, email, domain, each test committing: a
 * value that looks like an IPv4 address but is not one (`1.2.3.256`) is rejected, never retried as
 * a domain. The type returned is the canonical one, so the same value from an `ipv4` feed and from
 * an untyped feed is one (type, value) indicator: `ip` for IPv4 and its CIDRs, `ipv6` for IPv6 and
 * its CIDRs, `domain` for `hostname`, `url` for `uri`. `sha512` and `asn` are accepted only as a
 * fixed type: detection stops at md5, sha1 and sha256.
 */
export function normalizeValue(raw: string, type?: IndicatorType): NormalizedValue {
  const value = raw.trim();
  if (value === '') return reject('empty value');
  // No indicator holds a blank or control character (C0, DEL or C1); a URL with one is broken or
  // defanged text. Refused, not cleaned: `evil\x1b.example` without its ESC is another name.
  if (/[\s\x00-\x1f\x7f-\x9f]/.test(value)) return reject('contains a blank or control character');
  return type === undefined ? detect(value) : BY_TYPE[type](value);
}

const BY_TYPE: Readonly<Record<IndicatorType, (value: string) => NormalizedValue>> = {
  ip: (value) => normalizeIp(value, undefined),
  ipv4: (value) => normalizeIp(value, 4),
  ipv6: (value) => normalizeIp(value, 6),
  cidr: (value) => normalizeIp(value, undefined),
  domain: normalizeDomain,
  hostname: normalizeDomain,
  url: normalizeUrl,
  uri: normalizeUrl,
  email: normalizeEmail,
  md5: (value) => normalizeHash(value, 'md5'),
  sha1: (value) => normalizeHash(value, 'sha1'),
  sha256: (value) => normalizeHash(value, 'sha256'),
  sha512: (value) => normalizeHash(value, 'sha512'),
  asn: normalizeAsn,
};

const HASH_LENGTHS = { md5: 32, sha1: 40, sha256: 64, sha512: 128 } as const;
type HashType = keyof typeof HASH_LENGTHS;
const DETECTED_HASHES: ReadonlyMap<number, HashType> = new Map([[32, 'md5'], [40, 'sha1'], [64, 'sha256']]);

function detect(value: string): NormalizedValue {
  if (value.includes('://')) return normalizeUrl(value);
  // Digits with a dot: an all-digit md5 has no dot, so it still reaches the hash test.
  if (/^[\d.]*\.[\d.]*(?:\/.*)?$/.test(value)) return normalizeIp(value, 4);
  if (value.includes(':')) return normalizeIp(value, 6);
  if (/^[0-9a-f]+$/i.test(value) && value.length >= 32) {
    const hash = DETECTED_HASHES.get(value.length);
    return hash === undefined ? reject(`${value.length} hex digits is not an md5, sha1 or sha256 hash`) : normalizeHash(value, hash);
  }
  if (value.includes('@')) return normalizeEmail(value);
  return normalizeDomain(value);
}

/** http, https and ftp only: the schemes malware is fetched over; mailto:, data:, file: and defanged `hxxp` are not. */
const URL_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'ftp']);

/**
 * Scheme and host lowercased, the host as the WHATWG URL parser writes it (IDN as punycode, the
 * default port dropped), IPv6 hosts in RFC 5952 form; userinfo, path, query and fragment kept as
 * given, since a path is case-sensitive (RFC 3986 §6.2.2.1) and the parser would re-encode it.
 * A host such as `010.1.1.1` is read as the URL Standard reads it (octal, 8.1.1.1), because that
 * is where a browser following the URL goes; a bare IPv4 value is read as decimal (normalizeIp).
 */
function normalizeUrl(value: string): NormalizedValue {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#\\]*)(.*)$/is.exec(value);
  if (match === null) return reject('not a URL (scheme://host...)');
  const [, rawScheme = '', authority = '', rest = ''] = match;
  const scheme = rawScheme.toLowerCase();
  if (!URL_SCHEMES.has(scheme)) return reject(`URL scheme "${scheme}" is not accepted (http, https, ftp)`);
  const at = authority.lastIndexOf('@');
  if (authority.slice(at + 1) === '') return reject('URL without a host');
  let parsed: URL;
  try {
    parsed = new URL(`${scheme}://${authority}/`);
  } catch {
    return reject('URL with an invalid host');
  }
  let host = parsed.host;
  if (parsed.hostname.startsWith('[')) {
    const block = parseIp(parsed.hostname.slice(1, -1), 6);
    if (block === undefined) return reject('URL with an invalid IPv6 host');
    host = `[${formatIpv6(block.bits)}]${parsed.port === '' ? '' : `:${parsed.port}`}`;
  }
  return { ok: true, type: 'url', value: `${scheme}://${authority.slice(0, at + 1)}${host}${rest}` };
}

/**
 * An address, or a CIDR block as its network address and prefix (host bits masked: 1.2.3.4/24 is
 * 1.2.3.0/24). A /32 or /128 is the address itself, written without a prefix, so it is the same
 * indicator as the bare address. `family` limits the accepted family; the type follows the value.
 */
function normalizeIp(value: string, family: 4 | 6 | undefined): NormalizedValue {
  const block = parseIpBlock(value, family);
  if (block === undefined) {
    const what = family === 4 ? 'an IPv4' : family === 6 ? 'an IPv6' : 'an IP';
    return reject(`not ${what} address or CIDR block`);
  }
  return { ok: true, type: block.family === 4 ? 'ip' : 'ipv6', value: formatIpBlock(block) };
}

/** `address` or `address/prefix`, host bits masked; undefined when it is neither. */
export function parseIpBlock(value: string, family?: 4 | 6): IpBlock | undefined {
  const [address = '', prefixText, ...extra] = value.split('/');
  const ip = parseIp(address, family);
  if (ip === undefined || extra.length > 0) return undefined;
  const width = ip.family === 4 ? 32 : 128;
  if (prefixText === undefined) return ip;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > width) return undefined;
  const prefix = Number(prefixText);
  const hostMask = (1n << BigInt(width - prefix)) - 1n;
  return { family: ip.family, bits: ip.bits & ~hostMask, prefix };
}

export function formatIpBlock(block: IpBlock): string {
  const address = block.family === 4 ? formatIpv4(block.bits) : formatIpv6(block.bits);
  return block.prefix === (block.family === 4 ? 32 : 128) ? address : `${address}/${block.prefix}`;
}

/**
 * One address as a /32 or /128 block. IPv4 is four decimal parts, each up to three digits:
 * `010.1.1.1` is 10.1.1.1. inet_aton(3) and the URL Standard read a leading zero as octal (8.1.1.1),
 * but feeds that pad do so for column alignment, and RFC 6943 §3.1.1 warns the form is ambiguous;
 * the decimal reading is the one meant (docs/sources.md, "Values"). Shorthand (`127.1`) and hex (`0x7f.0.0.1`) are rejected.
 */
function parseIp(address: string, family?: 4 | 6): IpBlock | undefined {
  if (family !== 6) {
    const parts = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address)?.slice(1).map(Number);
    if (parts !== undefined && parts.every((part) => part <= 255)) {
      return { family: 4, bits: parts.reduce((bits, part) => (bits << 8n) | BigInt(part), 0n), prefix: 32 };
    }
  }
  // isIPv6 validates the syntax; a zone (`fe80::1%eth0`) only means something on one host.
  if (family === 4 || !isIPv6(address) || address.includes('%')) return undefined;
  const [head = '', tail] = address.split('::');
  const headGroups = ipv6Groups(head);
  const tailGroups = tail === undefined ? [] : ipv6Groups(tail);
  const zeros = Array<number>(8 - headGroups.length - tailGroups.length).fill(0);
  const groups = [...headGroups, ...zeros, ...tailGroups];
  return { family: 6, bits: groups.reduce((bits, group) => (bits << 16n) | BigInt(group), 0n), prefix: 128 };
}

/** The 16-bit groups of one side of `::`; a trailing dotted quad (already validated) is two groups. */
function ipv6Groups(side: string): number[] {
  if (side === '') return [];
  return side.split(':').flatMap((part) => {
    if (!part.includes('.')) return [parseInt(part, 16)];
    const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  });
}

function formatIpv4(bits: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((bits >> shift) & 0xffn)).join('.');
}

/**
 * RFC 5952 §4: lowercase hex without leading zeros (§4.1, §4.3); the longest run of two or more
 * zero groups becomes `::`, the first one when runs tie, a single zero group never (§4.2). An
 * IPv4-mapped address (::ffff:0:0/96) keeps its last 32 bits as a dotted quad (§5).
 */
export function formatIpv6(bits: bigint): string {
  const groups = Array.from({ length: 8 }, (_, index) => Number((bits >> BigInt(112 - 16 * index)) & 0xffffn));
  if (bits >> 32n === 0xffffn) return `::ffff:${formatIpv4(bits & 0xffffffffn)}`;
  let best = { start: -1, length: 1 };
  for (let start = 0; start < 8; ) {
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > best.length) best = { start, length: end - start };
    start = end === start ? start + 1 : end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (best.start === -1) return hex.join(':');
  return `${hex.slice(0, best.start).join(':')}::${hex.slice(best.start + best.length).join(':')}`;
}

/** Lowercase hex of exactly the type's length. */
function normalizeHash(value: string, type: HashType): NormalizedValue {
  const length = HASH_LENGTHS[type];
  if (value.length !== length || !/^[0-9a-f]+$/i.test(value)) return reject(`not ${length} hex digits (${type})`);
  return { ok: true, type, value: value.toLowerCase() };
}

/**
 * Lowercase as a whole (docs/sources.md, "Values"; RFC 5321 §2.4 lets a local part be
 * case-sensitive, mail systems in practice are not), split at the last `@`, the domain validated
 * and punycoded as a domain.
 */
function normalizeEmail(value: string): NormalizedValue {
  const at = value.lastIndexOf('@');
  const local = value.slice(0, at);
  if (at <= 0 || local.includes('@')) return reject('not an email address (local@domain)');
  if (local.length > 64) return reject('email local part longer than 64 characters (RFC 5321 §4.5.3.1.1)');
  const domain = normalizeDomain(value.slice(at + 1));
  if (!domain.ok) return reject(`email domain: ${domain.reason}`);
  return { ok: true, type: 'email', value: `${local.toLowerCase()}@${domain.value}` };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * One trailing dot dropped (the root, RFC 1034 §3.1), then UTS 46 mapping and punycode through
 * `domainToASCII`, which also lowercases. Hostname rules (RFC 1123 §2.1): at least two labels of
 * 1-63 letters, digits and hyphens, no hyphen at either end, 253 characters in all; the last
 * label not all digits (RFC 3696 §2), so a malformed address is never taken for a domain.
 */
function normalizeDomain(value: string): NormalizedValue {
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const ascii = name === '' ? '' : domainToASCII(name);
  if (ascii === '') return reject('not a valid domain name');
  if (ascii.length > 253) return reject('domain name longer than 253 characters');
  const labels = ascii.split('.');
  if (labels.length < 2) return reject('domain name with a single label');
  if (!labels.every((label) => LABEL.test(label))) return reject('domain label not 1-63 of a-z, 0-9, - (no - at either end)');
  if (/^\d+$/.test(labels.at(-1)!)) return reject('domain name whose last label is all digits');
  return { ok: true, type: 'domain', value: ascii };
}

/** `AS13335`, `as013335` or `13335` as `AS13335`: one spelling of each 32-bit AS number (RFC 6793). */
function normalizeAsn(value: string): NormalizedValue {
  const match = /^(?:AS)?(\d{1,10})$/i.exec(value);
  const number = match === null ? Number.NaN : Number(match[1]);
  if (!Number.isSafeInteger(number) || number > 0xffffffff) return reject('not an AS number');
  return { ok: true, type: 'asn', value: `AS${number}` };
}

function reject(reason: string): NormalizedValue {
  return { ok: false, reason };
}
