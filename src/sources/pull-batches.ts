// The write batches of one pull (docs/sources.md, "Values"): the rows a source read, normalized, typed, allowlisted and staged a batch at a time.
import { indicatorTypeOf, type IndicatorType } from '../indicator-types.js';
import type { Logger } from '../logger.js';
import { RISK_RANKS, type PullPlan } from '../store/contract/commands.js';
import { REJECTIONS_KEPT } from '../store/contract/runs.js';
import { ATTRIBUTE_LIMITS, type WriteBatch } from '../store/contract/write-batch.js';
import type {
  RefThreatStagingRow, ThreatDefStagingRow, ValueAttributeStagingRow, ValueRefStagingRow, ValueStagingRow, ValueThreatStagingRow, WithdrawnStagingRow,
} from '../store/contract/staging-rows.js';
import type { Allowlist } from './allowlist.js';
import { withoutControlCharacters } from './control-characters.js';
import type { PullRead } from './open-source.js';
import type { UpstreamFeed } from './parsers/lookup-api-page.js';
import type { FeedEntry } from './parsers/feed-entry.js';
import { normalizeValue } from './normalize-value.js';
import type { SourceDefinition } from './source-definition.js';

/** What the pull's rows gave besides values: the line `feeds pull` prints (docs/interface.md section 10) and the log's counts. */
export interface RowTally {
  rejected: number;
  allowlisted: number;
  /** Rows without a value (an empty csv cell, a JSON object without the value field). */
  skipped: number;
}

/** Rows per staged INSERT: a few columns each, far below SQLite's parameter limit. */
const BATCH_ROWS = 500;
/** Rejected values whose reasons are logged, per pull: enough to see the pattern, not a flood. */
const LOGGED_REJECTIONS = 5;
/** A threat name longer than an import accepts is dropped from its row (the value stays). */
const MAX_THREAT_NAME = 1000;

/**
 * Type names of the feeds' own columns that are not the vocabulary's: ThreatFox writes
 * `ip:port`, `md5_hash`, `sha256_hash`. Anything else unknown is detected from the value.
 */
const TYPE_ALIASES: Readonly<Record<string, IndicatorType>> = {
  'ip:port': 'ip', 'ipv4:port': 'ip', 'ip-src': 'ip', 'ip-dst': 'ip', md5_hash: 'md5', sha1_hash: 'sha1', sha256_hash: 'sha256', 'domain-name': 'domain',
};

function rowType(name: string | undefined): IndicatorType | undefined {
  if (name === undefined) return undefined;
  return indicatorTypeOf(name) ?? TYPE_ALIASES[name.trim().toLowerCase()];
}

function rowRisk(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const rank = (RISK_RANKS as readonly string[]).indexOf(text.trim().toLowerCase());
  return rank < 0 ? fallback : rank;
}

/**
 * What a row's columns said (FeedEntry `attributes`), as the store takes it (ATTRIBUTE_LIMITS): names
 * and values without control characters or blanks at either end, each value once under its name,
 * empty and oversized ones left out; undefined when nothing is left. JSON text, for the staging row.
 */
function keptAttributes(attributes: Readonly<Record<string, readonly string[]>> | undefined): string | undefined {
  if (attributes === undefined) return undefined;
  // A Map, written out by Object.fromEntries: a column named `__proto__` stays a plain key.
  const kept = new Map<string, string[]>();
  for (const [given, values] of Object.entries(attributes)) {
    const name = withoutControlCharacters(given).trim();
    if (name === '' || name.length > ATTRIBUTE_LIMITS.nameLength || !Array.isArray(values)) continue;
    const list = kept.get(name) ?? [];
    if (list.length === 0 && kept.size >= ATTRIBUTE_LIMITS.keys) continue;
    for (const raw of values) {
      if (list.length >= ATTRIBUTE_LIMITS.valuesPerKey) break;
      if (typeof raw !== 'string') continue;
      const value = withoutControlCharacters(raw).trim();
      if (value !== '' && value.length <= ATTRIBUTE_LIMITS.valueLength && !list.includes(value)) list.push(value);
    }
    if (list.length > 0) kept.set(name, list);
  }
  return kept.size === 0 ? undefined : JSON.stringify(Object.fromEntries(kept));
}

