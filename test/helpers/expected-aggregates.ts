// Aggregates recomputed from the fixture in plain code, independently of the store's SQL.
import type { Indicator } from '../../src/domain.js';
import type { Dataset } from './fixture.js';

export function expectedRiskCounts(indicators: Indicator[]): Record<string, number> {
  const counts: Record<string, number> = { unknown: 0, low: 0, medium: 0, high: 0, critical: 0, retired: 0, total: 0, none: 0 };
  for (const i of indicators) {
    counts[i.retired ? 'retired' : i.risk]! += 1;
    counts.total! += 1;
  }
  return counts;
}

export function linkedIndicators(data: Dataset, owner: { fid: number } | { tid: number }): Indicator[] {
  const iids = new Set(
    data.links.filter((l) => ('fid' in owner ? 'fid' in l && l.fid === owner.fid : 'tid' in l && l.tid === owner.tid)).map((l) => l.iid),
  );
  return data.indicators.filter((i) => iids.has(i.iid)).sort((a, b) => a.iid - b.iid);
}

export function sharedCount(data: Dataset, fid: number, tid: number): number {
  const inFeed = new Set(linkedIndicators(data, { fid }).map((i) => i.iid));
  return linkedIndicators(data, { tid }).filter((i) => inFeed.has(i.iid)).length;
}

export function attributeCounts(indicators: Indicator[], key: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const i of indicators) for (const v of i.attributes[key] ?? []) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}
