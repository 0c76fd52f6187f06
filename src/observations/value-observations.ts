// The latest observations of an indicator, for `why` and the operator API's why (docs/observations.md,
// "Where they show"): its sightings and the keys that submitted it for analysis, newest first.
import type { SightingRecord } from '../store/contract/observations.js';
import type { Store } from '../store/contract/store.js';

/** How many of each `why` shows: the latest are what explains a value's stamps; the operator API pages through the rest. */
export const LATEST_OBSERVATIONS = 5;

export interface ValueObservations {
  /** The latest sightings of the indicator, newest first. */
  sightings: SightingRecord[];
  /** The latest submissions of it for analysis, newest first: the key that submitted it and when. */
  submissions: { qid: number; key_id: string; submitted_at: string }[];
}

/** The latest observations of the stored indicator `iid`; none for a value the store does not hold (null). */
export async function valueObservations(store: Store, iid: number | null): Promise<ValueObservations> {
  if (iid === null) return { sightings: [], submissions: [] };
  const [sightings, submissions] = await Promise.all([store.listSightings({ iid }, LATEST_OBSERVATIONS), store.listSubmissions(iid, LATEST_OBSERVATIONS)]);
  return { sightings, submissions: submissions.map((s) => ({ qid: s.qid, key_id: s.key_id, submitted_at: s.submitted_at })) };
}
