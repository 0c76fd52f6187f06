// Writes a deterministic synthetic NDJSON import file (threats, feeds, indicators, links) of any size, in constant memory.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Risk } from '../src/domain.js';

// ---------------------------------------------------------------------------------------------
// Deterministic randomness: mulberry32 for sequences, a 32-bit finalizer to derive stream seeds.
// ---------------------------------------------------------------------------------------------

/** Murmur3's 32-bit finalizer: a cheap, well-mixed hash of one integer. */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Seed of an independent stream for (seed, stream tag, entity id). */
function streamSeed(seed: number, tag: number, id: number): number {
  return mix32(mix32(seed ^ Math.imul(tag, 0x9e3779b1)) ^ Math.imul(id, 0x632be5ab));
}

/** mulberry32: small, fast, good enough for test data, and reseedable without allocation. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  reseed(seed: number): this {
    this.state = seed >>> 0;
    return this;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Up to `max` distinct items (at least `min`), in list order. */
  some<T>(items: readonly T[], min: number, max: number): T[] {
    const count = Math.min(items.length, this.int(min, max));
    const chosen = new Set<number>();
    while (chosen.size < count) chosen.add(Math.floor(this.next() * items.length));
    return [...chosen].sort((a, b) => a - b).map((i) => items[i]!);
  }
}

/** Picks an index by cumulative weights (binary search). */
class WeightedIndex {
  private readonly cumulative: Float64Array;

  constructor(weights: readonly number[]) {
    this.cumulative = new Float64Array(weights.length);
    let sum = 0;
    weights.forEach((w, i) => (this.cumulative[i] = sum += w));
    for (let i = 0; i < weights.length; i++) this.cumulative[i]! /= sum;
  }

