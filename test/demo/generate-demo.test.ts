// Specifies the demo data set: deterministic, internally consistent, and shaped to exercise paging and escaping.

import assert from 'node:assert/strict';
import { isIPv4, isIPv6 } from 'node:net';
import { describe, it } from 'node:test';

import { DEMO_REFERENCE_NOW } from '../../src/demo/demo-time.js';
import { generateDemo, type DemoDataset } from '../../src/demo/generate-demo.js';
import { RISK_LEVELS, type Link } from '../../src/domain.js';

const STAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;
/** A fixed "now" for the tests of time: 2026-11-25 09:30:15.250 UTC, mid-second on purpose. */
const NOW = Date.UTC(2026, 10, 25, 9, 30, 15, 250);
/** The threats the catalog marks stale: active, but last seen 100-400 days before now. */
const STALE_THREATS = ['Sable Tern', 'Ghostreed', 'Petrel Proxy', 'Driftglass DGA'];
/** The default links page size (docs/interface.md section 8, `linksPageSize`): feeds must span more than the largest plan's 10 pages. */
const PAGE_SIZE = 1000;

const feedLinks = (data: DemoDataset) => data.links.filter((link): link is Extract<Link, { fid: number }> => 'fid' in link);
const threatLinks = (data: DemoDataset) => data.links.filter((link): link is Extract<Link, { tid: number }> => 'tid' in link);

