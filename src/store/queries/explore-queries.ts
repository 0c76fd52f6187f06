// Explore's queries (docs/explore.md): a filter tree compiled into one SELECT whose every leaf reads
// an index of its own (docs/explore.md, "How queries stay bounded"), then the page's rows hydrated.
import { sql, type RawBuilder } from 'kysely';
import {
  EXPLORE_NAMES_PER_ROW,
  type CountOp,
  type ExploreIndicatorRow,
  type ExploreQuery,
  type ExploreResult,
  type ExploreThreatRow,
  type FeedFilter,
  type IndicatorFilter,
  type TextMatch,
  type ThreatFilter,
} from '../contract/explore.js';
import { ATTRIBUTE_VALUE_CHARS } from '../db/search-keys.js';
import type { Dialect } from '../db/dialect.js';
import { seenStampOf } from '../db/listing-stamps.js';

/** Runs one query and gives its rows: over Kysely, or on an explore worker's own connection. */
export type RunQuery = <R>(query: RawBuilder<R>) => Promise<R[]>;

/**
 * How a query is compiled where it runs. `guard` is a condition put in every scan, so that a query on
 * SQLite stops once past its deadline (explore-thread.ts); elsewhere it is `1 = 1`.
 */
export interface ExploreSql {
  dialect: Dialect;
  guard: RawBuilder<unknown>;
}

const ALWAYS = sql`1 = 1`;
const NEVER = sql`1 = 0`;

/**
 * A text match on a lowercased column. PostgreSQL's LIKE takes `\` as its escape already; SQLite's
 * needs the ESCAPE clause.
 */
function matchSql(x: ExploreSql, column: RawBuilder<unknown>, match: TextMatch): RawBuilder<unknown> {
  if ('exact' in match) return sql`${column} = ${match.exact}`;
  return x.dialect === 'sqlite' ? sql`${column} like ${match.like} escape '\\'` : sql`${column} like ${match.like}`;
}

/**
 * The pattern SQLite's FTS5 trigram index answers for a LIKE pattern escaped with `\`: FTS5 uses its
 * index only for a LIKE without ESCAPE, so an escaped `%` or `_` becomes `_` (any one character, a
 * superset), and the exact pattern is then checked on the row. A `\`-escaped other character is itself.
 */
export function trigramPattern(like: string): string {
  let out = '';
  for (let i = 0; i < like.length; i += 1) {
    const c = like[i]!;
    if (c === '\\' && i + 1 < like.length) {
      const next = like[(i += 1)]!;
      out += next === '%' || next === '_' ? '_' : next;
    } else out += c;
  }
  return out;
}

/**
 * The non-retired risks select indicators whose retired flag is not set; `retired` either sign of
 * retirement. Like `type` and the stamps, a condition on the row itself: with a narrower term the
 * row is tested where that term's index led, and alone or with other such terms the planner reads
 * one of their indexes and tests the rest. As a set of its own (`iid in (select ...)`), `risk>=high
 * and added>DATE` built two large sets of iids to intersect
 * for a page the newest rows fill at once (bench/README.md, "Explore").
 */
function indicatorRiskSql(x: ExploreSql, risks: readonly string[]): RawBuilder<unknown> {
  const levels = risks.filter((r) => r !== 'retired');
  const parts: RawBuilder<unknown>[] = [];
  if (levels.length > 0) parts.push(sql`(i.risk in (${sql.join(levels)}) and (i.retired is null or i.retired <> 1))`);
  // Either sign of retirement: an `or` of two columns is no one index's range, so each its own set.
  if (risks.includes('retired')) {
    parts.push(sql`i.iid in (select iid from indicators where risk = 'retired' and ${x.guard})`);
    parts.push(sql`i.iid in (select iid from indicators where retired = 1 and ${x.guard})`);
  }
  return parts.length === 0 ? NEVER : sql`(${sql.join(parts, sql` or `)})`;
}

const COUNT_HOLDS: Record<CountOp, (count: number, value: number) => boolean> = {
  '=': (count, value) => count === value,
  '>': (count, value) => count > value,
  '>=': (count, value) => count >= value,
  '<': (count, value) => count < value,
  '<=': (count, value) => count <= value,
};

/**
 * An observation counter compared. Only the indicators with a count above 0 are in the counter's
 * index (observation-migration.ts), and few are: a comparison 0 fails (`sightings>=2`) is the set
 * that index gives; one 0 passes (`sightings<3`, `submissions=0`) is every indicator but the
 * indexed ones that fail it.
 */
