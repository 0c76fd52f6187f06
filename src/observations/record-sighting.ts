// Records a sighting (docs/observations.md): the one path the command line, the operator API and
// the console's "Seen" buttons share. The input is checked, its value or threat found in the store,
// and the sighting written by the store's one write path; a refusal writes nothing.
import { formatStamp, type Clock } from '../clock.js';
import { readIndicatorValue } from '../sources/indicator-value.js';
import { refang } from '../sources/refang.js';
import { SightingRefused, type Reporter, type SightingPlan, type SightingRecord, type SightingTarget } from '../store/contract/observations.js';
import type { Store } from '../store/contract/store.js';
import { noBatches } from '../store/contract/write-batch.js';
import { badField, ObservationRefused } from './observation-refused.js';
import { checkSighting, type SightingInput } from './sighting-input.js';

export type { SightingInput } from './sighting-input.js';

/** What the command line records as its reporter: no key, and this label. */
export const COMMAND_LINE_REPORTER: Reporter = { keyId: null, label: 'command line' };

const INDICATOR_KINDS = 'an IP address or CIDR block, domain, URL, email address, hash or AS number';

/** A value shown in a message: quoted, cut after 100 characters. */
export const shownValue = (value: string) => JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);

/**
 * The stored indicator a pasted value names, found as indicator.php finds it (refanged, normalized,
 * under its type and the alias types an import may use); 400 for text that is no indicator, 404 for
 * one the store does not hold. An address inside a stored block is not that block: a sighting is of
 * what was seen.
 */
export async function sightedIndicator(store: Store, value: string): Promise<{ iid: number; indicator: string; type: string }> {
  const reading = readIndicatorValue(value);
  if (!reading.ok) throw badField('value', `must be an indicator: ${shownValue(value)} is none (${INDICATOR_KINDS})`);
  const found = await store.findIndicatorByValue(reading.lookup.value, reading.lookup.types, refang(value));
  if (found === undefined) throw new ObservationRefused(404, 'value', `names no stored indicator: ${shownValue(reading.lookup.value)}`);
  return { iid: found.iid, indicator: found.indicator, type: found.type };
}

async function sightedThreat(store: Store, tid: number): Promise<{ tid: number }> {
  if ((await store.findThreat(tid)) === undefined) throw new ObservationRefused(404, 'tid', `names no stored threat: ${tid}`);
  return { tid };
}

/**
 * Checks `input` (exactly one of value and tid; count, note and `at` as sighting-input.ts says),
 * finds what it names, and writes the sighting: an observation of the indicator and its threats (or
 * of the threat), as a pull's listing is (docs/observations.md, "What a sighting changes"). Returns
 * the sighting as stored. Throws ObservationRefused, having written nothing, for input that is
 * wrong (400) or names nothing stored (404).
 */
export async function recordSighting(store: Store, input: SightingInput, reporter: Reporter, clock: Clock): Promise<SightingRecord> {
  const now = clock.now();
  const checked = checkSighting(input, now);
  const target: SightingTarget = 'value' in checked.target ? { iid: (await sightedIndicator(store, checked.target.value)).iid } : await sightedThreat(store, checked.target.tid);
  const plan: SightingPlan = { target, by: reporter, reportedAt: formatStamp(now), seenAt: checked.seenAt, count: checked.count, note: checked.note };
  try {
    return (await store.applyWrite({ kind: 'sighting', plan }, noBatches(), clock)).sighted;
  } catch (error) {
    // Found above, gone by the write: the store refused it and wrote nothing.
    if (error instanceof SightingRefused) {
      throw 'iid' in target ? new ObservationRefused(404, 'value', `names no stored indicator: iid ${target.iid}`) : new ObservationRefused(404, 'tid', `names no stored threat: ${target.tid}`);
    }
    throw error;
  }
}
