// Pure accumulation of per-owner aggregates (risk counts, attribute and property value counts).
import { RISK_LEVELS, type JsonObject, type Risk } from '../../domain.js';
import type { AttributeCounts, FeedThreatSummary, RiskCounts, ThreatFeedSummary } from '../contract/records.js';

/** An indicator's columns that the aggregates read, as stored (JSON text for attributes and properties). */
export interface IndicatorAggregateRow {
  type: string;
  risk: string;
  retired: number | null;
  stamp_updated: string | null;
  stamp_added: string | null;
  attributes: string;
  properties: string;
}

/** An indicator's contribution to every owner it is linked to, parsed once. */
export interface IndicatorFacts {
  bucket: Risk;
  attributes: Record<string, unknown>;
  /** Scalar top-level properties as counted values; nested ones (whois, geo objects) are per indicator. */
  properties: [string, string][];
  /** For a domain: its last update (or its addition), else null. */
  domainStamp: string | null;
}

export function indicatorFacts(row: IndicatorAggregateRow): IndicatorFacts {
  const properties: [string, string][] = [];
  for (const [key, value] of Object.entries(JSON.parse(row.properties) as Record<string, unknown>)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') properties.push([key, String(value)]);
  }
  return {
    bucket: riskBucket(row.risk, row.retired),
    attributes: JSON.parse(row.attributes) as Record<string, unknown>,
    properties,
    domainStamp: row.type === 'domain' ? (row.stamp_updated ?? row.stamp_added) : null,
  };
}

/** Most frequent values kept per property key: summaries stay small whatever the data. */
const TOP_VALUES = 25;

/** Keys in the order of spec 2.3. */
export function emptyRiskCounts(): RiskCounts {
  return { unknown: 0, low: 0, medium: 0, high: 0, critical: 0, retired: 0, total: 0, none: 0 };
}

/** A retired indicator counts as `retired` whatever its last risk level was. */
export function riskBucket(risk: string, retired: number | boolean | null): Risk {
  if (retired === 1 || retired === true) return 'retired';
  return (RISK_LEVELS as readonly string[]).includes(risk) ? (risk as Risk) : 'unknown';
}

/** What a row of owner_value_counts counts (value-counts.ts): a risk bucket, an attribute's value or a property's value. */
export const FACET = { risk: 0, attribute: 1, property: 2 } as const;

/** One counted value of an owner: a row of owner_value_counts without its owner. */
export interface CountCell {
  facet: number;
  /** The attribute or property key; '' for a risk bucket. */
  name: string;
  value: string;
  count: number;
}

/** Adds `by` (which may be negative) to a value's count; a count that reaches 0 is removed, and an empty key with it. */
function bump(map: Map<string, Map<string, number>>, key: string, value: string, by: number): void {
  let counts = map.get(key);
  if (!counts) map.set(key, (counts = new Map()));
  const n = (counts.get(value) ?? 0) + by;
  if (n !== 0) counts.set(value, n);
  else if (counts.delete(value) && counts.size === 0) map.delete(key);
}

function topCounts(counts: Map<string, number>, limit: number): Record<string, number> {
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return Object.fromEntries(sorted.slice(0, limit));
}

export interface OwnerAggregate {
  risk: RiskCounts;
  attributes: AttributeCounts;
  properties: JsonObject;
  lastDomainUpdate: string | null;
}

const RISK_BUCKETS = Object.keys(emptyRiskCounts()).filter((k) => k !== 'total') as Risk[];

/**
 * Every value's count of one owner: its risk buckets, the values of the attribute keys its kind
 * counts, and the scalar property values, from its linked indicators. Its summary shows them
 * (aggregate()); owner_value_counts keeps them (cells()), so that an import can add and take away
 * one indicator's contribution (add with sign -1) without reading the others again.
 */
export class OwnerCounts {
  readonly risk: RiskCounts = emptyRiskCounts();
  readonly attributes = new Map<string, Map<string, number>>();
  readonly properties = new Map<string, Map<string, number>>();
  /** The latest domain stamp of the indicators added; a maximum, so taking one away cannot update it (value-counts.ts). */
  lastDomainUpdate: string | null = null;

  constructor(private readonly attributeKeys: readonly string[]) {}

