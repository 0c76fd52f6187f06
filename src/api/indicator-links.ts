// An indicator's links (docs/lookup-api.md, "An indicator's links and properties"): the indicators the store
// can relate to it from the values alone, grouped by relation, one page of each group at a time.
import { readIndicatorValue, storedTypesOf } from '../sources/indicator-value.js';
import { storedBlocksHolding } from '../sources/stored-blocks.js';
import type { IndicatorRecord } from '../store/contract/records.js';
import type { IndicatorRef, Store } from '../store/contract/store.js';

/** The relations, named as the body names its groups. */
export const LINK_RELATIONS = ['Host', 'Blocks'] as const;
export type LinkRelation = (typeof LINK_RELATIONS)[number];

/** One page of one relation's indicators, and whether more follow it. */
export interface RelationPage {
  rows: IndicatorRef[];
  more: boolean;
}

export type IndicatorLinks = Partial<Record<LinkRelation, RelationPage>>;

/** Page `page` of `rows` already read in full (a relation of at most 128 indicators). */
function pageOf(rows: IndicatorRef[], page: number, size: number): RelationPage {
  const start = page * size;
  return { rows: rows.slice(start, start + size), more: rows.length > start + size };
}

/** The host of a URL as the store holds hosts: a domain or address, normalized; undefined when it has none. */
function hostOf(url: string): { value: string; types: readonly string[] } | undefined {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return undefined;
  }
  const reading = readIndicatorValue(hostname.replace(/^\[(.*)\]$/, '$1'));
  return reading.ok ? { value: reading.lookup.value, types: storedTypesOf(reading.type) } : undefined;
}

/**
 * The related indicators of `indicator`, by what its value is (detected as a pull detects it, so an
 * import's alias types relate too): a URL's host (`Host`); the stored blocks holding an address or a
 * block (`Blocks`, narrowest first). Every relation that applies to its type is present, empty or not.
 */
export async function findIndicatorLinks(store: Store, indicator: IndicatorRecord, page: number, size: number): Promise<IndicatorLinks> {
  const reading = readIndicatorValue(indicator.indicator);
  if (!reading.ok) return {};
  const { type } = reading;
  const { value } = reading.lookup;
  if (type === 'url') {
    const host = hostOf(value);
    return { Host: pageOf(host === undefined ? [] : await store.findIndicatorsByValues([host.value], host.types), page, size) };
  }
  if (type === 'ip' || type === 'ipv6') return { Blocks: pageOf(await storedBlocksHolding(store, value, type), page, size) };
  return {};
}