function countBy<T>(items: readonly T[], key: (item: T) => number): Map<number, number> {
  const counts = new Map<number, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/** Every stamp of the data set, labelled so that a failure names the field. */
function allStamps(data: DemoDataset): [string, unknown][] {
  const stamps: [string, unknown][] = [];
  for (const t of data.threats) {
    stamps.push([`threat ${t.tid} stamp_added`, t.stamp_added], [`threat ${t.tid} stamp_updated`, t.stamp_updated]);
    stamps.push([`threat ${t.tid} stamp_seen`, t.stamp_seen]);
    if (t.stamp_retired !== null) stamps.push([`threat ${t.tid} stamp_retired`, t.stamp_retired]);
    for (const n of t.news) stamps.push([`threat ${t.tid} news stamp`, n.stamp]);
    for (const c of t.comments) stamps.push([`comment ${c.cid}`, c.stamp_added], [`comment ${c.cid}`, c.stamp_updated]);
  }
  for (const f of data.feeds) {
    for (const key of ['stamp_added', 'stamp_updated', 'stamp_pulled', 'stamp_modified'] as const) stamps.push([`feed ${f.fid} ${key}`, f[key]]);
  }
  for (const i of data.indicators) {
    stamps.push([`indicator ${i.iid}`, i.stamp_added], [`indicator ${i.iid}`, i.stamp_updated], [`indicator ${i.iid}`, i.stamp_seen]);
  }
  for (const l of data.links) stamps.push([`link of ${l.iid}`, l.stamp_linked]);
  return stamps;
}

/** Milliseconds since the epoch of a `YYYY-MM-DD HH:MM:SS` (UTC) stamp or a `YYYY-MM-DD` date. */
function msOf(stamp: string): number {
  return Date.parse(`${stamp.length === 10 ? `${stamp} 00:00:00` : stamp}Z`.replace(' ', 'T'));
}

/**
 * Where `later` is not `earlier` moved by `shiftMs`: stamps must move by exactly the shift, dates
 * (whois creation) by its whole days or one more, and everything else must be equal, except the
 * year a threat's description names and the year/month in a news link, which move with the stamps.
 */
function unshifted(earlier: unknown, later: unknown, shiftMs: number, path = '$'): string[] {
  if (typeof earlier === 'string' && typeof later === 'string') {
    if (STAMP.test(earlier)) return STAMP.test(later) && msOf(later) - msOf(earlier) === shiftMs ? [] : [`${path}: ${earlier} -> ${later}`];
    if (DATE.test(earlier)) {
      const days = DATE.test(later) ? (msOf(later) - msOf(earlier)) / DAY_MS : NaN;
      return days === Math.floor(shiftMs / DAY_MS) || days === Math.floor(shiftMs / DAY_MS) + 1 ? [] : [`${path}: ${earlier} -> ${later}`];
    }
    const mask = (text: string): string => (/\.(description|link)$/.test(path) ? text.replace(/\b\d{4}(\/\d{2})?\b/g, '#') : text);
    return mask(earlier) === mask(later) ? [] : [`${path}: ${earlier} -> ${later}`];
  }
  if (Array.isArray(earlier) && Array.isArray(later)) {
    if (earlier.length !== later.length) return [`${path}: length ${earlier.length} -> ${later.length}`];
    return earlier.flatMap((item, index) => unshifted(item, later[index], shiftMs, `${path}[${index}]`));
  }
  if (typeof earlier === 'object' && earlier !== null && typeof later === 'object' && later !== null && !Array.isArray(later)) {
    const keys = Object.keys(earlier);
    if (keys.join() !== Object.keys(later).join()) return [`${path}: keys ${keys.join()} -> ${Object.keys(later).join()}`];
    return keys.flatMap((key) => unshifted((earlier as Record<string, unknown>)[key], (later as Record<string, unknown>)[key], shiftMs, `${path}.${key}`));
  }
  return Object.is(earlier, later) ? [] : [`${path}: ${String(earlier)} -> ${String(later)}`];
}

function isPublicIPv4(value: string): boolean {
  const [a = 0, b = 0] = value.split('.').map(Number);
  const reserved = a === 0 || a === 10 || a === 127 || a >= 224 || (a === 100 && b >= 64 && b < 128) ||
    (a === 169 && b === 254) || (a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168);
  return isIPv4(value) && !reserved;
}

const VALID_VALUE: Readonly<Record<string, (value: string) => boolean>> = {
  ip: isPublicIPv4,
  ipv6: (value) => isIPv6(value) && /^2[0-9a-f]{3}:/.test(value),
  domain: (value) => /^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/i.test(value),
  url: (value) => /^https?:\/\/[^\s/]+\/\S*$/i.test(value) && URL.canParse(value),
};

/** The invariants every generated data set keeps, whatever its size. */
function itKeepsTheInvariants(build: () => DemoDataset): void {
  it('numbers threats, feeds and indicators 1..N without gaps', () => {
    const data = build();
    assert.deepEqual(data.threats.map((t) => t.tid), data.threats.map((_, i) => i + 1));
    assert.deepEqual(data.feeds.map((f) => f.fid), data.feeds.map((_, i) => i + 1));
    assert.ok(data.indicators.every((indicator, index) => indicator.iid === index + 1));
  });

  it('never repeats an indicator value within its type, ignoring case', () => {
    const keys = build().indicators.map((i) => `${i.type}|${i.indicator.toLowerCase()}`);
    assert.equal(new Set(keys).size, keys.length);
  });

  it('gives every indicator a well-formed value of its type', () => {
    const invalid = build().indicators.filter((i) => !(VALID_VALUE[i.type]?.(i.indicator) ?? false));
    assert.deepEqual(invalid.map((i) => `${i.type} ${i.indicator}`), []);
  });

  it('writes every timestamp as YYYY-MM-DD HH:MM:SS', () => {
    const bad = allStamps(build()).filter(([, stamp]) => typeof stamp !== 'string' || !STAMP.test(stamp));
    assert.deepEqual(bad, []);
  });

  it('uses only the seven risk levels', () => {
    const data = build();
    const risks = [...data.threats, ...data.indicators].map((record) => record.risk);
    assert.ok(risks.every((risk) => (RISK_LEVELS as readonly string[]).includes(risk)));
  });

  it('orders stamps: added before updated and before seen', () => {
    const data = build();
    const disordered = [...data.threats, ...data.indicators, ...data.feeds].filter((record) => {
      const { stamp_added: added, stamp_updated: updated } = record;
      const seen = 'stamp_seen' in record ? record.stamp_seen : added;
      // Same-format stamps compare correctly as strings.
      return added === null || updated === null || seen === null || added > updated || added > seen;
    });
    assert.deepEqual(disordered, []);
  });

  it('relates threats only to other, existing threats', () => {
    const data = build();
    const tids = new Set(data.threats.map((t) => t.tid));
    for (const threat of data.threats) {
      assert.ok(threat.related.every((tid) => tid !== threat.tid && tids.has(tid)), `threat ${threat.tid}`);
    }
  });

  it('links only existing records, each pair once', () => {
    const data = build();
    const iids = new Set(data.indicators.map((i) => i.iid));
    const fids = new Set(data.feeds.map((f) => f.fid));
    const tids = new Set(data.threats.map((t) => t.tid));
    const pairs = data.links.map((link) => ('fid' in link ? `f${link.fid}:${link.iid}` : `t${link.tid}:${link.iid}`));
    assert.equal(new Set(pairs).size, pairs.length);
    assert.ok(feedLinks(data).every((link) => iids.has(link.iid) && fids.has(link.fid)));
    assert.ok(threatLinks(data).every((link) => iids.has(link.iid) && tids.has(link.tid)));
  });

  it('links no indicator before it was added', () => {
    const data = build();
    const late = data.links.filter((link) => link.stamp_linked < (data.indicators[link.iid - 1]?.stamp_added ?? ''));
    assert.deepEqual(late, []);
  });

  it('puts every indicator in a feed and gives every feed links', () => {
    const data = build();
    const inFeeds = new Set(feedLinks(data).map((link) => link.iid));
    assert.equal(inFeeds.size, data.indicators.length);
    assert.equal(countBy(feedLinks(data), (link) => link.fid).size, data.feeds.length);
  });

  it('gives every threat, retired ones too, a few indicators including a domain', () => {
    const data = build();
    const links = threatLinks(data);
    const counts = countBy(links, (link) => link.tid);
    const withDomain = new Set(links.filter((link) => data.indicators[link.iid - 1]?.type === 'domain').map((link) => link.tid));
    for (const threat of data.threats) {
      assert.ok((counts.get(threat.tid) ?? 0) >= 2, `threat ${threat.tid} has ${counts.get(threat.tid) ?? 0} links`);
      assert.ok(withDomain.has(threat.tid), `threat ${threat.tid} has no domain`);
    }
  });
}

describe('generateDemo', () => {
  let cached: DemoDataset | undefined;
  const defaults = (): DemoDataset => (cached ??= generateDemo());

  describe('called twice with the same options', () => {
    it('returns deep-equal data sets', () => {
      assert.deepEqual(generateDemo({ indicators: 2000 }), generateDemo({ indicators: 2000 }));
      assert.deepEqual(generateDemo(), defaults());
    });
  });

  describe('with the default options', () => {
    it('produces 50,000 indicators, mostly addresses and domains', () => {
      const types = countBy(defaults().indicators, (i) => ['ip', 'ipv6', 'domain', 'url'].indexOf(i.type));
      assert.equal(defaults().indicators.length, 50_000);
      assert.ok((types.get(0) ?? 0) + (types.get(2) ?? 0) > 40_000);
      assert.ok((types.get(1) ?? 0) > 0 && (types.get(3) ?? 0) > 0);
    });

    it('produces at least 25 threats of several categories, three or more retired', () => {
      const { threats } = defaults();
      assert.ok(threats.length >= 25);
      assert.ok(new Set(threats.map((t) => t.category)).size >= 8);
      const retired = threats.filter((t) => t.retired);
      assert.ok(retired.length >= 3);
      assert.ok(retired.every((t) => t.stamp_retired !== null));
      assert.ok(threats.filter((t) => !t.retired).every((t) => t.retired === false && t.stamp_retired === null));
    });

    it('keeps threat names and other names unique regardless of case', () => {
      const names = defaults().threats.flatMap((t) => [t.threat, ...t.othernames]).map((name) => name.toLowerCase());
      assert.equal(new Set(names).size, names.length);
    });

    it('gives comments globally unique ids and TTPs ATT&CK technique ids', () => {
      const cids = defaults().threats.flatMap((t) => t.comments.map((c) => c.cid));
      assert.ok(cids.length > 0);
      assert.equal(new Set(cids).size, cids.length);
      const ttps = defaults().threats.flatMap((t) => t.ttps);
      assert.ok(ttps.every((ttp) => /^T\d{4}(\.\d{3})?$/.test(String(ttp.id))));
    });

    it('produces 12 feeds from at least five organizations', () => {
      const { feeds } = defaults();
      assert.equal(feeds.length, 12);
      assert.ok(new Set(feeds.map((f) => f.organization)).size >= 5);
      assert.ok(feeds.some((f) => f.feed.includes("'")));
    });

    it('retires about 3% of indicators', () => {
      const retired = defaults().indicators.filter((i) => i.retired).length;
      assert.ok(retired > 1000 && retired < 2000, `${retired} retired`);
    });

    it('attributes 60-80% of indicators to a threat', () => {
      const attributed = new Set(threatLinks(defaults()).map((link) => link.iid)).size;
      const share = attributed / defaults().indicators.length;
      assert.ok(share >= 0.6 && share <= 0.8, `share ${share}`);
    });

    it('sizes feeds from over ten pages down to a single short page', () => {
      const sizes = [...countBy(feedLinks(defaults()), (link) => link.fid).values()];
      assert.ok(Math.max(...sizes) > 10 * PAGE_SIZE, `largest ${Math.max(...sizes)}`);
      assert.ok(sizes.filter((size) => size < PAGE_SIZE).length >= 3);
      assert.ok(Math.min(...sizes) < 50, `smallest ${Math.min(...sizes)}`);
    });

    it('includes URLs with a single quote and with a backslash, and a mixed-case value', () => {
      const values = defaults().indicators.map((i) => i.indicator);
      assert.ok(values.some((v) => v.startsWith('http') && v.includes("'")));
      assert.ok(values.some((v) => v.startsWith('http') && v.includes('\\')));
      assert.ok(values.some((v) => v !== v.toLowerCase()));
    });

    itKeepsTheInvariants(defaults);
  });

  describe('with 500 indicators', () => {
    const small = generateDemo({ indicators: 500 });
    itKeepsTheInvariants(() => small);

    it('still includes the escaping test values', () => {
      assert.ok(small.indicators.some((i) => i.indicator.includes("'")));
      assert.ok(small.indicators.some((i) => i.indicator.includes('\\')));
    });
  });

  describe('with a non-positive or fractional count', () => {
    it('throws a RangeError', () => {
      for (const indicators of [0, -1, 2.5]) assert.throws(() => generateDemo({ indicators }), RangeError);
    });
  });

  describe('without now', () => {
    it('counts back from the fixed reference instant, 2026-01-01', () => {
      assert.equal(JSON.stringify(generateDemo({ indicators: 300 })), JSON.stringify(generateDemo({ indicators: 300, now: DEMO_REFERENCE_NOW })));
    });
  });

  describe('with a now (the demo loaded on 2026-11-25 09:30:15)', () => {
    const atNow = generateDemo({ indicators: 2000, now: NOW });
    const daysBeforeNow = (stamp: string): number => (NOW - msOf(stamp)) / DAY_MS;

    itKeepsTheInvariants(() => atNow);

    it('gives byte-for-byte the same data set for the same now, and for any now in the same second', () => {
      const text = JSON.stringify(atNow);
      assert.equal(JSON.stringify(generateDemo({ indicators: 2000, now: NOW })), text);
      assert.equal(JSON.stringify(generateDemo({ indicators: 2000, now: NOW - 250 })), text);
      assert.equal(JSON.stringify(generateDemo({ indicators: 2000, now: NOW + 749 })), text);
      assert.notEqual(JSON.stringify(generateDemo({ indicators: 2000, now: NOW + 750 })), text);
    });

    it('moves every stamp by the difference of two nows and changes nothing else', () => {
      const shift = 45 * DAY_MS + ((3 * 60 + 17) * 60 + 5) * 1000;
      const problems = unshifted(atNow, generateDemo({ indicators: 2000, now: NOW + shift }), shift);
      assert.deepEqual(problems.slice(0, 10), []);
    });

    it('puts no stamp after now, and shows feeds pulled within the last hour', () => {
      const late = allStamps(atNow).filter(([, stamp]) => msOf(stamp as string) > NOW);
      assert.deepEqual(late, []);
      assert.ok(atNow.feeds.every((feed) => feed.stamp_pulled !== null && daysBeforeNow(feed.stamp_pulled) < 1 / 24));
    });

    it('keeps every active threat observed within 90 days but the stale ones, last seen 100-400 days ago', () => {
      const active = atNow.threats.filter((t) => !t.retired);
      // The lifecycle's "last observation" (docs/interface.md section 3): stamp_seen, or stamp_added when never seen.
      const silence = (t: (typeof active)[number]): number => daysBeforeNow(t.stamp_seen ?? t.stamp_added ?? '');
      const overdue = active.filter((t) => silence(t) > 90);
      assert.deepEqual(overdue.map((t) => t.threat), STALE_THREATS);
      for (const t of overdue) assert.ok(silence(t) >= 100 && silence(t) <= 400, `${t.threat} last seen ${silence(t)} days ago`);
      assert.ok(active.length - overdue.length >= 20);
    });

    it('keeps the retired threats retired, after more than 90 days unseen', () => {
      const retired = atNow.threats.filter((t) => t.retired);
      assert.deepEqual(retired.map((t) => t.threat), ['Tarnvolt', 'Skeinworm', 'Halcyon EK', 'Cinderspam']);
      for (const t of retired) {
        assert.ok(t.stamp_retired !== null && t.stamp_seen !== null && t.stamp_retired <= t.stamp_updated!, t.threat);
        assert.ok(daysBeforeNow(t.stamp_seen) - daysBeforeNow(t.stamp_retired) > 90, t.threat);
      }
    });
  });

  describe('with a now that is not a time', () => {
    it('throws a RangeError', () => {
      for (const now of [Number.NaN, Number.POSITIVE_INFINITY, -1]) assert.throws(() => generateDemo({ indicators: 10, now }), RangeError);
    });
  });
});