function countSql(x: ExploreSql, column: 'sightings' | 'submissions', op: CountOp, value: number): RawBuilder<unknown> {
  const ref = sql.ref(column);
  if (!COUNT_HOLDS[op](0, value)) return sql`i.iid in (select iid from indicators where ${ref} > 0 and ${ref} ${sql.raw(op)} ${value} and ${x.guard})`;
  return sql`i.iid not in (select iid from indicators where ${ref} > 0 and not (${ref} ${sql.raw(op)} ${value}) and ${x.guard})`;
}

/** An indicator filter as a condition on the row `i`; each leaf an `iid in (...)` over its own index. */
export function indicatorCondition(x: ExploreSql, filter: IndicatorFilter): RawBuilder<unknown> {
  const g = x.guard;
  switch (filter.kind) {
    case 'and':
    case 'or':
      if (filter.filters.length === 0) return filter.kind === 'and' ? ALWAYS : NEVER;
      return sql`(${sql.join(filter.filters.map((f) => indicatorCondition(x, f)), filter.kind === 'and' ? sql` and ` : sql` or `)})`;
    case 'not':
      return sql`not (${indicatorCondition(x, filter.filter)})`;
    case 'value': {
      if (filter.values.length === 0) return NEVER;
      const typed = filter.types === undefined ? sql`` : filter.types.length === 0 ? sql` and 1 = 0` : sql` and type in (${sql.join(filter.types)})`;
      return sql`i.iid in (select iid from indicators where value in (${sql.join(filter.values)})${typed} and ${g})`;
    }
    case 'value-like':
      if (x.dialect === 'postgres') return sql`i.iid in (select iid from indicator_wildcard_values where value like ${filter.like})`;
      return sql`(i.iid in (select rowid from indicator_values_fts where value like ${trigramPattern(filter.like)} and ${g}) and lower(i.value) like ${filter.like} escape '\\')`;
    case 'inside':
      return sql`i.iid in (select iid from indicator_networks where lo >= ${filter.range.lo} and lo <= ${filter.range.hi} and hi <= ${filter.range.hi} and ${g})`;
    case 'blocks':
      return sql`i.iid in (select iid from indicator_networks where lo <> hi and ${g})`;
    case 'type':
      return filter.types.length === 0 ? NEVER : sql`i.type in (${sql.join(filter.types)})`;
    case 'risk':
      return indicatorRiskSql(x, filter.risks);
    case 'stamp':
      // A condition on the row (indicatorRiskSql says why); stamp_seen has no index (docs/explore.md,
      // "The seen index"), so it is tested on the rows other terms select, or on the newest first,
      // with the stamps of the feeds listing each.
      if (filter.column === 'stamp_seen') return sql`${seenStampOf(x.dialect, 'i')} ${sql.raw(filter.op)} ${filter.at}`;
      return sql`${sql.ref(`i.${filter.column}`)} ${sql.raw(filter.op)} ${filter.at}`;
    case 'sighted':
      // Through the index of the sighted indicators alone (observation-migration.ts): few are.
      return sql`i.iid in (select iid from indicators where stamp_sighted is not null and stamp_sighted ${sql.raw(filter.op)} ${filter.at} and ${g})`;
    case 'count':
      return countSql(x, filter.column, filter.op, filter.value);
    case 'threat':
      return sql`i.iid in (select iid from threat_links where tid in (select tid from threat_names where ${matchSql(x, sql.ref('name_key'), filter.name)}) and ${g})`;
    case 'feed':
      return sql`i.iid in (select iid from feed_links where fid in (select fid from feeds where ${matchSql(x, sql.ref('name_key'), filter.name)}) and ${g})`;
    case 'attribute': {
      const value = 'exact' in filter.value ? { exact: filter.value.exact.slice(0, ATTRIBUTE_VALUE_CHARS) } : filter.value;
      const named = filter.name === null ? sql`` : sql`name = ${filter.name} and `;
      return sql`i.iid in (select iid from indicator_attribute_values where ${named}${matchSql(x, sql.ref('value'), value)} and ${g})`;
    }
  }
}

