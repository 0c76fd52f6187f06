// The deterministic demo data set: invented threats, feeds, indicators and links, ready to import.

import type { Feed, Indicator, Link, Threat } from '../domain.js';
import { demoAnchor, DEMO_REFERENCE_NOW } from './demo-time.js';
import { linkFeeds } from './feed-links.js';
import { generateFeeds } from './generate-feeds.js';
import { generateIndicators } from './generate-indicators.js';
import { generateThreats } from './generate-threats.js';
import { indicatorWindows } from './link-stamps.js';
import { linkThreats } from './threat-links.js';

/** An import document (docs/getting-started.md, "Import format"). */
export interface DemoDataset {
  threats: Threat[];
  feeds: Feed[];
  indicators: Indicator[];
  links: Link[];
}

export interface DemoOptions {
  /** How many indicators to generate (default 50,000: enough for feeds that span many pages). */
  indicators?: number;
  /**
   * The moment every stamp counts back from, in milliseconds since the epoch (rounded down to
   * the second): pass the clock's now so that the data is current where it is loaded. Without
   * it, the fixed DEMO_REFERENCE_NOW (2026-01-01), for callers that need no particular time.
   */
  now?: number;
}

export const DEFAULT_DEMO_INDICATORS = 50_000;

/**
 * Pure and deterministic: every part draws from its own seeded stream and all stamps count back
 * from `now`, so the same options always give a byte-for-byte equal data set, and two `now`s
 * give the same data with every stamp moved by their difference.
 *
 * Active threats were seen in the last three weeks, except the few the catalog marks `stale`
 * (see threat-catalog.ts), last seen 100-400 days before `now`: the lifecycle's first run
 * retires exactly those (docs/interface.md section 3). Threats the catalog marks `retired` already are.
 */
export function generateDemo(options: DemoOptions = {}): DemoDataset {
  const count = options.indicators ?? DEFAULT_DEMO_INDICATORS;
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`generateDemo: indicators must be a positive integer, got ${count}`);
  }
  const now = demoAnchor(options.now ?? DEMO_REFERENCE_NOW);
  const threats = generateThreats(now);
  const feeds = generateFeeds(now);
  const indicators = generateIndicators(count, now);
  const windows = indicatorWindows(indicators);
  const feedLinks = linkFeeds(indicators, windows);
  const threatLinks = linkThreats(indicators, windows, threats, feedLinks.attributionFid);
  return { threats, feeds, indicators, links: [...feedLinks.links, ...threatLinks] };
}
