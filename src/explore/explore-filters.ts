// What an explore query means (docs/explore.md, "Fields"): each term of the tree read by
// query-language.ts checked against the fields of its mode and turned into a filter the store
// answers through an index (store/contract/explore.ts). Every refusal says where and what.
import { formatStamp } from '../clock.js';
import { BadRequestError } from '../errors.js';
import { indicatorTypeOf, type IndicatorType } from '../indicator-types.js';
import { readIndicatorValue, storedTypesOf } from '../sources/indicator-value.js';
import { containingBlocks, rangeOf } from '../sources/ip-range.js';
import { formatIpBlock, parseIpBlock } from '../sources/normalize-value.js';
import { refang } from '../sources/refang.js';
import type { IndicatorFilter, StampOp, TextMatch, ThreatFilter } from '../store/contract/explore.js';
import { parseQuery, QuerySyntaxError, type QueryNode, type QueryTerm } from './query-language.js';

export { containingBlocks, rangeOf };

export type ExploreMode = 'indicators' | 'threats';

/** A query that cannot be answered as written: a 400 whose message says where and what (`q: at 5: ...`). */
export class ExploreQueryError extends BadRequestError {}

/** Risks in their order for `>` and `<`; `retired` is only equal or not. */
const ORDERED_RISKS = ['none', 'unknown', 'low', 'medium', 'high', 'critical'] as const;
const ALL_RISKS: readonly string[] = [...ORDERED_RISKS, 'retired'];

export const INDICATOR_FIELDS = [
  'ioc', 'indicator', 'value', 'type', 'risk', 'threat', 'feed', 'added', 'seen', 'updated', 'retired', 'attribute', 'attribute.NAME',
  'sighted', 'sightings', 'submissions',
] as const;
export const THREAT_FIELDS = ['threat', 'category', 'risk', 'added', 'seen', 'retired', 'ttp', 'feed', 'sighted', 'sightings'] as const;

/** The fewest characters in a row, besides `*`, a wildcard value must hold: the trigram indexes need three. */
export const WILDCARD_LITERAL_RUN = 3;

function termError(term: QueryTerm, message: string): never {
  throw new ExploreQueryError(`q: at ${term.at}: ${message}`);
}

const fieldName = (term: QueryTerm) => term.field ?? 'value';

function equalityOnly(term: QueryTerm): void {
  if (term.op !== '=' && term.op !== '!=') termError(term, `"${fieldName(term)}" takes = and != only`);
}

/** `filter`, or its negation for `!=`. */
function negatedIf<F>(term: QueryTerm, filter: F, not: (filter: F) => F): F {
  return term.op === '!=' ? not(filter) : filter;
}

/**
 * A value compared as text: with `*` a pattern (LIKE: `*` any run of characters, the user's `%`, `_`
 * and `\` literal), else the value itself; both lowercased, as comparisons ignore case.
 */
export function textMatchOf(term: QueryTerm, value = term.value): TextMatch {
  const lowered = value.trim().toLowerCase();
  if (lowered === '') termError(term, `an empty value for "${fieldName(term)}"`);
  if (!lowered.includes('*')) return { exact: lowered };
  const longest = Math.max(...lowered.split('*').map((part) => part.length));
  if (longest < WILDCARD_LITERAL_RUN) {
    termError(term, `narrow the query: a wildcard value needs at least ${WILDCARD_LITERAL_RUN} characters in a row besides * ("${value}")`);
  }
  return { like: lowered.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*+/g, '%') };
}

/** `ioc=`: a pattern, a block (what lies inside it), an address (itself and the blocks holding it), or a value. */
function iocFilter(term: QueryTerm): IndicatorFilter {
  equalityOnly(term);
  const pasted = refang(term.value);
  if (pasted.includes('*')) {
    const match = textMatchOf(term, pasted);
    return 'like' in match ? { kind: 'value-like', like: match.like } : { kind: 'value', values: [match.exact] };
  }
  const block = parseIpBlock(pasted);
  if (block !== undefined) {
    const width = block.family === 4 ? 32 : 128;
    if (block.prefix < width) return { kind: 'inside', range: rangeOf(block) };
    const types = storedTypesOf(block.family === 4 ? 'ip' : 'ipv6');
    return { kind: 'value', values: [formatIpBlock(block), ...containingBlocks(block)], types };
  }
  const reading = readIndicatorValue(pasted);
  if (!reading.ok) return { kind: 'value', values: [pasted.toLowerCase()] };
  const values = [reading.lookup.value];
  if (pasted !== reading.lookup.value) values.push(pasted);
  return { kind: 'value', values, types: reading.lookup.types };
}