/** An `ip:port` value (ThreatFox) is its address: a port is not part of an IP indicator. */
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;

/**
 * The write batches of a pull (its plan is the write command): its values normalized, typed, allowlisted and
 * staged a batch at a time, then the end. Rejected and allowlisted values are counted in `tally`.
 */
export async function* pullBatches(
  plan: PullPlan,
  read: PullRead,
  source: SourceDefinition,
  deps: { allowlist: Allowlist; logger: Logger; onProgress?: ((rows: number) => void) | undefined; signal?: AbortSignal | undefined },
  tally: RowTally,
  fid: number,
): AsyncGenerator<WriteBatch> {
  const sourceRisk = RISK_RANKS.indexOf(source.risk === 'retired' ? 'unknown' : source.risk);
  let ordinal = 0;
  let values: ValueStagingRow[] = [];
  let threats: ValueThreatStagingRow[] = [];
  let refs: ValueRefStagingRow[] = [];
  // Values the source withdrew (FeedBatch `withdrawn`): staged apart, they never list anything.
  let withdrawn: WithdrawnStagingRow[] = [];
  let withdrawnRows = 0;
  // What the rows' columns said, a staged row per entry that said something, in the source's order.
  let attributes: ValueAttributeStagingRow[] = [];
  let attributeRows = 0;
  let rowsRead = 0;
  // Threats that upstream objects indicate, by object: a relation each, and each threat described once.
  let relations: RefThreatStagingRow[] = [];
  let defs: ThreatDefStagingRow[] = [];
  const described = new Set<string>();
  // Each value of the batch once, by type and value: a value listed twice within a batch is staged
  // once, with the higher of its risks, as the store keeps one across batches.
  let staged = new Map<string, ValueStagingRow>();
  const reasons: string[] = [];
  // The run's first rejected values (docs/interface.md section 12.4: `why` tells a value a pull rejected).
  const rejections = plan.run.rejections;
  const skips: string[] = [];
  const flush = (): WriteBatch => {
    const batch: WriteBatch = { kind: 'values', values, threats, refs, withdrawn, attributes, records: rowsRead };
    values = [];
    threats = [];
    refs = [];
    withdrawn = [];
    attributes = [];
    staged = new Map();
    return batch;
  };
  const flushRelations = (): WriteBatch => {
    const batch: WriteBatch = { kind: 'relations', refThreats: relations, threatDefs: defs, records: rowsRead };
    relations = [];
    defs = [];
    return batch;
  };
  /** The entry's value normalized and typed; undefined, counted, when it is rejected or allowlisted. */
  const accepted = (entry: FeedEntry): { type: IndicatorType; value: string } | undefined => {
    const type = source.type ?? rowType(entry.type);
    const raw = type === 'ip' || type === undefined ? entry.value.trim().replace(IPV4_WITH_PORT, '$1') : entry.value;
    const normalized = normalizeValue(raw, type);
    if (!normalized.ok) {
      tally.rejected++;
      if (reasons.length < LOGGED_REJECTIONS) reasons.push(`${entry.position}: ${normalized.reason}`);
      if (rejections.length < REJECTIONS_KEPT) rejections.push({ value: raw.trim(), reason: 'unparseable' });
      return undefined;
    }
    if (deps.allowlist.allows(normalized.value, normalized.type)) {
      tally.allowlisted++;
      if (rejections.length < REJECTIONS_KEPT) rejections.push({ value: normalized.value, reason: 'allowlisted' });
      return undefined;
    }
    return normalized;
  };
  for await (const batch of read.rows ?? []) {
    // A parse that outlives maxSeconds (or a shutdown) ends here: the transaction is rolled back.
    deps.signal?.throwIfAborted();
    tally.skipped += batch.skipped;
    for (const reason of batch.skipReasons ?? []) if (skips.length < LOGGED_REJECTIONS) skips.push(reason);
    rowsRead += batch.entries.length + batch.skipped + (batch.withdrawn?.length ?? 0);
    for (const { ref, threat } of batch.relations ?? []) {
      const name = withoutControlCharacters(threat.name).trim();
      if (name === '' || name.length > MAX_THREAT_NAME) continue;
      relations.push([ref, name]);
      const key = name.toLowerCase();
      if (!described.has(key)) {
        described.add(key);
        const aliases = threat.aliases.map((a) => withoutControlCharacters(a).trim()).filter((a) => a !== '' && a.length <= MAX_THREAT_NAME);
        defs.push([key, name, threat.category, JSON.stringify(aliases)]);
      }
      if (relations.length >= BATCH_ROWS) yield flushRelations();
    }
    for (const entry of batch.withdrawn ?? []) {
      const normalized = accepted(entry);
      if (normalized === undefined) continue;
      withdrawn.push([normalized.type, normalized.value]);
      withdrawnRows++;
      if (withdrawn.length >= BATCH_ROWS) yield flush();
    }
    for (const entry of batch.entries) {
      const normalized = accepted(entry);
      if (normalized === undefined) continue;
      const risk = rowRisk(entry.risk, sourceRisk);
      const key = `${normalized.type} ${normalized.value}`;
      const row = staged.get(key);
      if (row === undefined) {
        const value: ValueStagingRow = [normalized.type, normalized.value, risk, ++ordinal];
        staged.set(key, value);
        values.push(value);
      } else if (risk > row[2]) {
        row[2] = risk;
      }
      const threat = entry.threat === undefined ? undefined : withoutControlCharacters(entry.threat).trim();
      if (threat && threat.length <= MAX_THREAT_NAME) threats.push([normalized.type, normalized.value, threat]);
      if (entry.ref !== undefined) refs.push([entry.ref, normalized.type, normalized.value]);
      const said = keptAttributes(entry.attributes);
      if (said !== undefined) attributes.push([normalized.type, normalized.value, ++attributeRows, said]);
      // A value listed again and again adds no value row, but may add attribute rows: those are bounded too.
      if (values.length >= BATCH_ROWS || attributes.length >= BATCH_ROWS) yield flush();
    }
    if (!read.prefetched) deps.onProgress?.(rowsRead);
  }
  if (values.length > 0 || withdrawn.length > 0 || attributes.length > 0) yield flush();
  if (relations.length > 0) yield flushRelations();
  // A withdrawn row is a value the source still reads out, as retired: upstream retirements are no outage.
  read.check?.({ accepted: ordinal + withdrawnRows, rejected: tally.rejected, skipped: tally.skipped });
  // Known once the source is read: where the next pull resumes, and the upstream feed's description.
  if (read.cursor !== undefined) plan.cursor = read.cursor();
  if (read.describe !== undefined) plan.describe = describedFeed(await read.describe());
  plan.run.rejected = { unparseable: tally.rejected, allowlisted: tally.allowlisted };
  if (reasons.length > 0) deps.logger.info('pull rejected values', { fid, rejected: tally.rejected, first: reasons });
  if (skips.length > 0) deps.logger.info('pull skipped objects', { fid, skipped: tally.skipped, first: skips });
  yield { kind: 'end', records: rowsRead, read: { threats: 0, feeds: 0, indicators: ordinal, links: 0 }, related: [], skippedTtps: 0 };
}

function describedFeed(upstream: UpstreamFeed | undefined): PullPlan['describe'] {
  if (upstream === undefined) return undefined;
  return { description: upstream.description ?? '', website: upstream.website ?? '', category: upstream.category ?? '', pricing: upstream.pricing ?? '' };
}

