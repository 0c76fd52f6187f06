// The twelve demo feeds: who publishes them, what they carry, and how big each one is meant to be.

import type { Feed } from '../domain.js';
import { DAY, HOUR, MINUTE, toStamp } from './demo-time.js';
import { createPrng, type Prng } from './prng.js';

const FEED_SEED = 0xfeed5;

export type IndicatorKind = 'ip' | 'ipv6' | 'domain' | 'url';

export interface FeedSeed {
  feed: string;
  organization: string;
  category: string;
  pricing: string;
  schedule: string;
  /** Indicator types the feed publishes. */
  carries: readonly IndicatorKind[];
  /**
   * Large feeds take indicators as their primary source in proportion to `weight`;
   * boutique feeds hold an exact `share` of all indicators instead, so that small
   * feeds (one page, or under 50 links) exist at every data set size.
   */
  size: { weight: number } | { share: number };
  description: string;
}

interface Organization {
  contact: string;
  host: string;
  phone: string;
}

/** Invented publishers; `.example` hosts (RFC 2606) so no link points at a real site. */
const ORGANIZATIONS: Readonly<Record<string, Organization>> = {
  'Nightwatch Research': { contact: 'Ilse Marchetti', host: 'nightwatch-research.example', phone: '+31 20 555 0142' },
  'Open Abuse Collective': { contact: 'Tomasz Wren', host: 'openabuse.example', phone: '+48 22 555 0199' },
  'Kestrel Cyber Defense GmbH': { contact: 'Anja Vogelsang', host: 'kestrel-cyber.example', phone: '+49 69 555 0117' },
  'Bluefin Threat Exchange': { contact: 'Dev Raman', host: 'bluefin-tx.example', phone: '+1 202 555 0163' },
  'Aurora Sinkhole Project': { contact: 'Sigrid Halvorsen', host: 'aurora-sinkhole.example', phone: '+47 21 55 50 12' },
  "O'Brien Labs": { contact: "Niamh O'Brien", host: 'obrien-labs.example', phone: '+353 1 555 0188' },
};

export const FEED_SEEDS: readonly FeedSeed[] = [
  { feed: 'Botnet C&C (IPv4)', organization: 'Nightwatch Research', category: 'botnet', pricing: 'commercial', schedule: 'every 15 minutes', carries: ['ip'], size: { weight: 34 }, description: 'Command-and-control servers of active botnets, confirmed by sandbox runs and sinkhole telemetry.' },
  { feed: 'Phishing URLs - Hourly', organization: 'Open Abuse Collective', category: 'phishing', pricing: 'free', schedule: 'hourly', carries: ['url', 'domain'], size: { weight: 14 }, description: 'Community-reported phishing pages, verified by a crawler before listing; delisted after 30 days offline.' },
  { feed: 'Malware Distribution Domains', organization: 'Kestrel Cyber Defense GmbH', category: 'malware', pricing: 'commercial', schedule: 'hourly', carries: ['domain', 'url'], size: { weight: 12 }, description: 'Domains and URLs that served malware payloads in the last 90 days.' },
  { feed: 'Scanners & Brute-Forcers [SSH/RDP]', organization: 'Open Abuse Collective', category: 'scanner', pricing: 'free', schedule: 'every 6 hours', carries: ['ip', 'ipv6'], size: { weight: 12 }, description: 'Sources of SSH and RDP brute-force attempts seen by a distributed honeypot network.' },
  { feed: 'Ransomware Infrastructure (C2 + Leak Sites)', organization: 'Bluefin Threat Exchange', category: 'ransomware', pricing: 'commercial', schedule: 'daily', carries: ['ip', 'domain', 'url'], size: { weight: 5 }, description: 'Staging servers, C2 and leak-site mirrors attributed to ransomware operations.' },
  { feed: 'Spam Sources: Snowshoe Ranges', organization: 'Aurora Sinkhole Project', category: 'spam', pricing: 'community', schedule: 'daily', carries: ['ip', 'ipv6'], size: { weight: 7 }, description: 'Addresses sending snowshoe spam, aggregated from spam traps.' },
  { feed: 'C2 Tracker: Beacon Servers', organization: 'Kestrel Cyber Defense GmbH', category: 'c2', pricing: 'commercial', schedule: 'every 30 minutes', carries: ['ip', 'ipv6', 'domain'], size: { weight: 5 }, description: 'Team servers of C2 frameworks fingerprinted by certificate and response quirks.' },
  { feed: 'DGA Domains \u2014 30-Day Window', organization: 'Nightwatch Research', category: 'dga', pricing: 'freemium', schedule: 'daily', carries: ['domain'], size: { weight: 8 }, description: 'Pre-computed and observed DGA domains, kept for a rolling 30-day window.' },
  { feed: 'Newly Observed Phishing Kits', organization: 'Bluefin Threat Exchange', category: 'phishing', pricing: 'commercial', schedule: 'every 15 minutes', carries: ['url'], size: { share: 0.018 }, description: 'Kit landing pages found within minutes of going live, by certificate-transparency monitoring.' },
  { feed: 'Cryptominer Pools & Proxies', organization: 'Aurora Sinkhole Project', category: 'cryptominer', pricing: 'community', schedule: 'weekly', carries: ['ip', 'domain'], size: { share: 0.012 }, description: 'Mining pools and stratum proxies used by illicit miners.' },
  { feed: 'APT Watchlist (TLP:GREEN)', organization: 'Kestrel Cyber Defense GmbH', category: 'apt', pricing: 'commercial', schedule: 'daily', carries: ['ip', 'domain', 'url'], size: { share: 0.008 }, description: 'Hand-curated infrastructure of espionage groups, shareable under TLP:GREEN.' },
  { feed: "O'Brien Labs Sinkhole", organization: "O'Brien Labs", category: 'sinkhole', pricing: 'free', schedule: 'weekly', carries: ['domain', 'ip'], size: { share: 0.0006 }, description: "Domains O'Brien Labs took over and now sinkholes, with the addresses that resolved them before." },
];

/** Builds the demo feeds; fids are 1..12 in FEED_SEEDS order. `now` is the demo's anchor (epoch seconds). */
export function generateFeeds(now: number): Feed[] {
  const prng = createPrng(FEED_SEED);
  return FEED_SEEDS.map((seed, index) => buildFeed(seed, index + 1, prng, now));
}

function buildFeed(seed: FeedSeed, fid: number, prng: Prng, now: number): Feed {
  const org = ORGANIZATIONS[seed.organization];
  if (!org) throw new RangeError(`feed ${seed.feed}: unknown organization ${seed.organization}`);
  const slug = seed.feed.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  // Feeds predate every indicator (indicators span the last three years) so link stamps follow feed stamps.
  const added = now - prng.int(1300, 2600) * DAY - prng.int(0, DAY - 1);
  const modified = now - prng.int(0, 3) * DAY - prng.int(HOUR, DAY - 1);
  const updated = modified - prng.int(0, 60) * DAY - prng.int(0, HOUR);
  const pulled = now - prng.int(MINUTE, HOUR - 1);
  return {
    fid,
    feed: seed.feed,
    organization: seed.organization,
    category: seed.category,
    pricing: seed.pricing,
    contact: { name: org.contact, email: `feeds@${org.host}`, phone: org.phone },
    website: `https://www.${org.host}/`,
    schedule: seed.schedule,
    stamp_added: toStamp(added),
    stamp_updated: toStamp(updated),
    stamp_pulled: toStamp(pulled),
    stamp_modified: toStamp(modified),
    description: seed.description,
    accesslink: `https://feeds.${org.host}/v1/${slug}.json`,
  };
}
