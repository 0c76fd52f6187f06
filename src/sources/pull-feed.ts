// One pull of a feed's source (DESIGN section 7): fetch, read, normalize, then the one import pipeline
// (Store.applyImport) writes it in a transaction; a failure changes nothing but the feed's error and retry time.
import { formatStamp, type Clock } from '../clock.js';
import type { Logger } from '../http/logger.js';
import { indicatorTypeOf, type IndicatorType } from '../indicator-types.js';
import { PullRefused, RISK_RANKS, type PullCounts, type PullPlan } from '../store/pull-writer.js';
import type { Store } from '../store/store.js';
import type { WriteBatch } from '../store/write-batch.js';
import type { Allowlist } from './allowlist.js';
import { fetchSource, FetchError } from './fetch-source.js';
import { FeedFormatError, type FeedBatch, type FeedEntry } from './formats/feed-entry.js';
import { readFeed } from './formats/read-feed.js';
import { readLookupApi, type UpstreamFeed } from './formats/read-lookup-api.js';
import { readMispFeed } from './formats/read-misp.js';
import { readStixBundle } from './formats/read-stix.js';
import { readTaxiiCollection } from './formats/read-taxii.js';
import type { ResolveHost } from './guarded-agent.js';
import { spoolBatches } from './spool-batches.js';
import { gatedFormat, gateFailure, htmlPage, type GateCounts, type GateContext } from './sanity-gate.js';
import { spoolBody } from './spool-body.js';
import type { FeedSourceState } from '../store/source-queries.js';
import { withoutControlCharacters } from './control-characters.js';
import { normalizeValue } from './normalize-value.js';
import { nextRun, parseSchedule, retryDelay, scheduleFromFeed, type Schedule } from './schedule.js';
import { envReferences, parseSource, redactedUrl, resolveEnv, SourceDefinitionError, type SourceDefinition } from './source-definition.js';

export interface PullDeps {
  store: Store;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  allowlist: Allowlist;
  logger: Logger;
  /** Stops the pull from outside (shutdown); it then fails and changes nothing. */
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
  /** Hears how many rows were read so far (a terminal's progress). */
  onProgress?: (rows: number) => void;
  /** Config `sources.allowPrivateNetworks`: every source may reach loopback and private networks (network-policy.ts). */
  allowPrivateNetworks?: boolean;
  /** Resolves host names for the pull's connections (tests control DNS with it); default: the system resolver. */
  resolveHost?: ResolveHost;
  /** Keeps a pull the sanity gate would refuse (`feeds pull --force`), this once. */
  force?: boolean;
}

/** What the pull's rows gave besides values: the DESIGN 7 output line and log counts. */
export interface RowTally {
  rejected: number;
  allowlisted: number;
  /** Rows without a value (an empty csv cell, a JSON object without the value field). */
  skipped: number;
}

export type PullOutcome = { fid: number; feed: string; seconds: number } & (
  /** `notModified`: the source answered 304, nothing changed since the previous pull. */
  | ({ ok: true; notModified: boolean } & PullCounts & RowTally)
  | { ok: false; reason: string }
);

/** Rows per staged INSERT: four columns each, far below SQLite's parameter limit. */
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

/** An `ip:port` value (ThreatFox) is its address: a port is not part of an IP indicator. */
const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;

/**
 * The write batches of a pull: its plan, then its values normalized, typed, allowlisted and
 * staged a batch at a time, then the end. Rejected and allowlisted values are counted in `tally`.
 */
