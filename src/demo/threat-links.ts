// Links demo indicators to the threats that plausibly use them, guided by the feed that lists them.

import type { Indicator, Threat } from '../domain.js';
import { fromStamp } from './demo-time.js';
import { FEED_SEEDS } from './generate-feeds.js';
import { linkStamp, type IndicatorWindows } from './link-stamps.js';
import { createPrng, type Prng } from './prng.js';
import { THREAT_SEEDS } from './threat-catalog.js';

const THREAT_LINK_SEED = 0x7411c;
/** Share of indicators attributed to a threat at all; the rest are unattributed, as in real feeds. */
const ATTRIBUTED_SHARE = 0.7;
/** Share of attributed indicators shared by a second threat (shared hosting, reused C2). */
const SECOND_THREAT_SHARE = 0.08;
/** Links every threat gets regardless of chance, so each threat has indicators to page through. */
const GUARANTEED_PER_THREAT = 3;

/** Which threat categories a feed of a given category tends to report. */
const THREATS_BY_FEED_CATEGORY: Readonly<Record<string, readonly string[]>> = {
  botnet: ['botnet', 'c2', 'malware', 'loader', 'stealer'],
  phishing: ['phishing', 'stealer', 'spam'],
  malware: ['malware', 'loader', 'stealer', 'exploit-kit', 'ransomware'],
  scanner: ['scanner', 'botnet'],
  ransomware: ['ransomware', 'loader'],
  spam: ['spam', 'botnet', 'phishing'],
  c2: ['c2', 'apt', 'malware', 'loader', 'ransomware'],
  dga: ['malware', 'botnet'],
  cryptominer: ['cryptominer'],
  apt: ['apt'],
  sinkhole: ['botnet', 'malware', 'stealer'],
};

export interface ThreatLink {
  iid: number;
  tid: number;
  stamp_linked: string;
}

interface Candidates {
  tids: number[];
  weights: number[];
}

/** Returns links ordered by tid, then iid. `attributionFid[iid - 1]` is the feed that guides each indicator's attribution. */
export function linkThreats(
  indicators: readonly Indicator[],
  windows: IndicatorWindows,
  threats: readonly Threat[],
  attributionFid: readonly number[],
): ThreatLink[] {
  const prng = createPrng(THREAT_LINK_SEED);
  const threatAdded = new Map(threats.map((threat) => [threat.tid, fromStamp(threat.stamp_added ?? '1970-01-01 00:00:00')]));
  const links: ThreatLink[] = [];
  const tidsOf = new Map<number, number[]>();
  const add = (indicator: Indicator, tid: number): void => {
    const tids = tidsOf.get(indicator.iid) ?? [];
    if (tids.includes(tid)) return;
    tids.push(tid);
    tidsOf.set(indicator.iid, tids);
    links.push({ iid: indicator.iid, tid, stamp_linked: linkStamp(windows, indicator.iid, 30, prng, threatAdded.get(tid)) });
  };
  guaranteeLinks(indicators, threats, prng, add);
  const candidates = candidatesByFeed(threats);
  indicators.forEach((indicator, index) => {
    const pool = candidates.get(attributionFid[index] ?? 0);
    if (!pool || pool.tids.length === 0) return;
    if (!tidsOf.has(indicator.iid) && prng.chance(ATTRIBUTED_SHARE)) add(indicator, drawTid(pool, prng));
    if (tidsOf.has(indicator.iid) && prng.chance(SECOND_THREAT_SHARE)) add(indicator, drawTid(pool, prng));
  });
  links.sort((a, b) => a.tid - b.tid || a.iid - b.iid);
  return links;
}

/** Every threat, retired ones too, gets a domain (threat summaries report updated_last_domain) and a few more. */
function guaranteeLinks(
  indicators: readonly Indicator[],
  threats: readonly Threat[],
  prng: Prng,
  add: (indicator: Indicator, tid: number) => void,
): void {
  const domains = indicators.filter((indicator) => indicator.type === 'domain');
  for (const threat of threats) {
    if (domains.length > 0) add(prng.pick(domains), threat.tid);
    for (const indicator of prng.sample(indicators, GUARANTEED_PER_THREAT - 1)) add(indicator, threat.tid);
  }
}

function candidatesByFeed(threats: readonly Threat[]): Map<number, Candidates> {
  const weightOf = new Map(THREAT_SEEDS.map((seed) => [seed.name, seed.weight]));
  const candidates = new Map<number, Candidates>();
  FEED_SEEDS.forEach((feed, index) => {
    const categories = THREATS_BY_FEED_CATEGORY[feed.category] ?? [];
    const pool: Candidates = { tids: [], weights: [] };
    for (const threat of threats) {
      if (!categories.includes(threat.category)) continue;
      const weight = weightOf.get(threat.threat) ?? 1;
      pool.tids.push(threat.tid);
      // Retired threats still own old infrastructure, just less of it.
      pool.weights.push(threat.retired ? weight / 2 : weight);
    }
    candidates.set(index + 1, pool);
  });
  return candidates;
}

function drawTid(pool: Candidates, prng: Prng): number {
  return pool.tids[prng.weighted(pool.weights)] as number;
}