/** A threat filter as a condition on the row `t`. */
export function threatCondition(x: ExploreSql, filter: ThreatFilter): RawBuilder<unknown> {
  const g = x.guard;
  switch (filter.kind) {
    case 'and':
    case 'or':
      if (filter.filters.length === 0) return filter.kind === 'and' ? ALWAYS : NEVER;
      return sql`(${sql.join(filter.filters.map((f) => threatCondition(x, f)), filter.kind === 'and' ? sql` and ` : sql` or `)})`;
    case 'not':
      return sql`not (${threatCondition(x, filter.filter)})`;
    case 'threat':
      return sql`t.tid in (select tid from threat_names where ${matchSql(x, sql.ref('name_key'), filter.name)} and ${g})`;
    case 'category':
      return filter.categories.length === 0 ? NEVER : sql`lower(t.category) in (${sql.join(filter.categories)})`;
    case 'risk': {
      const levels = filter.risks.filter((r) => r !== 'retired');
      const parts = levels.length === 0 ? [] : [sql`(t.risk in (${sql.join(levels)}) and coalesce(t.retired, 0) <> 1)`];
      if (filter.risks.includes('retired')) parts.push(sql`(t.risk = 'retired' or t.retired = 1)`);
      return parts.length === 0 ? NEVER : sql`(${sql.join(parts, sql` or `)})`;
    }
    case 'stamp':
      return sql`${sql.ref(`t.${filter.column}`)} ${sql.raw(filter.op)} ${filter.at}`;
    case 'count':
      return sql`t.sightings ${sql.raw(filter.op)} ${filter.value}`;
    case 'retired':
      return filter.retired ? sql`t.retired = 1` : sql`coalesce(t.retired, 0) <> 1`;
    case 'ttp': {
      const sub = filter.subtechniques ? sql` or technique like ${`${filter.technique}.%`}` : sql``;
      return sql`t.tid in (select tid from threat_techniques where active = 1 and (technique = ${filter.technique}${sub}) and ${g})`;
    }
    case 'feed':
      return sql`t.tid in (select tl.tid from feed_links fl join threat_links tl on tl.iid = fl.iid
        where fl.fid in (select fid from feeds where ${matchSql(x, sql.ref('name_key'), filter.name)}) and ${g})`;
  }
}

/** The names of up to EXPLORE_NAMES_PER_ROW threats or feeds of each indicator of a page, lowest id first. */
async function namesOf(run: RunQuery, kind: 'threat' | 'feed', iids: number[]): Promise<Map<number, string[]>> {
  const names = new Map<number, string[]>();
  if (iids.length === 0) return names;
  const [links, owners, owner] = kind === 'threat' ? [sql.table('threat_links'), sql.table('threats'), sql.ref('tid')] : [sql.table('feed_links'), sql.table('feeds'), sql.ref('fid')];
  const rows = await run(sql<{ iid: number; name: string }>`
    select s.iid, s.name from (
      select l.iid, o.name, row_number() over (partition by l.iid order by l.${owner}) as n
      from ${links} l join ${owners} o on o.${owner} = l.${owner} where l.iid in (${sql.join(iids)})) as s
    where s.n <= ${EXPLORE_NAMES_PER_ROW} order by s.iid, s.n`);
  for (const row of rows) {
    const iid = Number(row.iid);
    names.set(iid, [...(names.get(iid) ?? []), row.name]);
  }
  return names;
}

interface IndicatorPageRow {
  iid: number;
  value: string;
  type: string;
  risk: string;
  retired: number | null;
  stamp_added: string | null;
  stamp_updated: string | null;
  stamp_seen: string | null;
  stamp_retired: string | null;
}

/** The page of indicators a filter selects, newest first, with one row more than the page when more follow. */
export function indicatorPageSql(x: ExploreSql, filter: IndicatorFilter, offset: number, limit: number): RawBuilder<IndicatorPageRow> {
  return sql<IndicatorPageRow>`
    select i.iid, i.value, i.type, i.risk, i.retired, i.stamp_added, i.stamp_updated, ${seenStampOf(x.dialect, 'i')} as stamp_seen, i.stamp_retired
    from indicators i where ${indicatorCondition(x, filter)} and ${x.guard}
    order by i.iid desc limit ${limit + 1} offset ${offset}`;
}