async function* pullBatches(
  plan: PullPlan,
  read: SourceRead,
  source: SourceDefinition,
  deps: Pick<PullDeps, 'allowlist' | 'logger' | 'onProgress' | 'signal'>,
  tally: RowTally,
  fid: number,
): AsyncGenerator<WriteBatch> {
  yield { kind: 'pull', plan, records: 0 };
  const sourceRisk = RISK_RANKS.indexOf(source.risk === 'retired' ? 'unknown' : source.risk);
  let ordinal = 0;
  let params: unknown[] = [];
  let threats: unknown[] = [];
  let refs: unknown[] = [];
  let count = 0;
  // Values the source withdrew (FeedBatch `withdrawn`): staged apart, they never list anything.
  let withdrawn: unknown[] = [];
  let withdrawnRows = 0;
  let rowsRead = 0;
  // Threats that upstream objects indicate, by object: a relation each, and each threat described once.
  let relations: unknown[] = [];
  let defs: unknown[] = [];
  const described = new Set<string>();
  // Where each value of the batch has its risk in params: PostgreSQL refuses an INSERT ... ON CONFLICT DO
  // UPDATE that meets the same key twice, so a value listed twice within a batch is staged once.
  let staged = new Map<string, number>();
  const reasons: string[] = [];
  const skips: string[] = [];
  const flush = (): WriteBatch => {
    const batch: WriteBatch = {
      kind: 'values', params, count, threats, threatCount: threats.length / 3, refs, refCount: refs.length / 3, withdrawn, withdrawnCount: withdrawn.length / 2,
      records: rowsRead,
    };
    params = [];
    threats = [];
    refs = [];
    withdrawn = [];
    count = 0;
    staged = new Map();
    return batch;
  };
  const flushRelations = (): WriteBatch => {
    const batch: WriteBatch = { kind: 'relations', rows: relations, count: relations.length / 2, defs, defCount: defs.length / 4, records: rowsRead };
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
      return undefined;
    }
    if (deps.allowlist.allows(normalized.value, normalized.type)) {
      tally.allowlisted++;
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
      relations.push(ref, name);
      const key = name.toLowerCase();
      if (!described.has(key)) {
        described.add(key);
        const aliases = threat.aliases.map((a) => withoutControlCharacters(a).trim()).filter((a) => a !== '' && a.length <= MAX_THREAT_NAME);
        defs.push(key, name, threat.category, JSON.stringify(aliases));
      }
      if (relations.length >= BATCH_ROWS * 2) yield flushRelations();
    }
    for (const entry of batch.withdrawn ?? []) {
      const normalized = accepted(entry);
      if (normalized === undefined) continue;
      withdrawn.push(normalized.type, normalized.value);
      withdrawnRows++;
      if (withdrawn.length / 2 >= BATCH_ROWS) yield flush();
    }
    for (const entry of batch.entries) {
      const normalized = accepted(entry);
      if (normalized === undefined) continue;
      const risk = rowRisk(entry.risk, sourceRisk);
      const key = `${normalized.type} ${normalized.value}`;
      const at = staged.get(key);
      if (at === undefined) {
        staged.set(key, params.length + 2);
        params.push(normalized.type, normalized.value, risk, ++ordinal);
        count++;
      } else if (risk > (params[at] as number)) {
        // As VALUE_STAGING does across batches: the first place, the higher risk.
        params[at] = risk;
      }
      const threat = entry.threat === undefined ? undefined : withoutControlCharacters(entry.threat).trim();
      if (threat && threat.length <= MAX_THREAT_NAME) threats.push(normalized.type, normalized.value, threat);
      if (entry.ref !== undefined) refs.push(entry.ref, normalized.type, normalized.value);
      if (count >= BATCH_ROWS) yield flush();
    }
    if (!read.prefetched) deps.onProgress?.(rowsRead);
  }
  if (count > 0 || withdrawn.length > 0) yield flush();
  if (relations.length > 0) yield flushRelations();
  // A withdrawn row is a value the source still reads out, as retired: upstream retirements are no outage.
  read.check?.({ accepted: ordinal + withdrawnRows, rejected: tally.rejected, skipped: tally.skipped });
  // Known once the source is read: where the next pull resumes, and the upstream feed's description.
  if (read.cursor !== undefined) plan.cursor = read.cursor();
  if (read.describe !== undefined) plan.describe = describedFeed(await read.describe());
  if (reasons.length > 0) deps.logger.info('pull rejected values', { fid, rejected: tally.rejected, first: reasons });
  if (skips.length > 0) deps.logger.info('pull skipped objects', { fid, skipped: tally.skipped, first: skips });
  yield { kind: 'end', records: rowsRead, read: { threats: 0, feeds: 0, indicators: ordinal, links: 0 }, related: [] };
}

