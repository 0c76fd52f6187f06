// A small hand-made data set whose aggregates the tests recompute independently.
import type { Feed, Indicator, Link, Threat } from '../../src/domain.js';

export interface Dataset {
  threats: Threat[];
  feeds: Feed[];
  indicators: Indicator[];
  links: Link[];
}

const RISKS = ['low', 'medium', 'high', 'critical', 'unknown', 'none'] as const;

function threat(tid: number, name: string, category: string, extra: Partial<Threat> = {}): Threat {
  return {
    tid,
    threat: name,
    category,
    risk: 'high',
    othernames: [],
    description: `${name} description`,
    notes: null,
    wikisummary: null,
    wikireference: null,
    retired: false,
    stamp_added: '2025-01-01 00:00:00',
    stamp_updated: '2025-06-01 12:00:00',
    stamp_seen: '2025-06-02 12:00:00',
    stamp_retired: null,
    attributes: {},
    ttps: [],
    news: [],
    comments: [],
    related: [],
    ...extra,
  };
}

function feed(fid: number, name: string, organization: string): Feed {
  return {
    fid,
    feed: name,
    organization,
    category: 'malware',
    pricing: 'free',
    contact: { name: 'Analyst', email: 'intel@example.org', phone: '+1 555 0100' },
    website: 'https://example.org/feeds',
    schedule: 'hourly',
    stamp_added: '2025-01-01 00:00:00',
    stamp_updated: '2025-06-01 00:00:00',
    stamp_pulled: '2025-06-03 00:00:00',
    stamp_modified: '2025-06-01 00:00:00',
    description: `${name} by ${organization}`,
    accesslink: 'https://example.org/feeds/download',
  };
}

/**
 * Feed 1 ("Botnet C&C (IPv4)") links 23 indicators: several pages at page size 5.
 * Feed 2 links 3: one page. Feed 3 links none. Threat 1 links 12 indicators, threat 2 links 5.
 */
export function buildFixture(): Dataset {
  const threats = [
    threat(1, 'Zeus', 'malware', { othernames: ['Zbot', 'Wsnpoem'], related: [2, 3], news: [{ title: 'Zeus returns', channel: 'Example News', icon: 'https://example.org/i.png', link: 'https://news.example.org/zeus', stamp: '2025-05-01 08:00:00', primary: 1 }] }),
    threat(2, 'Emotet', 'botnet', { risk: 'critical' }),
    threat(3, 'Old Worm', 'worm', { risk: 'retired', retired: true, stamp_retired: '2025-03-01 00:00:00' }),
  ];
  const feeds = [feed(1, 'Botnet C&C (IPv4)', 'Example Labs, Inc.'), feed(2, "O'Brien Sinkhole", 'Sinkhole Org'), feed(3, 'Empty Feed', 'Example Labs, Inc.')];
  const indicators: Indicator[] = [];
  for (let iid = 1; iid <= 30; iid++) {
    const type = iid % 3 === 0 ? 'domain' : 'ip';
    indicators.push({
      iid,
      indicator: type === 'domain' ? `host${iid}.example.net` : `198.51.100.${iid}`,
      type,
      risk: RISKS[iid % RISKS.length]!,
      stamp_added: '2025-02-01 00:00:00',
      stamp_updated: `2025-04-${String((iid % 28) + 1).padStart(2, '0')} 00:00:00`,
      stamp_seen: '2025-05-01 00:00:00',
      retired: iid % 10 === 0,
      attributes: { port: [iid % 2 === 0 ? '443' : '80'], protocol: ['tcp'], technology: iid % 4 === 0 ? ['nginx'] : [], hosttype: ['vps'] },
      properties: { country: iid % 2 === 0 ? 'NL' : 'US', asn: 64500 + (iid % 3), whois: { registrar: 'Example Registrar' } },
    });
  }
  const links: Link[] = [];
  // Linked out of iid order on purpose: pages must still come out by ascending iid.
  for (let iid = 23; iid >= 1; iid--) links.push({ iid, fid: 1, stamp_linked: '2025-06-01 00:00:00' });
  for (const iid of [24, 25, 26]) links.push({ iid, fid: 2, stamp_linked: '2025-06-02 00:00:00' });
  for (let iid = 1; iid <= 12; iid++) links.push({ iid, tid: 1, stamp_linked: '2025-06-01 00:00:00' });
  for (const iid of [3, 6, 24, 25, 27]) links.push({ iid, tid: 2, stamp_linked: '2025-06-01 00:00:00' });
  return { threats, feeds, indicators, links };
}

/** NDJSON text of a data set, one tagged record a line. */
export function toNdjson(data: Dataset): string {
  const lines = [
    ...data.threats.map((r) => ({ record: 'threat', ...r })),
    ...data.feeds.map((r) => ({ record: 'feed', ...r })),
    ...data.indicators.map((r) => ({ record: 'indicator', ...r })),
    ...data.links.map((r) => ({ record: 'link', ...r })),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** An indicator to add to the fixture: high risk, stamped in early 2025, no attributes, unless `more` says otherwise. */
export function extraIndicator(iid: number, indicator: string, type: string, more: Partial<Indicator> = {}): Indicator {
  return {
    iid, indicator, type, risk: 'high', stamp_added: '2025-02-01 00:00:00', stamp_updated: '2025-02-02 00:00:00', stamp_seen: '2025-02-03 00:00:00',
    retired: null, attributes: {}, properties: {}, ...more,
  };
}