async function exploreIndicators(run: RunQuery, x: ExploreSql, filter: IndicatorFilter, offset: number, limit: number): Promise<ExploreResult> {
  const rows = await run(indicatorPageSql(x, filter, offset, limit));
  const page = rows.slice(0, limit);
  const iids = page.map((r) => Number(r.iid));
  const [threats, feeds] = [await namesOf(run, 'threat', iids), await namesOf(run, 'feed', iids)];
  const out: ExploreIndicatorRow[] = page.map((r) => ({
    iid: Number(r.iid),
    indicator: r.value,
    type: r.type,
    // An import's retired flag retires an indicator whatever its last risk, as its lookup shows it.
    risk: Number(r.retired) === 1 ? 'retired' : r.risk,
    stamp_added: r.stamp_added,
    stamp_updated: r.stamp_updated,
    stamp_seen: r.stamp_seen,
    stamp_retired: r.stamp_retired,
    threats: threats.get(Number(r.iid)) ?? [],
    feeds: feeds.get(Number(r.iid)) ?? [],
  }));
  return { mode: 'indicators', rows: out, more: rows.length > limit };
}

/** The `total` of a stored risk-count object (a threat's summary.risk, a feed's indicators), 0 when none. */
function totalOf(json: string | null): number {
  try {
    const parsed = JSON.parse(json ?? '{}') as { total?: unknown; risk?: { total?: unknown } };
    return Number(parsed.total ?? parsed.risk?.total ?? 0) || 0;
  } catch {
    return 0;
  }
}

function stringList(json: string): string[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}

interface ThreatPageRow {
  tid: number;
  name: string;
  category: string;
  risk: string;
  retired: number | null;
  othernames: string;
  stamp_added: string | null;
  stamp_seen: string | null;
  summary: string;
}

/** The page of threats a filter selects, newest first, with one row more than the page when more follow. */
export function threatPageSql(x: ExploreSql, filter: ThreatFilter, offset: number, limit: number): RawBuilder<ThreatPageRow> {
  return sql<ThreatPageRow>`
    select t.tid, t.name, t.category, t.risk, t.retired, t.othernames, t.stamp_added, t.stamp_seen, t.summary
    from threats t where ${threatCondition(x, filter)} and ${x.guard}
    order by t.tid desc limit ${limit + 1} offset ${offset}`;
}

async function exploreThreats(run: RunQuery, x: ExploreSql, filter: ThreatFilter, offset: number, limit: number): Promise<ExploreResult> {
  const rows = await run(threatPageSql(x, filter, offset, limit));
  // The linked indicators are counted by the aggregates every write keeps (the summary's risk counts), not here.
  const out: ExploreThreatRow[] = rows.slice(0, limit).map((r) => ({
    tid: Number(r.tid),
    threat: r.name,
    category: r.category,
    risk: r.risk,
    othernames: stringList(r.othernames),
    stamp_added: r.stamp_added,
    stamp_seen: r.stamp_seen,
    retired: r.retired === null ? null : Number(r.retired) === 1,
    indicators: totalOf(r.summary),
  }));
  return { mode: 'threats', rows: out, more: rows.length > limit };
}

async function exploreFeeds(run: RunQuery, x: ExploreSql, filter: FeedFilter, offset: number, limit: number): Promise<ExploreResult> {
  const byName = filter.name === null ? ALWAYS : matchSql(x, sql.ref('name_key'), filter.name);
  const byCategory = filter.categories === null ? ALWAYS : filter.categories.length === 0 ? NEVER : sql`lower(category) in (${sql.join(filter.categories)})`;
  const rows = await run(sql<{ fid: number; name: string; organization: string; category: string; pricing: string; stamp_added: string | null; stamp_pulled: string | null; indicators: string }>`
    select fid, name, organization, category, pricing, stamp_added, stamp_pulled, indicators from feeds
    where ${byName} and ${byCategory} order by fid desc limit ${limit + 1} offset ${offset}`);
  return {
    mode: 'feeds',
    rows: rows.slice(0, limit).map((r) => ({
      fid: Number(r.fid),
      feed: r.name,
      organization: r.organization,
      category: r.category,
      pricing: r.pricing,
      stamp_added: r.stamp_added,
      stamp_pulled: r.stamp_pulled,
      indicators: totalOf(r.indicators),
    })),
    more: rows.length > limit,
  };
}

/** Answers an explore query with `run`, compiled for `x`; the caller bounds its time (explore-runner.ts). */
export function exploreWith(run: RunQuery, x: ExploreSql, query: ExploreQuery): Promise<ExploreResult> {
  switch (query.mode) {
    case 'indicators':
      return exploreIndicators(run, x, query.filter, query.offset, query.limit);
    case 'threats':
      return exploreThreats(run, x, query.filter, query.offset, query.limit);
    case 'feeds':
      return exploreFeeds(run, x, query.filter, query.offset, query.limit);
  }
}