function describedFeed(upstream: UpstreamFeed | undefined): PullPlan['describe'] {
  if (upstream === undefined) return undefined;
  return { description: upstream.description ?? '', website: upstream.website ?? '', category: upstream.category ?? '', pricing: upstream.pricing ?? '' };
}

/** What a source gives for one pull: its rows (none for a 304), the validators, and what the pull records after reading them. */
interface SourceRead {
  rows: AsyncIterable<FeedBatch> | undefined;
  etag: string | null;
  lastModified: string | null;
  /** The source lists only what is new since its cursor (taxii, misp): a value left out is not dropped. */
  incremental: boolean;
  cursor?: () => string | null;
  describe?: () => Promise<UpstreamFeed | undefined>;
  /** SHA-256 of a one-body source's body, kept to recognize the same body next time. */
  bodyHash?: string | null;
  /** Frees what reading the source held (its spooled body), after the pull. */
  done?: () => Promise<void>;
  /** The rows were read to their end before the transaction (prefetch), and progress reported then. */
  prefetched?: boolean;
  /** The sanity gate (sanity-gate.ts), given the counts once every row is read: throws PullRefused to keep nothing. */
  check?: (counts: GateCounts) => void;
}

/**
 * A paged source read to its end before anything is written (spool-batches.ts), with the upstream
 * feed's description fetched too: the pull's transaction then only replays what was read.
 */
async function prefetch(read: SourceRead, onProgress: PullDeps['onProgress']): Promise<SourceRead> {
  if (read.rows === undefined) return read;
  const spooled = await spoolBatches(read.rows, onProgress);
  try {
    const described = read.describe === undefined ? undefined : await read.describe();
    const previousDone = read.done;
    return {
      ...read,
      rows: spooled.replay(),
      prefetched: true,
      ...(read.describe === undefined ? {} : { describe: () => Promise.resolve(described) }),
      done: async () => {
        await spooled.remove();
        await previousDone?.();
      },
    };
  } catch (error) {
    await spooled.remove();
    throw error;
  }
}

/**
 * Starts reading the source: the list formats and `stix` are one body (conditional on the previous
 * pull's validators); `taxii`, `misp` and `lookup-api` make their own requests as their rows are read.
 */
async function openSource(source: SourceDefinition, resolved: SourceDefinition, state: FeedSourceState, deps: PullDeps): Promise<SourceRead> {
  const common = {
    displayUrl: redactedUrl(source.url),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(deps.fetchImpl ? { fetchImpl: deps.fetchImpl } : {}),
    ...(deps.resolveHost ? { resolveHost: deps.resolveHost } : {}),
  };
  const none = { etag: null, lastModified: null };
  switch (source.format) {
    case 'taxii': {
      const read = readTaxiiCollection(resolved, state.cursor, {
        ...common, now: () => deps.clock.now(), onWarning: (message) => deps.logger.warn('pull: upstream TAXII server', { fid: state.fid, message }),
      });
      return { rows: read.batches, ...none, incremental: true, cursor: () => read.cursor() };
    }
    case 'misp': {
      const read = readMispFeed(resolved, state.cursor, { ...common, onlyIds: source.misp?.onlyIds ?? true });
      return { rows: read.batches, ...none, incremental: true, cursor: () => read.cursor() };
    }
    case 'lookup-api': {
      const read = readLookupApi(resolved, { ...common, warn: (message, fields) => deps.logger.warn(message, { fid: state.fid, ...fields }) });
      // The upstream feed's description fills the local feed's empty fields on the first pull only.
      const check = sanityCheck(source, state, deps);
      return { rows: read.batches, ...none, incremental: false, ...(state.stamp_pulled === null ? { describe: () => read.feed() } : {}), ...(check ? { check } : {}) };
    }
    default: {
      const fetched = await fetchSource(resolved, { etag: state.etag, lastModified: state.last_modified }, common);
      // A 304 keeps the validators it was asked with.
      if (fetched.kind === 'not-modified') return { rows: undefined, etag: state.etag, lastModified: state.last_modified, incremental: false, bodyHash: state.body_hash };
      const validators = { etag: fetched.etag, lastModified: fetched.lastModified };
      // The body the previous pull read, byte for byte: seen again, as after a 304.
      const spooled = await spoolBody(fetched.body);
      if (spooled.hash === state.body_hash) {
        await spooled.remove();
        return { rows: undefined, ...validators, incremental: false, bodyHash: spooled.hash };
      }
      // A login, error or "this list moved" page is no list: read as one, it would replace the feed's values.
      if (htmlPage(spooled.head) && !deps.force) {
        await spooled.remove();
        const type = fetched.headers.get('content-type');
        throw new PullRefused(`the body is an HTML page${type ? ` (${type.split(';')[0]!.trim()})` : ''} where a ${source.format} list was expected: the feed may have moved or need a login; kept as an outage (feeds pull --force keeps such a pull once)`);
      }
      const body = spooled.open();
      const rows = source.format === 'stix' ? readStixBundle(body, deps.clock.now()) : readFeed(source, body);
      const check = sanityCheck(source, state, deps, spooled.bytes);
      return { rows, ...validators, incremental: false, bodyHash: spooled.hash, done: spooled.remove, ...(check ? { check } : {}) };
    }
  }
}