  /** Adds one linked indicator (sign 1), or takes it away (sign -1). */
  add(facts: IndicatorFacts, sign: 1 | -1 = 1): void {
    this.risk[facts.bucket] += sign;
    this.risk.total += sign;
    for (const key of this.attributeKeys) {
      const values = facts.attributes[key];
      if (Array.isArray(values)) for (const v of values) bump(this.attributes, key, String(v), sign);
    }
    for (const [key, value] of facts.properties) bump(this.properties, key, value, sign);
    const stamp = facts.domainStamp;
    if (sign === 1 && stamp !== null && (this.lastDomainUpdate === null || stamp > this.lastDomainUpdate)) this.lastDomainUpdate = stamp;
  }

  /** Sets a counted value as a row of owner_value_counts holds it. */
  set({ facet, name, value, count }: CountCell): void {
    if (facet === FACET.risk) {
      const bucket = value as Risk;
      this.risk.total += count - this.risk[bucket];
      this.risk[bucket] = count;
    } else {
      const map = facet === FACET.attribute ? this.attributes : this.properties;
      bump(map, name, value, count - (map.get(name)?.get(value) ?? 0));
    }
  }

  /** Every value counted, as the rows of owner_value_counts. */
  *cells(): Generator<CountCell> {
    for (const bucket of RISK_BUCKETS) if (this.risk[bucket] !== 0) yield { facet: FACET.risk, name: '', value: bucket, count: this.risk[bucket] };
    for (const [facet, map] of [
      [FACET.attribute, this.attributes],
      [FACET.property, this.properties],
    ] as const) {
      for (const [name, counts] of map) for (const [value, count] of counts) yield { facet, name, value, count };
    }
  }

  /** The values one indicator counts for this owner (those add() changes). */
  *cellsOf(facts: IndicatorFacts): Generator<Omit<CountCell, 'count'>> {
    yield { facet: FACET.risk, name: '', value: facts.bucket };
    for (const key of this.attributeKeys) {
      const values = facts.attributes[key];
      if (Array.isArray(values)) for (const v of values) yield { facet: FACET.attribute, name: key, value: String(v) };
    }
    for (const [name, value] of facts.properties) yield { facet: FACET.property, name, value };
  }

  /** The count of one value (0 when not counted). */
  count({ facet, name, value }: Omit<CountCell, 'count'>): number {
    if (facet === FACET.risk) return value in this.risk && value !== 'total' ? this.risk[value as Risk] : 0;
    return (facet === FACET.attribute ? this.attributes : this.properties).get(name)?.get(value) ?? 0;
  }

  /** What the summary shows: every attribute value, and the most frequent values of each property. */
  aggregate(): OwnerAggregate {
    const attributes: AttributeCounts = {};
    for (const key of this.attributeKeys) attributes[key] = topCounts(this.attributes.get(key) ?? new Map(), Infinity);
    const properties: JsonObject = {};
    for (const [key, counts] of [...this.properties].sort()) properties[key] = topCounts(counts, TOP_VALUES);
    return { risk: { ...this.risk }, attributes, properties, lastDomainUpdate: this.lastDomainUpdate };
  }
}

/** The attribute keys each kind of owner counts. */
export const ATTRIBUTE_KEYS = {
  feed: ['technology', 'protocol', 'port'],
  threat: ['technology', 'hosttype', 'protocol', 'port'],
} as const;

export type OwnerKind = keyof typeof ATTRIBUTE_KEYS;

export class AggregateBuilder {
  private readonly owners = new Map<number, OwnerCounts>();

  constructor(private readonly attributeKeys: readonly string[]) {}

  add(owner: number, facts: IndicatorFacts): void {
    let counts = this.owners.get(owner);
    if (!counts) this.owners.set(owner, (counts = new OwnerCounts(this.attributeKeys)));
    counts.add(facts);
  }

  /** The owner's counts (empty when it has no indicators). */
  counts(owner: number): OwnerCounts {
    return this.owners.get(owner) ?? new OwnerCounts(this.attributeKeys);
  }
}

/** A chunk of indicators (in iid order) with the feeds and threats each is linked to. */
export interface AggregateChunk {
  rows: (IndicatorAggregateRow & { iid: number })[];
  feedsOf: Map<number, number[]>;
  threatsOf: Map<number, number[]>;
}

/** The aggregates of the given owners, and the counts they come from. */
export interface AggregateResults {
  feeds: Map<number, OwnerAggregate>;
  threats: Map<number, OwnerAggregate>;
  /** Every value's count of the same owners, for owner_value_counts (absent: the counts table is written elsewhere). */
  counts?: { feeds: Map<number, OwnerCounts>; threats: Map<number, OwnerCounts> };
}

