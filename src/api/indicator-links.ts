// An indicator's links (docs/lookup-api.md, "An indicator's links and properties"): the indicators the store
// can relate to it from the values alone, grouped by relation, one page of each group at a time.
import { ServiceUnavailableError } from '../errors.js';
import { readIndicatorValue, storedTypesOf } from '../sources/indicator-value.js';
import { rangeOf } from '../sources/ip-range.js';
import { parseIpBlock } from '../sources/normalize-value.js';
import { storedBlocksHolding } from '../sources/stored-blocks.js';
import type { IndicatorFilter } from '../store/contract/explore.js';
import type { IndicatorRecord } from '../store/contract/records.js';
import type { IndicatorRef, Store } from '../store/contract/store.js';

/** The relations, named as the body names its groups. */
export const LINK_RELATIONS = ['Subdomains', 'URLs', 'Host', 'Blocks', 'Inside'] as const;
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

/** `text` as the literal part of an explore LIKE pattern (store/contract/explore.ts, TextMatch): `\`, `%` and `_` escaped. */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The schemes a stored URL may have (normalize-value.ts accepts these only), and what may follow its host. */
const URL_SCHEMES = ['http', 'https', 'ftp'] as const;
const AFTER_HOST = ['', '/%', ':%', '?%', '#%'] as const;

/**
 * URLs whose host is `domain`: the scheme, `://`, the domain, then the end, a path, a port, a query or
 * a fragment. Anchored at the scheme, so a URL that only quotes another in its query is not one.
 */
function urlsOn(domain: string): IndicatorFilter {
  const host = literal(domain);
  const shapes = URL_SCHEMES.flatMap((scheme) => AFTER_HOST.map((after): IndicatorFilter => ({ kind: 'value-like', like: `${scheme}://${host}${after}` })));
  return { kind: 'and', filters: [{ kind: 'type', types: storedTypesOf('url') }, { kind: 'or', filters: shapes }] };
}

/** Domains under `domain` at any depth (`a.b.domain`). */
const subdomainsOf = (domain: string): IndicatorFilter => ({
  kind: 'and',
  filters: [{ kind: 'type', types: storedTypesOf('domain') }, { kind: 'value-like', like: `%.${literal(domain)}` }],
});

export interface LinksOptions {
  page: number;
  /** Indicators per relation per page (`linksPageSize`). */
  size: number;
  /** How long one relation's explore query may run (`explore.maxMillis`). */
  maxMillis: number;
}

/** One page of the indicators `filter` matches, newest first, through the store's explore query. */
async function explored(store: Store, filter: IndicatorFilter, { page, size, maxMillis }: LinksOptions): Promise<RelationPage> {
  const result = await store.explore({ mode: 'indicators', filter, offset: page * size, limit: size, maxMillis });
  if (result.timedOut === true) throw new ServiceUnavailableError(`The indicator's links took longer than ${maxMillis} ms to find; try again later.`);
  if (result.mode !== 'indicators') throw new Error(`explore answered mode ${result.mode} for an indicators query`);
  return { rows: result.rows.map((r) => ({ iid: r.iid, indicator: r.indicator, type: r.type, risk: r.risk as IndicatorRef['risk'], retired: r.risk === 'retired' })), more: result.more };
}

/**
 * The related indicators of `indicator`, by what its value is (detected as a pull detects it, so an
 * import's alias types relate too): a domain's `Subdomains` and `URLs` (those whose host it is); a
 * URL's `Host`; an address's `Blocks` (the stored blocks holding it, narrowest first); a block's
 * `Blocks` (the wider ones) and `Inside` (the addresses and blocks inside it). Every relation that
 * applies to its type is present, empty or not; other types have none.
 */
export async function findIndicatorLinks(store: Store, indicator: IndicatorRecord, options: LinksOptions): Promise<IndicatorLinks> {
  const { page, size } = options;
  const reading = readIndicatorValue(indicator.indicator);
  if (!reading.ok) return {};
  const { type } = reading;
  const { value } = reading.lookup;
  switch (type) {
    case 'domain':
      return { Subdomains: await explored(store, subdomainsOf(value), options), URLs: await explored(store, urlsOn(value), options) };
    case 'url': {
      const host = hostOf(value);
      return { Host: pageOf(host === undefined ? [] : await store.findIndicatorsByValues([host.value], host.types), page, size) };
    }
    case 'ip':
    case 'ipv6': {
      const links: IndicatorLinks = { Blocks: pageOf(await storedBlocksHolding(store, value, type), page, size) };
      const block = parseIpBlock(value, type === 'ip' ? 4 : 6);
      if (block !== undefined && block.prefix < (block.family === 4 ? 32 : 128)) {
        // The block itself is inside its own range: left out, under whichever type it is stored.
        const inside: IndicatorFilter = { kind: 'and', filters: [{ kind: 'inside', range: rangeOf(block) }, { kind: 'not', filter: { kind: 'value', values: [value] } }] };
        links.Inside = await explored(store, inside, options);
      }
      return links;
    }
    default:
      return {};
  }
}