/** The sanity gate of a full-list source, unless `--force` keeps this pull whatever it reads. */
function sanityCheck(source: SourceDefinition, state: FeedSourceState, deps: PullDeps, bodyBytes?: number): SourceRead['check'] {
  if (deps.force || !gatedFormat(source.format)) return undefined;
  const context: GateContext = { source, previous: state.listed, first: state.stamp_pulled === null, ...(bodyBytes === undefined ? {} : { bodyBytes }) };
  return (counts) => {
    const reason = gateFailure(counts, context);
    if (reason !== undefined) throw new PullRefused(`${reason} (feeds pull --force keeps such a pull once)`);
  };
}

/**
 * A run of this many characters of a secret is masked too, not only the whole secret: a format error
 * quotes part of the body (JSON.parse shows its first 10 characters), and a server may echo the token.
 */
const SECRET_FRAGMENT = 6;

/** `text` with each secret, and each run of SECRET_FRAGMENT or more of its characters, replaced by `***`. */
function redactSecrets(text: string, secrets: readonly string[]): string {
  let redacted = text;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    redacted = redacted.split(secret).join('***');
    if (secret.length <= SECRET_FRAGMENT) continue;
    let kept = '';
    for (let i = 0; i < redacted.length; ) {
      // The longest run starting at i that the secret contains (a part of a part is a part: greedy is exact).
      let run = 0;
      while (i + run < redacted.length && secret.includes(redacted.slice(i, i + run + 1))) run++;
      if (run >= SECRET_FRAGMENT) {
        kept += '***';
        i += run;
      } else {
        kept += redacted[i];
        i++;
      }
    }
    redacted = kept;
  }
  return redacted;
}

/** The message of a failed pull, with every secret the source resolved masked (redactSecrets): none may reach a log or the store. */
function failureReason(error: unknown, secrets: readonly string[]): string {
  const known = error instanceof FetchError || error instanceof FeedFormatError || error instanceof PullRefused || error instanceof SourceDefinitionError;
  const reason = redactSecrets(known ? (error as Error).message : `internal error: ${error instanceof Error ? error.message : String(error)}`, secrets);
  return reason.length > 500 ? `${reason.slice(0, 500)}…` : reason;
}

function scheduleOf(source: SourceDefinition | undefined, feedSchedule: string): Schedule {
  return source?.schedule === undefined ? scheduleFromFeed(feedSchedule) : parseSchedule(source.schedule);
}

/**
 * Pulls the feed once and returns its outcome; never throws for the feed's own faults (fetch,
 * format, an outage, a bad stored definition), which are recorded on the feed with a retry time.
 * Throws only when the feed has no source, or when even recording the failure fails (store down).
 */
