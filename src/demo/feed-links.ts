// Links every demo indicator to one or more feeds, giving feeds very different sizes.

import type { Indicator } from '../domain.js';
import { FEED_SEEDS, type IndicatorKind } from './generate-feeds.js';
import { linkStamp, type IndicatorWindows } from './link-stamps.js';
import { createPrng, type Prng } from './prng.js';

const FEED_LINK_SEED = 0xf11c;
/** Share of indicators that a second large feed also lists: feeds overlap in practice. */
const SECOND_FEED_SHARE = 0.08;
const FID_KEY_SPAN = 64;

export interface FeedLink {
  iid: number;
  fid: number;
  stamp_linked: string;
}

interface PrimaryChoice {
  fids: number[];
  weights: number[];
}

export interface FeedLinking {
  /** Ordered by fid, then iid. */
  links: FeedLink[];
  /** Per indicator (index iid - 1), the feed whose focus best says which threat it belongs to. */
  attributionFid: number[];
}

/**
 * Each indicator gets one primary feed among the large feeds that carry its type; boutique
 * feeds then take an exact share on top. A boutique feed is curated around a few threat
 * categories, so where it lists an indicator it becomes that indicator's attribution feed.
 */
export function linkFeeds(indicators: readonly Indicator[], windows: IndicatorWindows): FeedLinking {
  const prng = createPrng(FEED_LINK_SEED);
  const choices = primaryChoices();
  const links: FeedLink[] = [];
  const linked = new Set<number>();
  const add = (indicator: Indicator, fid: number, withinDays: number): void => {
    // Numeric (iid, fid) key: fids stay below FID_KEY_SPAN, and numbers hash faster than strings.
    const key = indicator.iid * FID_KEY_SPAN + fid;
    if (linked.has(key)) return;
    linked.add(key);
    links.push({ iid: indicator.iid, fid, stamp_linked: linkStamp(windows, indicator.iid, withinDays, prng) });
  };
  const attributionFid = indicators.map((indicator) => {
    const choice = choices.get(indicator.type as IndicatorKind);
    if (!choice) throw new RangeError(`no demo feed carries type ${indicator.type}`);
    const fid = choice.fids[prng.weighted(choice.weights)] as number;
    add(indicator, fid, 1);
    if (choice.fids.length > 1 && prng.chance(SECOND_FEED_SHARE)) {
      const others = choice.fids.filter((other) => other !== fid);
      add(indicator, prng.pick(others), 60);
    }
    return fid;
  });
  linkBoutiqueFeeds(indicators, prng, (indicator, fid, withinDays) => {
    add(indicator, fid, withinDays);
    attributionFid[indicator.iid - 1] = fid;
  });
  linkEmptyFeeds(indicators, links, add);
  links.sort((a, b) => a.fid - b.fid || a.iid - b.iid);
  return { links, attributionFid };
}

function primaryChoices(): Map<IndicatorKind, PrimaryChoice> {
  const choices = new Map<IndicatorKind, PrimaryChoice>();
  FEED_SEEDS.forEach((seed, index) => {
    if (!('weight' in seed.size)) return;
    for (const type of seed.carries) {
      const choice = choices.get(type) ?? { fids: [], weights: [] };
      choice.fids.push(index + 1);
      choice.weights.push(seed.size.weight);
      choices.set(type, choice);
    }
  });
  return choices;
}

type AddLink = (indicator: Indicator, fid: number, withinDays: number) => void;

/** Exact sizes keep the small feeds small (one page, or under 50 links) whatever the total. */
function linkBoutiqueFeeds(indicators: readonly Indicator[], prng: Prng, add: AddLink): void {
  FEED_SEEDS.forEach((seed, index) => {
    if (!('share' in seed.size)) return;
    const carried = indicators.filter((indicator) => seed.carries.includes(indicator.type as IndicatorKind));
    const target = Math.max(1, Math.round(seed.size.share * indicators.length));
    for (const indicator of prng.sample(carried, target)) add(indicator, index + 1, 30);
  });
}

/** With very few indicators a large feed can draw none; give it the first indicator it carries. */
function linkEmptyFeeds(indicators: readonly Indicator[], links: readonly FeedLink[], add: AddLink): void {
  const used = new Set(links.map((link) => link.fid));
  FEED_SEEDS.forEach((seed, index) => {
    if (used.has(index + 1)) return;
    const first = indicators.find((indicator) => seed.carries.includes(indicator.type as IndicatorKind));
    if (first) add(first, index + 1, 1);
  });
}
