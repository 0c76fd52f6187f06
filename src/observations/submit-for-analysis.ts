// A value submitted for analysis (docs/observations.md, "Submissions for analysis"; analyze.php):
// recorded against the submitting key, an observation of the indicator when the value is a stored
// one, and never a new indicator: nothing is probed or enriched, and an unknown value reaches no
// export or collection.
import { formatStamp, type Clock } from '../clock.js';
import { hasControlCharacter } from '../sources/control-characters.js';
import { readIndicatorValue } from '../sources/indicator-value.js';
import { refang } from '../sources/refang.js';
import type { SubmissionPlan, SubmissionRecord } from '../store/contract/observations.js';
import type { Store } from '../store/contract/store.js';
import { noBatches } from '../store/contract/write-batch.js';
import { badField } from './observation-refused.js';
import { MAX_VALUE } from './sighting-input.js';

/**
 * The value as kept (its normalized form and type when it is an indicator of some type, else the
 * text as given, trimmed) and the stored indicator it names, if any. Text that is empty, too long or
 * holds control characters is a 400 (field `value`).
 */
export async function submittedValue(store: Store, text: string): Promise<Pick<SubmissionPlan, 'value' | 'type' | 'iid'>> {
  const value = text.trim();
  if (value === '') throw badField('value', 'is empty: give the value to analyze');
  if (value.length > MAX_VALUE) throw badField('value', `is at most ${MAX_VALUE} characters`);
  if (hasControlCharacter(value)) throw badField('value', 'must not hold control characters (line breaks, tabs, escapes)');
  const reading = readIndicatorValue(value);
  if (!reading.ok) return { value, type: null, iid: null };
  const found = await store.findIndicatorByValue(reading.lookup.value, reading.lookup.types, refang(value));
  return { value: reading.lookup.value, type: reading.type, iid: found?.iid ?? null };
}

/** Records the submission of `value` by the key `keyId` and returns it, its `qid` the key's alone to read back. */
export async function submitForAnalysis(store: Store, input: { value: string; keyId: string }, clock: Clock): Promise<SubmissionRecord> {
  const submitted = await submittedValue(store, input.value);
  const plan: SubmissionPlan = { keyId: input.keyId, ...submitted, at: formatStamp(clock.now()) };
  return (await store.applyWrite({ kind: 'submission', plan }, noBatches(), clock)).submitted;
}
