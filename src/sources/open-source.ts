// Opens a feed's source for one pull: its format's entry (formats/format-registry.ts) given the pull's means, a paged source read to its end first, and the sanity gate of a full-list one.
import { PullRefused } from '../store/contract/commands.js';
import type { FeedSourceState } from '../store/contract/records.js';
import type { OpenContext, SourceRead } from './formats/format-entry.js';
import { formatEntry } from './formats/format-registry.js';
import { churnFailure, gateFailure, type GateContext, type GateCounts } from './sanity-gate.js';
import type { SourceDefinition } from './source-definition.js';
import { spoolBatches } from './spool-batches.js';

/** A source's read as the pull's batches take it. */
export interface PullRead extends SourceRead {
  /** The source lists only what is new since its cursor (taxii, misp): a value left out is not dropped. */
  incremental: boolean;
  /** The rows were read to their end before the transaction (prefetch), and progress reported then. */
  prefetched?: boolean;
  /** The sanity gate (sanity-gate.ts), given the counts once every row is read: throws PullRefused to keep nothing. */
  check?: (counts: GateCounts) => void;
  /** The gate's churn check (`maxChurn`), which the store calls with the staged values the feed lists now (PullPlan `checkOverlap`). */
  checkOverlap?: (overlap: number) => void;
}

/**
 * Starts reading the source (`resolved`: env-resolved, never logged) with its format's transport
 * and parser. A paged source (taxii, misp, lookup-api) is read to its end here, before the pull's
 * transaction; a one-body source is read as the transaction writes.
 */
export async function openSource(
  resolved: SourceDefinition,
  context: OpenContext,
  options: { force: boolean; onProgress?: ((rows: number) => void) | undefined },
): Promise<PullRead> {
  const entry = formatEntry(resolved.format);
  let read: PullRead = { ...(await entry.open(resolved, context)), incremental: entry.incremental };
  if (entry.paged) read = await prefetch(read, options.onProgress);
  if (!entry.incremental && !options.force) {
    read.check = sanityCheck(resolved, context.state, read.bodyBytes);
    if (resolved.maxChurn !== undefined) read.checkOverlap = churnCheck(resolved, context.state);
  }
  return read;
}

/**
 * A paged source read to its end before anything is written (spool-batches.ts), with the upstream
 * feed's description fetched too: the pull's transaction then only replays what was read.
 */
async function prefetch(read: PullRead, onProgress: ((rows: number) => void) | undefined): Promise<PullRead> {
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

/** The sanity gate of a full-list source. */
function sanityCheck(source: SourceDefinition, state: FeedSourceState, bodyBytes: number | undefined): PullRead['check'] {
  const context: GateContext = { source, previous: state.listed, first: state.stamp_pulled === null, ...(bodyBytes === undefined ? {} : { bodyBytes }) };
  return (counts) => refuse(gateFailure(counts, context));
}

/** The churn check of a full-list source with maxChurn, against the listing the pull began with (as minRatio's). */
function churnCheck(source: SourceDefinition, state: FeedSourceState): PullRead['checkOverlap'] {
  const context: GateContext = { source, previous: state.listed, first: state.stamp_pulled === null };
  return (overlap) => refuse(churnFailure(overlap, context));
}

function refuse(reason: string | undefined): void {
  if (reason !== undefined) throw new PullRefused(`${reason} (feeds pull --force keeps such a pull once)`);
}
