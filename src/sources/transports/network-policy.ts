// Where a pull may connect (docs/security.md, "Where a pull may connect"): every address a connection would reach is classed,
// and a source reaches loopback or private networks only when it says so; some addresses never.
import { isIP } from 'node:net';
import { parseIpBlock, type IpBlock } from '../normalize-value.js';

/**
 * What an address is, as far as a pull is concerned. `public` is everything not listed below;
 * the others are what a feed on the internet has no business making us connect to.
 */
export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

/** The classes a source may be allowed to reach; every other non-public class is never reached. */
export type InnerClass = 'private' | 'loopback';

/** Ranges by class, most specific first where they nest; IPv4-mapped IPv6 is classed as its IPv4 address. */
const RANGES: ReadonlyArray<readonly [string, AddressClass]> = [
  // Unspecified: 0/8 is "this network" (RFC 1122 §3.2.1.3); Linux connects 0.0.0.0 to loopback. RFC 4291 §2.5.2.
  ['0.0.0.0/8', 'unspecified'],
  ['::/128', 'unspecified'],
  ['127.0.0.0/8', 'loopback'],
  ['::1/128', 'loopback'],
  // Link-local (RFC 3927, RFC 4291 §2.5.6): where cloud metadata services answer (169.254.169.254).
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
  // Private: RFC 1918, RFC 6598 shared address space, RFC 4193 unique local, deprecated site-local (RFC 3879).
  ['10.0.0.0/8', 'private'],
  ['172.16.0.0/12', 'private'],
  ['192.168.0.0/16', 'private'],
  ['100.64.0.0/10', 'private'],
  ['fc00::/7', 'private'],
  ['fec0::/10', 'private'],
  ['224.0.0.0/4', 'multicast'],
  ['ff00::/8', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  // RFC 1112 §4: the former class E, never a host on the internet.
  ['240.0.0.0/4', 'reserved'],
];

const PARSED_RANGES: ReadonlyArray<readonly [IpBlock, AddressClass]> = RANGES.map(([cidr, kind]) => [parseIpBlock(cidr)!, kind]);

/** An IPv4-mapped (::ffff:a.b.c.d, RFC 4291 §2.5.5.2) or NAT64 (64:ff9b::/96, RFC 6052) address as the IPv4 address it reaches. */
function embeddedIpv4(block: IpBlock): IpBlock | undefined {
  if (block.family !== 6) return undefined;
  const high = block.bits >> 32n;
  if (high === 0xffffn || high === 0x64ff9b0000000000000000n) return { family: 4, bits: block.bits & 0xffffffffn, prefix: 32 };
  return undefined;
}

function inRange(range: IpBlock, address: IpBlock): boolean {
  if (range.family !== address.family) return false;
  const shift = BigInt((range.family === 4 ? 32 : 128) - range.prefix);
  return address.bits >> shift === range.bits >> shift;
}

/** The class of an IP address (v4 or v6, brackets allowed); undefined when `text` is not one. */
export function classifyAddress(text: string): AddressClass | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (isIP(bare) === 0) return undefined;
  const parsed = parseIpBlock(bare);
  if (parsed === undefined) return undefined;
  const address = embeddedIpv4(parsed) ?? parsed;
  for (const [range, kind] of PARSED_RANGES) if (inRange(range, address)) return kind;
  return 'public';
}

/** What a source may reach besides public addresses. */
export interface NetworkReach {
  inner: ReadonlySet<InnerClass>;
  /** Why it may (for messages): the setting that widened it, or undefined when it reaches only public addresses. */
  because?: string;
}

const LOCALHOST = /^(localhost|[^.]+\.localhost)\.?$/i;

/**
 * The reach of a source: public addresses only, unless
 * - the source says `"network": "private"` or the config's `sources.allowPrivateNetworks` is true:
 *   private and loopback networks too;
 * - its URL names a loopback address or `localhost` literally: loopback too; a private address: private too.
 * A redirect never reaches further than this (fetch-source.ts applies the same reach to every hop).
 */
export function sourceReach(url: string, network: 'private' | undefined, allowPrivateNetworks: boolean): NetworkReach {
  if (network === 'private') return { inner: new Set(['private', 'loopback']), because: 'the source\'s "network": "private"' };
  if (allowPrivateNetworks) return { inner: new Set(['private', 'loopback']), because: 'sources.allowPrivateNetworks' };
  const host = URL.canParse(url) ? new URL(url).hostname : '';
  if (LOCALHOST.test(host)) return { inner: new Set(['loopback']), because: 'the source URL naming localhost' };
  const kind = classifyAddress(host);
  if (kind === 'loopback' || kind === 'private') return { inner: new Set([kind]), because: `the source URL naming a ${kind} address` };
  return { inner: new Set() };
}

const withArticle = (kind: AddressClass) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;

/** Why a connection to `address` is refused under `reach`, or undefined when it is allowed. */
export function refusal(address: string, reach: NetworkReach): string | undefined {
  const kind = classifyAddress(address);
  if (kind === undefined) return `"${address}" is not an IP address`;
  if (kind === 'public') return undefined;
  if (kind === 'private' || kind === 'loopback') {
    if (reach.inner.has(kind)) return undefined;
    return `connection to a ${kind} address (${address}) refused: allow it with "network": "private" on the source or sources.allowPrivateNetworks in the config`;
  }
  return `connection to ${withArticle(kind)} address (${address}) refused: pulls never connect to ${kind} addresses`;
}

/** Whether a URL names, literally, an address no pull may ever reach (`feeds add` refuses it). */
export function neverReachable(url: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'http:' && protocol !== 'https:') return undefined;
  const kind = classifyAddress(hostname);
  if (kind === undefined || kind === 'public' || kind === 'private' || kind === 'loopback') return undefined;
  return `names ${withArticle(kind)} address (${hostname}), which pulls never connect to`;
}
