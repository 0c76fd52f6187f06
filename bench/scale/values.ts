// The scale bench's values: value number k of a run is a pure function of (seed, k), valid, and distinct from every other k.
import { createHash } from 'node:crypto';
import { Prng } from '../generate-data.js';

export type ValueType = 'ip' | 'domain' | 'url' | 'sha256' | 'md5';

export interface GeneratedValue {
  value: string;
  type: ValueType;
}

/**
 * First octets of public unicast space only: no private (10, 172.16/12, 192.168), shared (100.64/10), loopback,
 * link-local, multicast or documentation block can come out, whatever the other three octets are, so that no value
 * meets the default allowlist and the store holds every one.
 */
const FIRST_OCTETS = [5, 23, 31, 37, 45, 46, 62, 77, 78, 80, 85, 89, 91, 92, 94, 103, 104, 107, 109, 116, 134, 139, 141, 144, 146, 149, 154, 159, 162, 165, 167, 176, 178, 185, 188, 193, 194, 195, 206, 209, 212, 213, 216, 217];
const TLDS = ['com', 'net', 'org', 'info', 'xyz', 'top', 'ru', 'cn', 'online', 'site', 'club', 'biz', 'io', 'cc', 'shop'];
const WORDS = ['secure', 'login', 'update', 'account', 'verify', 'cloud', 'mail', 'office', 'bank', 'pay', 'support', 'service', 'portal', 'auth', 'drive', 'docs', 'cdn', 'api', 'track', 'invoice', 'wallet', 'sync', 'files', 'web', 'host', 'data'];
const PATHS = ['gate.php', 'wp-admin/load.php', 'download/invoice', 'bins/mozi', 'login/verify', 'panel/admin', 'files/update', 'api/v1/beacon', 'payload', 'doc/scan'];
const EXTENSIONS = ['', '', '.php', '.exe', '.zip', '.html', '.sh', '.apk'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
/** Parent domains that a quarter of the domains sit under, so that a subdomain wildcard (docs/explore.md) finds many. */
export const PARENT_DOMAINS = 500;

/** Murmur3's 32-bit finalizer. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The seed of an independent stream for (seed, tag, n). */
export function streamSeed(seed: number, tag: number, n: number): number {
  return mix32(mix32(seed ^ Math.imul(tag, 0x9e3779b1)) ^ Math.imul(n, 0x632be5ab));
}

function word(prng: Prng, min: number, max: number): string {
  let text = '';
  for (let n = prng.int(min, max); n > 0; n--) text += LETTERS[prng.int(0, LETTERS.length - 1)]!;
  return text;
}

/** A bijection of [0, 2^24): two odd multiplications and an xorshift, each invertible modulo 2^24. */
function permute24(n: number): number {
  let x = Math.imul(n, 0x2c1b3d) & 0xffffff;
  x ^= x >>> 12;
  return Math.imul(x, 0x5bd1e7) & 0xffffff;
}

/** Distinct for every k below 44 x 2^24: the first octet from k's residue, the other three a permutation of the quotient. */
function ipv4(k: number): string {
  const low = permute24(Math.floor(k / FIRST_OCTETS.length));
  return `${FIRST_OCTETS[k % FIRST_OCTETS.length]}.${low >>> 16}.${(low >>> 8) & 255}.${low & 255}`;
}

/** The parent domain number p: fixed names, so the bench can ask for one of them. */
export function parentDomain(p: number): string {
  return `${WORDS[p % WORDS.length]}-${p.toString(36)}.${TLDS[p % TLDS.length]}`;
}

/** A name holding k in base 36, so that no two k give one name. */
function domain(prng: Prng, k: number): string {
  const name = `${word(prng, 3, 8)}${k.toString(36)}`;
  if (prng.chance(0.25)) return `${name}.${parentDomain(prng.int(0, PARENT_DOMAINS - 1))}`;
  return `${prng.chance(0.2) ? `${prng.pick(WORDS)}-` : ''}${name}.${prng.pick(TLDS)}`;
}

function url(prng: Prng, k: number): string {
  const scheme = prng.chance(0.7) ? 'http' : 'https';
  const host = prng.chance(0.15) ? ipv4(mix32(k) % 700_000_000) : domain(prng, k);
  return `${scheme}://${host}/${prng.pick(PATHS)}/${k.toString(36)}${prng.pick(EXTENSIONS)}`;
}

const prng = new Prng(0);

/** 40% IPv4 addresses, 30% domains, 20% URLs, 10% file hashes (most SHA-256, some MD5). */
export function valueAt(seed: number, k: number): GeneratedValue {
  prng.reseed(streamSeed(seed, 1, k));
  const r = prng.next();
  if (r < 0.4) return { value: ipv4(k), type: 'ip' };
  if (r < 0.7) return { value: domain(prng, k), type: 'domain' };
  if (r < 0.9) return { value: url(prng, k), type: 'url' };
  const md5 = prng.chance(0.2);
  return { value: createHash(md5 ? 'md5' : 'sha256').update(`scale-bench:${seed}:${k}`).digest('hex'), type: md5 ? 'md5' : 'sha256' };
}
