// Pure accumulation of per-owner aggregates (risk counts, attribute and property value counts).
import { RISK_LEVELS, type JsonObject, type Risk } from '../domain.js';
import type { AttributeCounts, FeedThreatSummary, RiskCounts, ThreatFeedSummary } from './records.js';

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

interface Accumulator {
  risk: RiskCounts;
  attributes: Map<string, Map<string, number>>;
  properties: Map<string, Map<string, number>>;
  lastDomainUpdate: string | null;
}

function bump(map: Map<string, Map<string, number>>, key: string, value: string): void {
  let counts = map.get(key);
  if (!counts) map.set(key, (counts = new Map()));
  counts.set(value, (counts.get(value) ?? 0) + 1);
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

export class AggregateBuilder {
  private readonly owners = new Map<number, Accumulator>();

  constructor(private readonly attributeKeys: readonly string[]) {}

  add(owner: number, facts: IndicatorFacts): void {
    let acc = this.owners.get(owner);
    if (!acc) {
      acc = { risk: emptyRiskCounts(), attributes: new Map(), properties: new Map(), lastDomainUpdate: null };
      this.owners.set(owner, acc);
    }
    acc.risk[facts.bucket]++;
    acc.risk.total++;
    for (const key of this.attributeKeys) {
      const values = facts.attributes[key];
      if (Array.isArray(values)) for (const v of values) bump(acc.attributes, key, String(v));
    }
    for (const [key, value] of facts.properties) bump(acc.properties, key, value);
    const stamp = facts.domainStamp;
    if (stamp !== null && (acc.lastDomainUpdate === null || stamp > acc.lastDomainUpdate)) acc.lastDomainUpdate = stamp;
  }

  result(owner: number): OwnerAggregate {
    const acc = this.owners.get(owner);
    const attributes: AttributeCounts = {};
    for (const key of this.attributeKeys) attributes[key] = acc ? topCounts(acc.attributes.get(key) ?? new Map(), Infinity) : {};
    const properties: JsonObject = {};
    if (acc) for (const [key, counts] of [...acc.properties].sort()) properties[key] = topCounts(counts, TOP_VALUES);
    return { risk: acc?.risk ?? emptyRiskCounts(), attributes, properties, lastDomainUpdate: acc?.lastDomainUpdate ?? null };
  }
}

/** A chunk of indicators (in iid order) with the feeds and threats each is linked to. */
export interface AggregateChunk {
  rows: (IndicatorAggregateRow & { iid: number })[];
  feedsOf: Map<number, number[]>;
  threatsOf: Map<number, number[]>;
}

/** The aggregates of the given owners. */
export interface AggregateResults {
  feeds: Map<number, OwnerAggregate>;
  threats: Map<number, OwnerAggregate>;
}

/** The aggregates of every feed and threat, fed a chunk of indicators at a time. */
export class Aggregates {
  private readonly feeds = new AggregateBuilder(['technology', 'protocol', 'port']);
  private readonly threats = new AggregateBuilder(['technology', 'hosttype', 'protocol', 'port']);

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
  addOwned(kind: 'feed' | 'threat', owner: number, rows: readonly IndicatorAggregateRow[]): void {
    const builder = kind === 'feed' ? this.feeds : this.threats;
    for (const row of rows) builder.add(owner, indicatorFacts(row));
  }

  results(fids: readonly number[], tids: readonly number[]): AggregateResults {
    return {
      feeds: new Map(fids.map((fid) => [fid, this.feeds.result(fid)])),
      threats: new Map(tids.map((tid) => [tid, this.threats.result(tid)])),
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

/**
 * The owner's aggregates as its stored summary holds them, or undefined when none were computed yet
 * (a record new to the store). Parsing JSON that JSON.stringify wrote gives objects whose keys come
 * in the same order, so a summary composed again from them is the same text.
 */
export function aggregateOfSummary(summary: string): OwnerAggregate | undefined {
  const parsed = JSON.parse(summary) as { risk?: RiskCounts; attributes?: AttributeCounts; properties?: JsonObject; updated_last_domain?: string | null };
  if (parsed.risk === undefined || parsed.attributes === undefined || parsed.properties === undefined) return undefined;
  return { risk: parsed.risk, attributes: parsed.attributes, properties: parsed.properties, lastDomainUpdate: parsed.updated_last_domain ?? null };
}