/** The aggregates of every feed and threat, fed a chunk of indicators at a time. */
export class Aggregates {
  private readonly feeds = new AggregateBuilder(ATTRIBUTE_KEYS.feed);
  private readonly threats = new AggregateBuilder(ATTRIBUTE_KEYS.threat);

  /** Each linked indicator is parsed once and added to all its feeds and threats. */
  add({ rows, feedsOf, threatsOf }: AggregateChunk): void {
    for (const row of rows) {
      const iid = Number(row.iid);
      const fids = feedsOf.get(iid);
      const tids = threatsOf.get(iid);
      if (!fids && !tids) continue;
      const facts = indicatorFacts(row);
      for (const fid of fids ?? []) this.feeds.add(fid, facts);
      for (const tid of tids ?? []) this.threats.add(tid, facts);
    }
  }

  /** The indicators of one owner, read by its links: each is added to that owner alone. */
  addOwned(kind: OwnerKind, owner: number, rows: readonly IndicatorAggregateRow[]): void {
    const builder = kind === 'feed' ? this.feeds : this.threats;
    for (const row of rows) builder.add(owner, indicatorFacts(row));
  }

  results(fids: readonly number[], tids: readonly number[]): AggregateResults {
    const feedCounts = new Map(fids.map((fid) => [fid, this.feeds.counts(fid)]));
    const threatCounts = new Map(tids.map((tid) => [tid, this.threats.counts(tid)]));
    return {
      feeds: new Map([...feedCounts].map(([fid, counts]) => [fid, counts.aggregate()])),
      threats: new Map([...threatCounts].map(([tid, counts]) => [tid, counts.aggregate()])),
      counts: { feeds: feedCounts, threats: threatCounts },
    };
  }
}

/** An item of a feed summary's `threats` (spec 2.2), its risk as read from the threat's row. */
export type ThreatListItem = Omit<FeedThreatSummary, 'risk'> & { risk: string };

/** An item of a threat summary's `feeds` (spec 2.1). */
export type FeedListItem = ThreatFeedSummary;

/** A feed's computed columns as stored: `indicators` (its risk counts) and `summary`, JSON text. */
export interface FeedSummaryRow {
  indicators: string;
  summary: string;
}

/** A threat's computed columns as stored. */
export interface ThreatSummaryRow {
  summary: string;
  updated_last_domain: string | null;
}

export function feedSummaryRow(agg: OwnerAggregate, threats: ThreatListItem[]): FeedSummaryRow {
  const summary = { properties: agg.properties, attributes: agg.attributes, threats, risk: agg.risk };
  return { indicators: JSON.stringify(agg.risk), summary: JSON.stringify(summary) };
}

export function threatSummaryRow(agg: OwnerAggregate, feeds: FeedListItem[]): ThreatSummaryRow {
  const summary = { updated_last_domain: agg.lastDomainUpdate, attributes: agg.attributes, properties: agg.properties, feeds, risk: agg.risk };
  return { summary: JSON.stringify(summary), updated_last_domain: agg.lastDomainUpdate };
}

/** A stored summary (feedSummaryRow, threatSummaryRow), parsed; `{}` for a record whose aggregates were never computed. */
export interface ParsedSummary {
  risk?: RiskCounts;
  attributes?: AttributeCounts;
  properties?: JsonObject;
  updated_last_domain?: string | null;
  threats?: { tid: number; indicators: number }[];
  feeds?: { fid: number; indicators: number }[];
}

export function parseSummary(summary: string): ParsedSummary {
  return JSON.parse(summary) as ParsedSummary;
}

/**
 * The owner's aggregates as its stored summary holds them, or undefined when none were computed yet
 * (a record new to the store). Parsing JSON that JSON.stringify wrote gives objects whose keys come
 * in the same order, so a summary composed again from them is the same text.
 */
export function aggregateOfSummary(parsed: ParsedSummary): OwnerAggregate | undefined {
  if (parsed.risk === undefined || parsed.attributes === undefined || parsed.properties === undefined) return undefined;
  return { risk: parsed.risk, attributes: parsed.attributes, properties: parsed.properties, lastDomainUpdate: parsed.updated_last_domain ?? null };
}

/**
 * The owners of the other kind a stored summary lists (a feed's `threats`, a threat's `feeds`: every
 * one it shares an indicator with), each with how many it shares; undefined when it has no list yet.
 */
export function sharedOfSummary<K extends 'tid' | 'fid'>(list: ({ [key in K]: number } & { indicators: number })[] | undefined, key: K): Map<number, number> | undefined {
  return list === undefined ? undefined : new Map(list.map((item) => [Number(item[key]), Number(item.indicators)]));
}