  sample(rng: Prng): number {
    const x = rng.next();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Zipf-like weights 1/k^s, shuffled so that the large owners sit at random ids. */
function zipfWeights(count: number, exponent: number, rng: Prng): number[] {
  const weights = Array.from({ length: count }, (_, k) => 1 / Math.pow(k + 1, exponent));
  for (let i = count - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [weights[i], weights[j]] = [weights[j]!, weights[i]!];
  }
  return weights;
}

function weighted<T extends string>(rng: Prng, table: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of table) total += w;
  let x = rng.next() * total;
  for (const [value, w] of table) if ((x -= w) < 0) return value;
  return table[table.length - 1]![0];
}

// ---------------------------------------------------------------------------------------------
// Vocabulary.
// ---------------------------------------------------------------------------------------------

const START = Date.UTC(2019, 0, 1) / 1000;
const END = Date.UTC(2025, 5, 30) / 1000;
const DAY = 86_400;

function stamp(seconds: number): string {
  return new Date(Math.min(seconds, END + 30 * DAY) * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

const INDICATOR_RISKS: readonly (readonly [Risk, number])[] = [
  ['unknown', 10], ['none', 3], ['low', 25], ['medium', 30], ['high', 22], ['critical', 8], ['retired', 2],
];
const THREAT_RISKS: readonly (readonly [Risk, number])[] = [['low', 10], ['medium', 35], ['high', 40], ['critical', 15]];
const TYPES = [['ip', 45], ['domain', 28], ['url', 15], ['ipv6', 7], ['sha256', 3], ['email', 2]] as const;

const THREAT_NAMES = [
  'Emotet', 'TrickBot', 'QakBot', 'IcedID', 'Dridex', 'AgentTesla', 'FormBook', 'LokiBot', 'RedLine', 'Raccoon',
  'AsyncRAT', 'NjRAT', 'Remcos', 'NanoCore', 'DarkComet', 'Mirai', 'Gafgyt', 'Mozi', 'XMRig', 'Glupteba',
  'SmokeLoader', 'GuLoader', 'BazarLoader', 'Bumblebee', 'Pikabot', 'CobaltStrike', 'Sliver', 'Brute Ratel', 'LockBit', 'Conti',
  'BlackCat', 'Ryuk', 'REvil', 'Hive', 'Clop', 'Akira', 'Vidar', 'Lumma', 'Amadey', 'Ursnif',
];
const NAME_PARTS_A = ['Dark', 'Silent', 'Black', 'Red', 'Ghost', 'Iron', 'Night', 'Crypto', 'Shadow', 'Venom', 'Storm', 'Frost'];
const NAME_PARTS_B = ['Loader', 'Stealer', 'Bot', 'Locker', 'Rat', 'Miner', 'Dropper', 'Spider', 'Kit', 'Worm', 'Panda', 'Bear'];
const THREAT_CATEGORIES = ['botnet', 'ransomware', 'trojan', 'rat', 'stealer', 'loader', 'miner', 'apt', 'phishing', 'exploit-kit'];
const TTPS = [
  ['T1566', 'Phishing'], ['T1059', 'Command and Scripting Interpreter'], ['T1071', 'Application Layer Protocol'],
  ['T1105', 'Ingress Tool Transfer'], ['T1486', 'Data Encrypted for Impact'], ['T1027', 'Obfuscated Files or Information'],
  ['T1055', 'Process Injection'], ['T1547', 'Boot or Logon Autostart Execution'], ['T1190', 'Exploit Public-Facing Application'],
  ['T1110', 'Brute Force'], ['T1041', 'Exfiltration Over C2 Channel'], ['T1204', 'User Execution'],
] as const;
const NEWS_CHANNELS = ['BleepingComputer', 'The Record', 'SecurityWeek', 'Dark Reading', 'The Hacker News', 'KrebsOnSecurity'];
const USERS = ['analyst1', 'soc-team', 'mwilson', 'jdoe', 'threat-hunter', 'ir-lead'];

const ORGANIZATIONS = [
  'Abuse.ch', 'Spamhaus', 'AlienVault', 'Blocklist.de', 'Emerging Threats', 'CINS Army', 'PhishTank', 'OpenPhish',
  'Shadowserver', 'SANS ISC', 'Team Cymru', 'CrowdSec', 'Proofpoint', 'Recorded Future', 'Mandiant', 'Fortinet',
];
const FEED_TOPICS = ['Botnet C2', 'Malware URL', 'Phishing', 'Ransomware', 'SSH Brute Force', 'Scanner', 'Spam Source', 'Tor Exit', 'Cryptojacking', 'Malicious Domain', 'IoT Botnet', 'Exploit Attempt'];
const FEED_KINDS = ['Blocklist', 'Feed', 'Tracker', 'Intel', 'IP List', 'Indicators'];
const PRICING = ['free', 'free', 'commercial', 'freemium'];
const SCHEDULES = ['every 5 minutes', 'every 15 minutes', 'hourly', 'every 6 hours', 'daily', 'weekly'];
const FEED_CATEGORIES = ['blocklist', 'reputation', 'malware', 'phishing', 'botnet', 'scanning'];
const CONTACT_NAMES = ['Security Team', 'Threat Intel Desk', 'Abuse Desk', 'SOC', 'Data Team'];

const COUNTRIES = ['US', 'CN', 'RU', 'DE', 'NL', 'FR', 'GB', 'BR', 'IN', 'VN', 'KR', 'UA', 'IR', 'SG', 'HK', 'JP', 'CA', 'PL', 'RO', 'TR', 'ID', 'SE', 'BG', 'MD', 'PA', 'SC', 'ZA', 'AR', 'IT', 'ES'];
const CITIES: Record<string, string> = {
  US: 'Ashburn', CN: 'Shanghai', RU: 'Moscow', DE: 'Frankfurt', NL: 'Amsterdam', FR: 'Roubaix', GB: 'London', BR: 'Sao Paulo',
  IN: 'Mumbai', VN: 'Hanoi', KR: 'Seoul', UA: 'Kyiv', IR: 'Tehran', SG: 'Singapore', HK: 'Hong Kong', JP: 'Tokyo', CA: 'Toronto',
  PL: 'Warsaw', RO: 'Bucharest', TR: 'Istanbul', ID: 'Jakarta', SE: 'Stockholm', BG: 'Sofia', MD: 'Chisinau', PA: 'Panama City',
  SC: 'Victoria', ZA: 'Johannesburg', AR: 'Buenos Aires', IT: 'Milan', ES: 'Madrid',
};
const ASNS = [
  ['AS16509', 'AMAZON-02'], ['AS14061', 'DIGITALOCEAN-ASN'], ['AS24940', 'HETZNER-AS'], ['AS16276', 'OVH'], ['AS13335', 'CLOUDFLARENET'],
  ['AS15169', 'GOOGLE'], ['AS8075', 'MICROSOFT-CORP-MSN-AS-BLOCK'], ['AS4134', 'CHINANET-BACKBONE'], ['AS4837', 'CHINA169-BACKBONE'],
  ['AS9009', 'M247'], ['AS20473', 'AS-CHOOPA'], ['AS63949', 'AKAMAI-LINODE'], ['AS51167', 'CONTABO'], ['AS12389', 'ROSTELECOM-AS'],
  ['AS200019', 'ALEXHOST'], ['AS44477', 'STARK-INDUSTRIES'], ['AS209588', 'FLYSERVERS'], ['AS49505', 'SELECTEL'], ['AS3462', 'HINET'],
  ['AS4766', 'KIXS-AS-KR'], ['AS7552', 'VIETEL-AS-VN'], ['AS45090', 'TENCENT-NET-AP'], ['AS37963', 'ALIBABA-CN-NET'], ['AS8100', 'QUADRANET'],
  ['AS62904', 'EONIX-CORPORATION'], ['AS36352', 'AS-COLOCROSSING'], ['AS40065', 'CNSERVERS'], ['AS60781', 'LEASEWEB-NL-AMS-01'],
  ['AS28573', 'CLARO S.A.'], ['AS9829', 'BSNL-NIB'], ['AS3215', 'ORANGE-FR'], ['AS3320', 'DTAG'], ['AS7922', 'COMCAST-7922'],
] as const;
const FIRST_OCTETS = [5, 23, 31, 37, 45, 46, 62, 77, 78, 80, 85, 89, 91, 92, 94, 103, 104, 107, 109, 116, 134, 139, 141, 144, 146, 149, 154, 159, 162, 165, 167, 172, 176, 178, 185, 188, 192, 193, 194, 195, 198, 203, 206, 209, 212, 213, 216, 217];
/**
 * The iid as an IPv6 address's last groups, each of at most four hex digits: unique per iid, and an
 * address at any size (one group of five digits above 65,535 was none, and had no STIX pattern).
 */
const ipv6Tail = (iid: number) => (iid <= 0xffff ? iid.toString(16) : `${Math.floor(iid / 0x10000).toString(16)}:${(iid % 0x10000).toString(16)}`);
const IPV6_PREFIXES = ['2a01:4f8', '2604:a880', '2001:41d0', '2a03:b0c0', '2400:cb00', '2a06:98c0', '2001:19f0', '2a0d:5600'];
const WORDS = ['secure', 'login', 'update', 'account', 'verify', 'cloud', 'mail', 'office', 'bank', 'pay', 'support', 'service', 'portal', 'auth', 'drive', 'docs', 'cdn', 'api', 'track', 'invoice', 'shop', 'wallet', 'crypto', 'sync', 'files', 'online', 'web', 'host', 'data', 'micro', 'apple', 'amaz0n', 'paypa1', 'netflix', 'dhl', 'fedex'];
const TLDS = ['com', 'net', 'org', 'info', 'xyz', 'top', 'ru', 'cn', 'online', 'site', 'club', 'biz', 'io', 'cc', 'tk', 'pw', 'icu', 'shop'];
const URL_PATHS = ['gate.php', 'wp-admin/includes/load.php', 'wp-content/uploads/2024/01/inv.zip', 'download/invoice.exe', 'bins/mozi.m', 'login/verify.html', 'panel/admin.php', 'files/update.msi', 'api/v1/beacon', 'dhl/tracking/index.html', 'office365/auth.aspx', 'x86', 'payload.ps1', 'doc/scan_0042.js'];
const PORTS = ['80', '443', '8080', '22', '23', '25', '53', '445', '3389', '8443', '4444', '5555', '7547', '2323', '9001', '1337'];
const IP_TECH = ['nginx', 'apache', 'openssh', 'microsoft-iis', 'cobalt-strike', 'mikrotik', 'busybox', 'dropbear', 'openresty', 'exim'];
const URL_TECH = ['php', 'wordpress', 'nginx', 'apache', 'joomla', 'drupal', 'cloudflare'];
const HOSTTYPES = ['vps', 'residential', 'hosting', 'cloud', 'tor-exit', 'mobile', 'business', 'bulletproof'];
const REGISTRARS = ['NameCheap, Inc.', 'GoDaddy.com, LLC', 'NameSilo, LLC', 'Tucows Domains Inc.', 'PDR Ltd.', 'REG.RU LLC', 'Alibaba Cloud Computing', 'Porkbun LLC'];
const FILE_TYPES = ['pe32', 'pe32+', 'elf', 'office-macro', 'javascript', 'powershell', 'msi', 'zip'];

// ---------------------------------------------------------------------------------------------
// Data set shape.
// ---------------------------------------------------------------------------------------------

export interface DatasetShape {
  indicators: number;
  threats: number;
  feeds: number;
  organizations: number;
}

/** threats ≈ max(25, N/2000), feeds ≈ max(12, N/5000), organizations ≈ feeds/4 (4..16). */
export function datasetShape(indicators: number): DatasetShape {
  const feeds = Math.max(12, Math.round(indicators / 5000));
  return {
    indicators,
    threats: Math.max(25, Math.round(indicators / 2000)),
    feeds,
    organizations: Math.min(ORGANIZATIONS.length, Math.max(4, Math.round(feeds / 4))),
  };
}

/** Share of indicators in a second feed, and of indicators linked to a threat. */
const SECOND_FEED = 0.1;
const THREAT_LINKED = 0.7;
/** Zipf exponents: a handful of very large feeds (deep link pages) and a long tail of small ones. */
const FEED_EXPONENT = 1.2;
const THREAT_EXPONENT = 1.0;

const TAG_SETUP = 1;
const TAG_THREAT = 2;
const TAG_FEED = 3;
const TAG_PLAN = 4;
const TAG_FIELDS = 5;

/** Where one indicator goes: its feeds and its threat; derived from (seed, iid) alone so links can be re-derived. */
interface IndicatorPlan {
  fids: number[];
  tid: number | null;
  added: number;
}

class Planner {
  private readonly feedPick: WeightedIndex;
  private readonly threatPick: WeightedIndex;
  private readonly rng = new Prng(0);

  constructor(private readonly seed: number, private readonly shape: DatasetShape) {
    const setup = new Prng(streamSeed(seed, TAG_SETUP, 0));
    this.feedPick = new WeightedIndex(zipfWeights(shape.feeds, FEED_EXPONENT, setup));
    this.threatPick = new WeightedIndex(zipfWeights(shape.threats, THREAT_EXPONENT, setup));
  }

  plan(iid: number): IndicatorPlan {
    const rng = this.rng.reseed(streamSeed(this.seed, TAG_PLAN, iid));
    const first = this.feedPick.sample(rng) + 1;
    const fids = [first];
    if (this.shape.feeds > 1 && rng.chance(SECOND_FEED)) {
      let second = first;
      for (let tries = 0; second === first && tries < 16; tries++) second = this.feedPick.sample(rng) + 1;
      if (second === first) second = (first % this.shape.feeds) + 1;
      fids.push(second);
    }
    const tid = rng.chance(THREAT_LINKED) ? this.threatPick.sample(rng) + 1 : null;
    // Older indicators have lower iids, roughly: the file reads like an export of a growing store.
    const progress = iid / Math.max(1, this.shape.indicators);
    const added = START + Math.floor((progress * 0.8 + rng.next() * 0.2) * (END - START));
    return { fids, tid, added };
  }
}

// ---------------------------------------------------------------------------------------------
// Records.
// ---------------------------------------------------------------------------------------------

function threatName(tid: number, rng: Prng): string {
  if (tid <= THREAT_NAMES.length) return THREAT_NAMES[tid - 1]!;
  return `${rng.pick(NAME_PARTS_A)}${rng.pick(NAME_PARTS_B)}-${tid}`;
}

function threatRecord(seed: number, tid: number, shape: DatasetShape): Record<string, unknown> {
  const rng = new Prng(streamSeed(seed, TAG_THREAT, tid));
  const name = threatName(tid, rng);
  const category = rng.pick(THREAT_CATEGORIES);
  const added = rng.int(START, START + (END - START) / 2);
  const updated = rng.int(added, END);
  const retired = rng.chance(0.05);
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return {
    record: 'threat',
    tid,
    threat: name,
    category,
    risk: weighted(rng, THREAT_RISKS),
    othernames: Array.from({ length: rng.int(0, 3) }, (_, k) => `${slug}-alias-${tid}-${k + 1}`),
    description: `${name} is a ${category} family observed since ${stamp(added).slice(0, 4)}; it spreads through ${rng.pick(['phishing mail', 'exploit kits', 'cracked software', 'brute-forced services', 'malvertising', 'USB drives'])} and talks to its C2 over ${rng.pick(['HTTPS', 'HTTP', 'DNS', 'raw TCP', 'Telegram'])}.`,
    notes: rng.chance(0.4) ? `Tracked by ${rng.pick(ORGANIZATIONS)}; see TTPs for behaviour.` : null,
    wikisummary: rng.chance(0.6) ? `${name} is a piece of malicious software classified as ${category}.` : null,
    wikireference: rng.chance(0.6) ? `https://en.wikipedia.org/wiki/${encodeURIComponent(name.replace(/ /g, '_'))}` : null,
    retired,
    stamp_added: stamp(added),
    stamp_updated: stamp(updated),
    stamp_seen: stamp(rng.int(updated, END)),
    stamp_retired: retired ? stamp(rng.int(updated, END)) : null,
    attributes: { platform: rng.some(['windows', 'linux', 'macos', 'android', 'iot'], 1, 2), language: rng.pick(['c++', 'c#', 'go', 'delphi', 'python', 'rust']) },
    ttps: rng.some(TTPS, 1, 5).map(([id, technique]) => ({ id, technique, source: 'mitre-attack' })),
    news: Array.from({ length: rng.int(0, 3) }, (_, k) => {
      const channel = rng.pick(NEWS_CHANNELS);
      return {
        title: `${name} ${rng.pick(['returns with new loader', 'campaign targets banks', 'infrastructure disrupted', 'adds new evasion tricks'])}`,
        channel,
        icon: `https://icons.example/${channel.toLowerCase().replace(/[^a-z]+/g, '')}.png`,
        link: `https://news.example/${slug}/${tid}-${k}`,
        stamp: stamp(rng.int(added, END)),
        primary: k === 0 ? 1 : 0,
      };
    }),
    comments: Array.from({ length: rng.int(0, 2) }, (_, k) => {
      const at = rng.int(added, END);
      return {
        cid: tid * 10 + k + 1,
        username: rng.pick(USERS),
        title: rng.pick(['New C2 range', 'False positive?', 'Update', 'Sinkholed']),
        comment: `Seen new ${name} activity from ${rng.pick(COUNTRIES)} infrastructure.`,
        stamp_added: stamp(at),
        stamp_updated: stamp(rng.int(at, END)),
      };
    }),
    related: rng.some(Array.from({ length: Math.min(shape.threats, 200) }, (_, i) => i + 1).filter((t) => t !== tid), 0, 3),
  };
}

function feedRecord(seed: number, fid: number, shape: DatasetShape): Record<string, unknown> {
  const rng = new Prng(streamSeed(seed, TAG_FEED, fid));
  const organization = ORGANIZATIONS[(fid - 1) % shape.organizations]!;
  const base = `${FEED_TOPICS[(fid - 1) % FEED_TOPICS.length]!} ${rng.pick(FEED_KINDS)}`;
  const feed = fid <= FEED_TOPICS.length ? base : `${base} ${fid}`;
  const slug = organization.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const added = rng.int(START, START + (END - START) / 3);
  const updated = rng.int(added, END);
  return {
    record: 'feed',
    fid,
    feed,
    organization,
    category: rng.pick(FEED_CATEGORIES),
    pricing: rng.pick(PRICING),
    contact: { name: `${organization} ${rng.pick(CONTACT_NAMES)}`, email: `intel@${slug}.example`, phone: `+1-555-${String(rng.int(1000, 9999))}` },
    website: `https://www.${slug}.example/`,
    schedule: rng.pick(SCHEDULES),
    stamp_added: stamp(added),
    stamp_updated: stamp(updated),
    stamp_pulled: stamp(rng.int(updated, END)),
    stamp_modified: stamp(rng.int(added, updated)),
    description: `${feed} published by ${organization}: ${rng.pick(['curated', 'automatically collected', 'honeypot-sourced', 'community-reported'])} indicators, refreshed ${rng.pick(SCHEDULES)}.`,
    accesslink: `https://feeds.${slug}.example/${feed.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.txt`,
  };
}

function hex(rng: Prng, chars: number): string {
  let out = '';
  while (out.length < chars) out += (Math.floor(rng.next() * 0x100000000) >>> 0).toString(16).padStart(8, '0');
  return out.slice(0, chars);
}

function domainName(rng: Prng, iid: number): string {
  return `${rng.pick(WORDS)}-${rng.pick(WORDS)}-${iid.toString(36)}.${rng.pick(TLDS)}`;
}

/** A unique, plausible IPv4 address: the low 24 bits are a bijection of the iid (N < 16.7M). */
function ipv4(rng: Prng, iid: number): string {
  const low = Math.imul(iid, 0x2c9277b5) & 0xffffff;
  return `${rng.pick(FIRST_OCTETS)}.${low >>> 16}.${(low >>> 8) & 0xff}.${low & 0xff}`;
}

function indicatorRecord(seed: number, iid: number, plan: IndicatorPlan, rng: Prng): Record<string, unknown> {
  rng.reseed(streamSeed(seed, TAG_FIELDS, iid));
  const type = weighted(rng, TYPES);
  const country = rng.pick(COUNTRIES);
  const [asn, asname] = rng.pick(ASNS);
  let indicator: string;
  let attributes: Record<string, string[]>;
  let properties: Record<string, unknown>;
  const maybe = (values: string[]): string[] | undefined => (rng.chance(0.85) ? values : undefined);
  switch (type) {
    case 'ip':
    case 'ipv6': {
      indicator = type === 'ip' ? ipv4(rng, iid) : `${rng.pick(IPV6_PREFIXES)}:${hex(rng, 4)}:${hex(rng, 4)}::${ipv6Tail(iid)}`;
      attributes = compact({
        port: maybe(rng.some(PORTS, 1, 3)),
        protocol: maybe(rng.some(['tcp', 'udp', 'http', 'https', 'ssh', 'telnet'], 1, 2)),
        technology: maybe(rng.some(IP_TECH, 1, 2)),
        hosttype: maybe([rng.pick(HOSTTYPES)]),
      });
      properties = { country, asn, asname, geo: { city: CITIES[country] ?? 'Unknown', lat: Math.round((rng.next() * 140 - 60) * 1e4) / 1e4, lon: Math.round((rng.next() * 360 - 180) * 1e4) / 1e4 } };
      break;
    }
    case 'domain': {
      indicator = domainName(rng, iid);
      attributes = compact({ protocol: maybe(['dns']), technology: maybe(rng.some(['cloudflare', 'letsencrypt', 'fast-flux', 'dga'], 1, 2)), hosttype: maybe([rng.pick(HOSTTYPES)]) });
      properties = { country, asn, registrar: rng.pick(REGISTRARS), whois: { created: stamp(plan.added - rng.int(0, 400) * DAY), registrant_country: rng.pick(COUNTRIES), privacy: rng.chance(0.7) } };
      break;
    }
    case 'url': {
      const https = rng.chance(0.55);
      const port = rng.chance(0.85) ? (https ? '443' : '80') : rng.pick(['8080', '8443', '8000', '81']);
      const defaultPort = port === '443' || port === '80';
      indicator = `${https ? 'https' : 'http'}://${rng.chance(0.2) ? ipv4(rng, iid) : domainName(rng, iid)}${defaultPort ? '' : `:${port}`}/${rng.pick(URL_PATHS)}`;
      attributes = compact({ port: [port], protocol: [https ? 'https' : 'http'], technology: maybe(rng.some(URL_TECH, 1, 2)), hosttype: maybe([rng.pick(HOSTTYPES)]) });
      properties = { country, asn, http_status: rng.pick([200, 200, 200, 301, 302, 403, 404]), content_type: rng.pick(['text/html', 'application/octet-stream', 'application/zip', 'application/x-msdownload']) };
      break;
    }
    case 'sha256': {
      indicator = hex(rng, 64);
      attributes = compact({ technology: maybe([rng.pick(FILE_TYPES)]) });
      properties = { filetype: rng.pick(FILE_TYPES), file: { name: `${rng.pick(['invoice', 'scan', 'setup', 'update', 'doc'])}_${iid}.${rng.pick(['exe', 'dll', 'js', 'docm', 'zip'])}`, size: rng.int(10_000, 5_000_000) } };
      break;
    }
    default: {
      indicator = `${rng.pick(WORDS)}.${iid.toString(36)}@${rng.pick(['gmail.com', 'outlook.com', 'proton.me', 'mail.ru', 'yandex.ru', `${rng.pick(WORDS)}-${rng.pick(TLDS)}.com`])}`;
      attributes = compact({ protocol: maybe(['smtp']) });
      properties = { country, campaign: rng.pick(['invoice', 'delivery', 'password-reset', 'payroll', 'sextortion']) };
    }
  }
  const updated = rng.chance(0.6) ? Math.min(END, plan.added + rng.int(0, 180) * DAY + rng.int(0, DAY)) : null;
  const seen = Math.min(END, (updated ?? plan.added) + rng.int(0, 60) * DAY + rng.int(0, DAY));
  const risk = weighted(rng, INDICATOR_RISKS);
  return {
    record: 'indicator',
    iid,
    indicator,
    type,
    risk,
    stamp_added: stamp(plan.added),
    stamp_updated: updated === null ? null : stamp(updated),
    stamp_seen: stamp(seen),
    retired: risk === 'retired' ? true : rng.chance(0.02) ? true : rng.chance(0.5) ? false : null,
    attributes,
    properties,
  };
}

function compact(attributes: Record<string, string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, values] of Object.entries(attributes)) if (values !== undefined) out[key] = values;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Output.
// ---------------------------------------------------------------------------------------------

export interface GenerateOptions {
  indicators: number;
  /** Any 32-bit integer; the same seed and size give the same file, byte for byte. */
  seed?: number;
}

export interface GenerateCounts {
  threats: number;
  feeds: number;
  indicators: number;
  feedLinks: number;
  threatLinks: number;
  records: number;
}

/** Yields the NDJSON lines (with their newline) one at a time: threats, feeds, indicators, then links. */
export function* generateLines(options: GenerateOptions, counts?: GenerateCounts): Generator<string> {
  const seed = (options.seed ?? 1) >>> 0;
  const shape = datasetShape(options.indicators);
  const planner = new Planner(seed, shape);
  const fields = new Prng(0);
  const tally: GenerateCounts = counts ?? { threats: 0, feeds: 0, indicators: 0, feedLinks: 0, threatLinks: 0, records: 0 };
  for (let tid = 1; tid <= shape.threats; tid++, tally.threats++) yield `${JSON.stringify(threatRecord(seed, tid, shape))}\n`;
  for (let fid = 1; fid <= shape.feeds; fid++, tally.feeds++) yield `${JSON.stringify(feedRecord(seed, fid, shape))}\n`;
  for (let iid = 1; iid <= shape.indicators; iid++, tally.indicators++) {
    yield `${JSON.stringify(indicatorRecord(seed, iid, planner.plan(iid), fields))}\n`;
  }
  for (let iid = 1; iid <= shape.indicators; iid++) {
    const plan = planner.plan(iid);
    const linkRng = fields.reseed(streamSeed(seed, TAG_FIELDS + 100, iid));
    for (const fid of plan.fids) {
      tally.feedLinks++;
      yield `{"record":"link","iid":${iid},"fid":${fid},"stamp_linked":"${stamp(plan.added + linkRng.int(0, 3 * DAY))}"}\n`;
    }
    if (plan.tid !== null) {
      tally.threatLinks++;
      yield `{"record":"link","iid":${iid},"tid":${plan.tid},"stamp_linked":"${stamp(plan.added + linkRng.int(0, 30 * DAY))}"}\n`;
    }
  }
  tally.records = tally.threats + tally.feeds + tally.indicators + tally.feedLinks + tally.threatLinks;
}

/** Groups lines into ~`chunkBytes` strings so the write stream sees few, large writes. */
function* chunked(lines: Iterable<string>, chunkBytes: number): Generator<string> {
  let parts: string[] = [];
  let size = 0;
  for (const line of lines) {
    parts.push(line);
    size += line.length;
    if (size >= chunkBytes) {
      yield parts.join('');
      parts = [];
      size = 0;
    }
  }
  if (parts.length > 0) yield parts.join('');
}

export interface GenerateResult extends GenerateCounts {
  file: string;
  bytes: number;
  seconds: number;
}

/**
 * Streams the data set into `out` with backpressure (a pull-based generator piped into a file
 * stream), via a temporary file renamed at the end so a half-written file is never left behind.
 */
export async function generateData(out: string, options: GenerateOptions): Promise<GenerateResult> {
  if (!Number.isSafeInteger(options.indicators) || options.indicators < 1) throw new Error('indicators must be a positive integer');
  const file = resolve(out);
  const partial = `${file}.partial`;
  await mkdir(dirname(file), { recursive: true });
  const counts: GenerateCounts = { threats: 0, feeds: 0, indicators: 0, feedLinks: 0, threatLinks: 0, records: 0 };
  let bytes = 0;
  const started = performance.now();
  const source = Readable.from(
    (function* () {
      for (const chunk of chunked(generateLines(options, counts), 1 << 20)) {
        bytes += Buffer.byteLength(chunk);
        yield chunk;
      }
    })(),
  );
  try {
    await pipeline(source, createWriteStream(partial));
    await rename(partial, file);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
  return { file, bytes, seconds: (performance.now() - started) / 1000, ...counts };
}

/** `100000`, `100k`, `1m`, `1_000_000`. */
export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(text.replace(/_/g, ''));
  if (!match) throw new Error(`not a size: ${text}`);
  const scale = match[2]!.toLowerCase() === 'k' ? 1e3 : match[2]!.toLowerCase() === 'm' ? 1e6 : 1;
  return Math.round(Number(match[1]) * scale);
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      indicators: { type: 'string' },
      out: { type: 'string' },
      seed: { type: 'string' },
      validate: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.indicators || !values.out) {
    process.stderr.write(
      'Usage: node --import tsx bench/generate-data.ts --indicators N (e.g. 100000, 100k, 1m) --out FILE [--seed S] [--validate]\n' +
        '  --validate: afterwards, check every line against the import schemas (src/import/record-schemas.ts)\n',
    );
    process.exitCode = values.help ? 0 : 1;
    return;
  }
  const result = await generateData(values.out, { indicators: parseSize(values.indicators), seed: values.seed === undefined ? 1 : Number(values.seed) });
  process.stdout.write(
    `wrote ${result.file}: ${(result.bytes / 1e6).toFixed(1)} MB, ${result.records} records ` +
      `(${result.threats} threats, ${result.feeds} feeds, ${result.indicators} indicators, ${result.feedLinks} feed links, ${result.threatLinks} threat links) ` +
      `in ${result.seconds.toFixed(1)} s\n`,
  );
  if (values.validate) {
    const bad = await validateFile(result.file);
    process.stdout.write(bad.length === 0 ? 'every record passes the import schemas\n' : `${bad.join('\n')}\n`);
    if (bad.length > 0) process.exitCode = 1;
  }
}

/** Runs each line of a generated file through the importer's schemas; returns the first problems found. */
export async function validateFile(file: string, limit = 10): Promise<string[]> {
  const { parseRecord } = await import('../src/import/record-schemas.js');
  const { createReadStream } = await import('node:fs');
  const { createInterface } = await import('node:readline');
  const problems: string[] = [];
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    line++;
    const { record, ...raw } = JSON.parse(text) as { record: 'threat' | 'feed' | 'indicator' | 'link' };
    const parsed = parseRecord(record, raw);
    if (!parsed.ok && problems.push(`line ${line}: ${parsed.reason}`) >= limit) break;
  }
  return problems;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`generate-data: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
