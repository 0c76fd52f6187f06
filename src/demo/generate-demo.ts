// The deterministic demo data set: invented threats, feeds, indicators and links, ready to import.

import type { Feed, Indicator, Link, Threat } from '../domain.js';
import { linkFeeds } from './feed-links.js';
import { generateFeeds } from './generate-feeds.js';
import { generateIndicators } from './generate-indicators.js';
import { generateThreats } from './generate-threats.js';
import { indicatorWindows } from './link-stamps.js';
import { linkThreats } from './threat-links.js';

/** The import document of DESIGN section 3. */
export interface DemoDataset {
  threats: Threat[];
  feeds: Feed[];
  indicators: Indicator[];
  links: Link[];
}

export interface DemoOptions {
  /** How many indicators to generate (default 50,000: enough for feeds that span many pages). */
  indicators?: number;
}

export const DEFAULT_DEMO_INDICATORS = 50_000;

/**
 * Pure and deterministic: every part draws from its own seeded stream and all stamps count back
 * from a fixed "now", so the same options always give a deep-equal data set.
 */
export function generateDemo(options: DemoOptions = {}): DemoDataset {
  const count = options.indicators ?? DEFAULT_DEMO_INDICATORS;
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new RangeError(`generateDemo: indicators must be a positive integer, got ${count}`);
  }
  const threats = generateThreats();
  const feeds = generateFeeds();
  const indicators = generateIndicators(count);
  const windows = indicatorWindows(indicators);
  const feedLinks = linkFeeds(indicators, windows);
  const threatLinks = linkThreats(indicators, windows, threats, feedLinks.attributionFid);
  return { threats, feeds, indicators, links: [...feedLinks.links, ...threatLinks] };
}