export async function pullFeed(fid: number, deps: PullDeps): Promise<PullOutcome> {
  const { store, clock, logger } = deps;
  const state = await store.findFeedSource(fid);
  if (state === undefined) throw new SourceDefinitionError('fid', `feed ${fid} has no source`);
  const started = clock.now();
  const at = formatStamp(started);
  const seconds = () => Math.round((clock.now() - started) / 100) / 10;
  const tally: RowTally = { rejected: 0, allowlisted: 0, skipped: 0 };
  let source: SourceDefinition | undefined;
  let secrets: string[] = [];
  let read: SourceRead | undefined;
  let deadline: AbortSignal | undefined;
  try {
    source = parseSource(JSON.parse(state.definition));
    secrets = envReferences(source).map((name) => deps.env[name] ?? '');
    const resolved = resolveEnv(source, deps.env);
    // The config may open private networks to every source; the source's own `network` still wins when it says so.
    if (deps.allowPrivateNetworks && resolved.network === undefined) resolved.network = 'private';
    const nextDue = nextRun(scheduleOf(source, state.schedule), new Date(started)).getTime();
    // The whole pull is bounded (issue 26), not only each request: a source that pages forever fails.
    deadline = AbortSignal.timeout(source.maxSeconds * 1000);
    const signal = deps.signal ? AbortSignal.any([deps.signal, deadline]) : deadline;
    const bounded: PullDeps = { ...deps, signal };
    read = await openSource(source, resolved, state, bounded);
    if (source.format === 'taxii' || source.format === 'misp' || source.format === 'lookup-api') read = await prefetch(read, deps.onProgress);
    const plan: PullPlan = {
      fid,
      at,
      sourceThreat: source.threat === undefined ? null : withoutControlCharacters(source.threat) || null,
      repeat: read.rows === undefined,
      incremental: read.incremental,
      etag: read.etag,
      lastModified: read.lastModified,
      nextDue,
      ...(read.bodyHash === undefined ? {} : { bodyHash: read.bodyHash }),
    };
    const summary = await store.applyImport(pullBatches(plan, read, source, bounded, tally, fid), clock);
    const counts = summary.pulled!;
    const outcome: PullOutcome = { fid, feed: state.feed, seconds: seconds(), ok: true, notModified: read.rows === undefined, ...counts, ...tally };
    logger.info('pull', {
      fid, feed: state.feed, outcome: read.rows === undefined ? 'not-modified' : 'ok', values: counts.values, newIndicators: counts.newIndicators,
      newLinks: counts.newLinks, rejected: tally.rejected, allowlisted: tally.allowlisted, skipped: tally.skipped, seconds: outcome.seconds,
      ...(counts.withdrawn > 0 ? { withdrawn: counts.withdrawn } : {}),
      ...(counts.retiredSeen.length > 0 ? { retiredThreatsSeen: counts.retiredSeen } : {}),
    });
    return outcome;
  } catch (error) {
    if (deps.signal?.aborted && !deadline?.aborted) {
      // Stopped from outside (a shutdown): the feed did nothing wrong, so no failure is recorded on it;
      // it stays due, and the next pull (here or on another instance) reads it again.
      logger.info('pull cancelled: the process is stopping', { fid, feed: state.feed, seconds: seconds() });
      return { fid, feed: state.feed, seconds: seconds(), ok: false, reason: 'cancelled: the process is stopping' };
    }
    const reason = deadline?.aborted ? `the pull took longer than maxSeconds (${source!.maxSeconds} s)` : failureReason(error, secrets);
    const failures = state.failures + 1;
    const now = clock.now();
    const nextDue = now + retryDelay(failures, scheduleOf(source, state.schedule), new Date(now));
    await store.recordPullFailure(fid, { reason, at: formatStamp(now), nextDue });
    const outcome: PullOutcome = { fid, feed: state.feed, seconds: seconds(), ok: false, reason };
    logger.warn('pull', { fid, feed: state.feed, outcome: 'failed', reason, failures, seconds: outcome.seconds });
    return outcome;
  } finally {
    await read?.done?.().catch(() => undefined);
  }
}

/** The line `feeds pull` prints for an outcome (DESIGN 7). */
export function outcomeLine(outcome: PullOutcome): string {
  const name = outcome.feed.replace(/[\r\n\t]+/g, ' ');
  if (!outcome.ok) return `fid ${outcome.fid} ${name}: failed: ${outcome.reason.replace(/[\r\n]+/g, ' ')}`;
  return (
    `fid ${outcome.fid} ${name}: ok ${outcome.values} values, ${outcome.newIndicators} new indicators, ` +
    `${outcome.newLinks} new links, ${outcome.rejected} rejected, ${outcome.seconds.toFixed(1)} s`
  );
}
