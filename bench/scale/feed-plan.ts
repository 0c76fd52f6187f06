// The scale bench's feeds: how many values each lists (relative sizes), its format, risk and threat, and its source definition.

export type FeedFormat = 'text' | 'csv' | 'json' | 'stix';

export interface FeedSpec {
  /** 0 for the smallest list, feeds - 1 for the biggest. */
  index: number;
  name: string;
  organization: string;
  format: FeedFormat;
  risk: 'low' | 'medium' | 'high' | 'critical';
  /** The source's `threat` option: every value the feed lists is linked to it. */
  threat?: string;
  /** The share of all listings this feed gets (the weights sum to 1). */
  weight: number;
  /** Where the server publishes it. */
  path: string;
}

/** At the reference size (10M values in 100 feeds) the lists run from this many values ... */
export const SMALLEST_LIST = 100;
/** ... to this many, geometrically: the spread of public lists, from a handful of C2s to a whole-internet scanner list. */
export const BIGGEST_LIST = 2_000_000;
export const REFERENCE_INDICATORS = 10_000_000;
/** Every feed lists at least this many values, whatever the size, so that no first pull reads an empty list. */
export const FLOOR_PER_FEED = 10;

/**
 * How many feeds list one value: 1 to 5, 2.2 on average. With 100 feeds, 10M values make 22M listings, of which the
 * biggest feed's share is the 2M of the reference size.
 */
export const MULTIPLICITY: readonly number[] = [0.35, 0.3, 0.2, 0.1, 0.05];
export const MEAN_MULTIPLICITY = MULTIPLICITY.reduce((sum, p, i) => sum + p * (i + 1), 0);

export const THREATS = ['Scale Botnet', 'Emotet', 'QakBot', 'AsyncRAT', 'Mirai', 'LockBit', 'RedLine', 'CobaltStrike', 'Lumma', 'Amadey', 'Remcos', 'Vidar'];
const ORGANIZATIONS = ['Abuse.ch', 'Spamhaus', 'Blocklist.de', 'Emerging Threats', 'CINS Army', 'OpenPhish', 'Shadowserver', 'CrowdSec', 'SANS ISC', 'Team Cymru'];
const TOPICS = ['Botnet C2', 'Malware URL', 'Phishing', 'Ransomware', 'SSH Brute Force', 'Scanner', 'Spam Source', 'Malicious Domain', 'IoT Botnet', 'Exploit Attempt'];
const FORMATS: readonly FeedFormat[] = ['text', 'csv', 'json', 'stix'];
const RISKS = ['low', 'medium', 'high', 'critical'] as const;
const EXTENSIONS: Record<FeedFormat, string> = { text: 'txt', csv: 'csv', json: 'json', stix: 'stix.json' };

/**
 * The feeds, smallest first. The biggest is a plain list naming the biggest threat, which a few others name too; the
 * second biggest is a CSV list (the one the mixed load's background pull changes); the rest cycle through the four
 * formats, and every third names a threat.
 */
export function planFeeds(feeds: number): FeedSpec[] {
  const ratio = feeds > 1 ? Math.pow(BIGGEST_LIST / SMALLEST_LIST, 1 / (feeds - 1)) : 1;
  const raw = Array.from({ length: feeds }, (_, i) => SMALLEST_LIST * Math.pow(ratio, i));
  const total = raw.reduce((sum, w) => sum + w, 0);
  return raw.map((w, i): FeedSpec => {
    const biggest = i === feeds - 1;
    const format: FeedFormat = biggest ? 'text' : i === feeds - 2 ? 'csv' : FORMATS[i % FORMATS.length]!;
    const threat = biggest || i % 10 === 7 ? THREATS[0] : i % 3 === 0 ? THREATS[1 + ((i / 3) % (THREATS.length - 1))] : undefined;
    const number = String(i + 1).padStart(3, '0');
    return {
      index: i,
      name: `${TOPICS[i % TOPICS.length]} ${number}`,
      organization: ORGANIZATIONS[i % ORGANIZATIONS.length]!,
      format,
      risk: RISKS[i % RISKS.length]!,
      ...(threat === undefined ? {} : { threat }),
      weight: w / total,
      path: `/feeds/${number}.${EXTENSIONS[format]}`,
    };
  });
}

/**
 * The source object `feeds add --source` takes (docs/interface.md section 10, docs/sources.md "Feed shapes"): the
 * limits raised so that the biggest lists of the 10M store are neither cut by size nor stopped by time.
 */
export function sourceDefinition(feed: FeedSpec, url: string): Record<string, unknown> {
  const common = {
    url,
    format: feed.format,
    schedule: 'daily',
    risk: feed.risk,
    ...(feed.threat === undefined ? {} : { threat: feed.threat }),
    maxMegabytes: 4096,
    maxSeconds: 86_400,
    timeoutSeconds: 3600,
  };
  switch (feed.format) {
    case 'text':
    case 'stix':
      return common;
    case 'csv':
      return {
        ...common,
        csv: {
          value: 'value',
          header: 'first-row',
          // A row's own threat only where the source names none, so each value has one threat from this feed.
          ...(feed.threat === undefined ? { threat: 'malware' } : {}),
          lastSeen: 'last_online',
          attributes: { port: 'port', status: 'status', tags: { column: 'tags', split: ',' } },
        },
      };
    case 'json':
      return {
        ...common,
        json: {
          items: 'data',
          value: 'ioc',
          riskFrom: { field: 'confidence', map: { '90': 'high', '50': 'medium', '0': 'low' } },
          attributes: { tags: 'tags' },
        },
      };
  }
}
