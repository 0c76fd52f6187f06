// `threatgate seen VALUE | --threat TID [--note TEXT] [--at TIMESTAMP] [--count N]` (docs/observations.md,
// "On the command line"): records a sighting, reported by `command line`, and prints one line saying what was recorded.
import type { Clock } from '../clock.js';
import { ConfigError, UsageError } from '../errors.js';
import { ObservationRefused, type ObservationField } from '../observations/observation-refused.js';
import { COMMAND_LINE_REPORTER, recordSighting, type SightingInput } from '../observations/record-sighting.js';
import { MAX_COUNT } from '../observations/sighting-input.js';
import type { SightingRecord } from '../store/contract/observations.js';
import type { Store } from '../store/contract/store.js';
import { cell } from './table-output.js';

export interface SeenFlags {
  threat?: string | undefined;
  note?: string | undefined;
  at?: string | undefined;
  count?: string | undefined;
}

export interface SeenDeps {
  store: Store;
  clock: Clock;
  out: (line: string) => void;
}

const SHAPE = 'seen VALUE [--note TEXT] [--at TIMESTAMP] [--count N], or seen --threat TID [...]';

/** How the command line names each field of a sighting. */
const FLAGS: Record<ObservationField, string> = { target: 'VALUE or --threat TID', value: 'VALUE', tid: '--threat', note: '--note', at: '--at', count: '--count' };

/** A whole number as typed (digits only), its range left to the field's check; anything else refused naming the flag. */
function wholeNumber(flag: string, text: string, reason: string): number {
  if (!/^\d{1,16}$/.test(text.trim())) throw new UsageError(`seen: ${flag} ${reason}, not ${JSON.stringify(text)}`);
  return Number(text.trim());
}

/** The input the flags and the VALUE give: exactly one of VALUE and --threat. */
function sightingInput(args: readonly string[], flags: SeenFlags): SightingInput {
  if (args.length > 1) throw new UsageError(`seen: give one VALUE (quote it if it holds blanks): ${SHAPE}`);
  const [value] = args;
  if (value === undefined && flags.threat === undefined) throw new UsageError(`seen: give a VALUE or --threat TID: ${SHAPE}`);
  if (value !== undefined && flags.threat !== undefined) throw new UsageError(`seen: give a VALUE or --threat TID, not both: ${SHAPE}`);
  return {
    ...(value !== undefined ? { value } : { tid: wholeNumber('--threat', flags.threat!, 'must be a positive whole number (a tid)') }),
    ...(flags.count !== undefined ? { count: wholeNumber('--count', flags.count, `must be a whole number from 1 to ${MAX_COUNT}`) } : {}),
    note: flags.note ?? null,
    at: flags.at ?? null,
  };
}

/**
 * Records the sighting and prints `recorded sighting ID of indicator IID VALUE (TYPE): count N,
 * seen STAMP` (or `of threat TID NAME`). Malformed input is a UsageError and a value or tid the
 * store lacks a ConfigError, both naming the flag; either way nothing is written.
 */
export async function seenCommand(args: readonly string[], flags: SeenFlags, deps: SeenDeps): Promise<void> {
  const sighting = await recorded(sightingInput(args, flags), deps);
  deps.out(`recorded sighting ${sighting.id} of ${await targetText(deps.store, sighting)}: count ${sighting.count}, seen ${sighting.seen_at}`);
}

/** The sighting recorded, or its refusal as the command line words it, naming the flag. */
async function recorded(input: SightingInput, deps: SeenDeps): Promise<SightingRecord> {
  try {
    return await recordSighting(deps.store, input, COMMAND_LINE_REPORTER, deps.clock);
  } catch (error) {
    if (!(error instanceof ObservationRefused)) throw error;
    const text = error.field === 'target' ? `seen: give a VALUE or --threat TID, not both: ${SHAPE}` : `seen: ${FLAGS[error.field]} ${error.reason}`;
    throw error.status === 404 ? new ConfigError(text, { cause: error }) : new UsageError(text, { cause: error });
  }
}

/** `indicator IID VALUE (TYPE)` or `threat TID NAME`, as the store holds them now. */
async function targetText(store: Store, sighting: { iid: number | null; tid: number | null }): Promise<string> {
  if (sighting.iid !== null) {
    const indicator = await store.findIndicator(sighting.iid);
    return `indicator ${sighting.iid}${indicator ? ` ${cell(indicator.indicator)} (${indicator.type})` : ''}`;
  }
  const threat = sighting.tid === null ? undefined : await store.findThreat(sighting.tid);
  return `threat ${sighting.tid}${threat ? ` ${cell(threat.threat)}` : ''}`;
}