/** Stored types a `type=` value stands for: an alias means its canonical type's values too. */
const TYPE_ALIASES: Readonly<Partial<Record<IndicatorType, IndicatorType>>> = { ipv4: 'ip', hostname: 'domain', uri: 'url' };

function typeFilter(term: QueryTerm): IndicatorFilter {
  equalityOnly(term);
  const type = indicatorTypeOf(term.value);
  if (type === undefined) termError(term, `type "${term.value}" is not one of ${['ip', 'ipv6', 'cidr', 'domain', 'url', 'email', 'md5', 'sha1', 'sha256', 'sha512', 'asn'].join(', ')}`);
  if (type === 'cidr') return { kind: 'blocks' };
  return { kind: 'type', types: storedTypesOf(TYPE_ALIASES[type] ?? type) };
}

/** The risks a comparison selects, in the order none < unknown < low < medium < high < critical. */
function risksOf(term: QueryTerm): string[] {
  const risk = term.value.trim().toLowerCase();
  if (!ALL_RISKS.includes(risk)) termError(term, `risk "${term.value}" is not one of ${ALL_RISKS.join(', ')}`);
  if (term.op === '=' || term.op === '!=') return [risk];
  if (risk === 'retired') termError(term, '"risk=retired" takes = and != only');
  const rank = ORDERED_RISKS.indexOf(risk as (typeof ORDERED_RISKS)[number]);
  const keep = { '>': (r: number) => r > rank, '>=': (r: number) => r >= rank, '<': (r: number) => r < rank, '<=': (r: number) => r <= rank }[term.op];
  return ORDERED_RISKS.filter((_, r) => keep(r));
}

const AGE = /^(\d{1,6})\s*([dhm])$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;
const AGE_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

/** A stamp the store compares with, from `YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS` or an age before `now`. */
function stampOf(term: QueryTerm, now: number): { at: string; day: boolean; age: boolean } {
  const text = term.value.trim();
  const age = AGE.exec(text);
  if (age !== null) return { at: formatStamp(now - Number(age[1]) * AGE_MS[age[2]!.toLowerCase() as keyof typeof AGE_MS]), day: false, age: true };
  const parts = DATE_TIME.exec(text) ?? DATE.exec(text);
  if (parts !== null) {
    const [year, month, day, hour = '00', minute = '00', second = '00'] = parts.slice(1);
    const ms = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
    const stamp = `${year}-${month}-${day} ${hour}:${minute}:${second}`;
    // Date.UTC rolls 2026-02-30 over to March: a date that comes back changed was no date.
    if (!Number.isNaN(ms) && formatStamp(ms) === stamp) return { at: stamp, day: parts.length === 4, age: false };
  }
  return termError(term, `"${fieldName(term)}" takes a date (YYYY-MM-DD), a time ("YYYY-MM-DD HH:MM:SS") or an age (7d, 12h, 30m), not "${term.value}"`);
}

type StampColumn = Extract<IndicatorFilter, { kind: 'stamp' }>['column'] | Extract<ThreatFilter, { kind: 'stamp' }>['column'];

/** The filter of one stamp comparison: a column of the row, or (`sighted` of indicators) a filter of its own. */
type StampCompare<F> = (op: StampOp, at: string) => F;

const onColumn = <F extends IndicatorFilter | ThreatFilter>(column: StampColumn): StampCompare<F> => (op, at) => ({ kind: 'stamp', column, op, at }) as F;

/**
 * A stamp comparison. An age is the moment that long before now, compared the same way: `seen>7d`
 * is seen after seven days ago. A date compared with `=` is the whole day.
 */
function stampFilter<F extends IndicatorFilter | ThreatFilter>(term: QueryTerm, compare: StampCompare<F>, now: number, not: (f: F) => F, and: (fs: F[]) => F): F {
  const { at, day, age } = stampOf(term, now);
  if (term.op !== '=' && term.op !== '!=') return compare(term.op, at);
  if (age) termError(term, `an age compares with > or <: "${fieldName(term)}>${term.value}" is the last ${term.value}`);
  const equal = day ? and([compare('>=', at), compare('<', formatStamp(Date.parse(`${at.replace(' ', 'T')}Z`) + 86_400_000))]) : compare('=', at);
  return negatedIf(term, equal, not);
}

/** The most a counter is compared with: a sighting counts at most a billion (docs/observations.md). */
const MAX_COUNT = 1_000_000_000;

/** A counter comparison (`sightings>=3`); `!=` is the negation of `=`. */
function countOf(term: QueryTerm): number {
  const text = term.value.trim();
  if (!/^\d{1,10}$/.test(text) || Number(text) > MAX_COUNT) {
    termError(term, `"${fieldName(term)}" takes a whole number from 0 to ${MAX_COUNT.toLocaleString('en-US')}, not "${term.value}"`);
  }
  return Number(text);
}

function countFilter<F extends IndicatorFilter | ThreatFilter>(term: QueryTerm, column: 'sightings' | 'submissions', not: (f: F) => F): F {
  const value = countOf(term);
  const op = term.op === '!=' ? '=' : term.op;
  return negatedIf(term, { kind: 'count', column, op, value } as F, not);
}

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);

function booleanOf(term: QueryTerm): boolean | undefined {
  const word = term.value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

function attributeName(term: QueryTerm): string {
  const name = term.field!.slice('attribute.'.length);
  if (name === '') termError(term, 'an attribute field names its attribute: attribute.NAME (attribute.port=443)');
  return name;
}

const notIndicator = (filter: IndicatorFilter): IndicatorFilter => ({ kind: 'not', filter });
const andIndicator = (filters: IndicatorFilter[]): IndicatorFilter => ({ kind: 'and', filters });

function indicatorTerm(term: QueryTerm, now: number): IndicatorFilter {
  const field = term.field?.toLowerCase() ?? null;
  if (field === null) {
    const value = refang(term.value);
    return { kind: 'value-like', like: (textMatchOf(term, value.includes('*') ? value : `*${value}*`) as { like: string }).like };
  }
  if (field === 'attribute') {
    equalityOnly(term);
    return negatedIf(term, { kind: 'attribute', name: null, value: textMatchOf(term) }, notIndicator);
  }
  if (field.startsWith('attribute.')) {
    equalityOnly(term);
    return negatedIf(term, { kind: 'attribute', name: attributeName(term), value: textMatchOf(term) }, notIndicator);
  }
  switch (field) {
    case 'ioc':
    case 'indicator':
    case 'value':
      return negatedIf(term, iocFilter(term), notIndicator);
    case 'type':
      return negatedIf(term, typeFilter(term), notIndicator);
    case 'risk':
      return negatedIf(term, { kind: 'risk', risks: risksOf(term) }, notIndicator);
    case 'threat':
      equalityOnly(term);
      return negatedIf(term, { kind: 'threat', name: textMatchOf(term) }, notIndicator);
    case 'feed':
      equalityOnly(term);
      return negatedIf(term, { kind: 'feed', name: textMatchOf(term) }, notIndicator);
    case 'added':
      return stampFilter(term, onColumn('stamp_added'), now, notIndicator, andIndicator);
    case 'seen':
      return stampFilter(term, onColumn('stamp_seen'), now, notIndicator, andIndicator);
    case 'updated':
      return stampFilter(term, onColumn('stamp_updated'), now, notIndicator, andIndicator);
    case 'sighted':
      return stampFilter<IndicatorFilter>(term, (op, at) => ({ kind: 'sighted', op, at }), now, notIndicator, andIndicator);
    case 'sightings':
      return countFilter(term, 'sightings', notIndicator);
    case 'submissions':
      return countFilter(term, 'submissions', notIndicator);
    case 'retired': {
      const retired = booleanOf(term);
      if (retired === undefined) return stampFilter(term, onColumn('stamp_retired'), now, notIndicator, andIndicator);
      equalityOnly(term);
      const filter: IndicatorFilter = { kind: 'risk', risks: ['retired'] };
      return retired === (term.op === '=') ? filter : notIndicator(filter);
    }
    default:
      return termError(term, `unknown field "${term.field}" for indicators (fields: ${INDICATOR_FIELDS.join(', ')})`);
  }
}

const TECHNIQUE = /^T\d{4}(?:\.\d{3})?$/i;
const notThreat = (filter: ThreatFilter): ThreatFilter => ({ kind: 'not', filter });
const andThreat = (filters: ThreatFilter[]): ThreatFilter => ({ kind: 'and', filters });

function threatTerm(term: QueryTerm, now: number): ThreatFilter {
  const field = term.field?.toLowerCase() ?? null;
  if (field === null) {
    return { kind: 'threat', name: textMatchOf(term, term.value.includes('*') ? term.value : `*${term.value}*`) };
  }
  switch (field) {
    case 'threat':
      equalityOnly(term);
      return negatedIf(term, { kind: 'threat', name: textMatchOf(term) }, notThreat);
    case 'category':
      equalityOnly(term);
      if (term.value.includes('*')) termError(term, '"category" takes a category name, not a wildcard');
      return negatedIf(term, { kind: 'category', categories: [term.value.trim().toLowerCase()] }, notThreat);
    case 'risk':
      return negatedIf(term, { kind: 'risk', risks: risksOf(term) }, notThreat);
    case 'added':
      return stampFilter(term, onColumn('stamp_added'), now, notThreat, andThreat);
    case 'seen':
      return stampFilter(term, onColumn('stamp_seen'), now, notThreat, andThreat);
    case 'sighted':
      return stampFilter(term, onColumn('stamp_sighted'), now, notThreat, andThreat);
    case 'sightings':
      return countFilter(term, 'sightings', notThreat);
    case 'retired': {
      equalityOnly(term);
      const retired = booleanOf(term);
      if (retired === undefined) termError(term, `"retired" takes true or false for threats, not "${term.value}"`);
      return { kind: 'retired', retired: retired === (term.op === '=') };
    }
    case 'ttp': {
      equalityOnly(term);
      const technique = term.value.trim().toUpperCase();
      if (!TECHNIQUE.test(technique)) termError(term, `"ttp" takes an ATT&CK technique id (T1059, T1566.001), not "${term.value}"`);
      return negatedIf(term, { kind: 'ttp', technique, subtechniques: !technique.includes('.') }, notThreat);
    }
    case 'feed':
      equalityOnly(term);
      return negatedIf(term, { kind: 'feed', name: textMatchOf(term) }, notThreat);
    default:
      return termError(term, `unknown field "${term.field}" for threats (fields: ${THREAT_FIELDS.join(', ')})`);
  }
}

function build<F>(node: QueryNode, leaf: (term: QueryTerm) => F, not: (f: F) => F, join: (kind: 'and' | 'or', fs: F[]) => F): F {
  switch (node.kind) {
    case 'term':
      return leaf(node);
    case 'not':
      return not(build(node.node, leaf, not, join));
    default:
      return join(node.kind, node.nodes.map((child) => build(child, leaf, not, join)));
  }
}

/** `q` read as the filter of its mode, or ExploreQueryError saying where and what is wrong. */
export function exploreFilter(mode: 'indicators', q: string, now: number): IndicatorFilter;
export function exploreFilter(mode: 'threats', q: string, now: number): ThreatFilter;
export function exploreFilter(mode: ExploreMode, q: string, now: number): IndicatorFilter | ThreatFilter;
export function exploreFilter(mode: ExploreMode, q: string, now: number): IndicatorFilter | ThreatFilter {
  let tree: QueryNode;
  try {
    tree = parseQuery(q);
  } catch (error) {
    if (error instanceof QuerySyntaxError) throw new ExploreQueryError(`q: ${error.message}`);
    throw error;
  }
  if (mode === 'indicators') {
    return build<IndicatorFilter>(tree, (term) => indicatorTerm(term, now), notIndicator, (kind, filters) => ({ kind, filters }));
  }
  return build<ThreatFilter>(tree, (term) => threatTerm(term, now), notThreat, (kind, filters) => ({ kind, filters }));
}
