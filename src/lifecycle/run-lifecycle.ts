// The lifecycle of docs/interface.md section 3: one run, and staff retiring or reactivating a
// threat, each through the store's one write path (Store.applyWrite) with `now` passed in.
import { formatStamp, type Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { LifecycleCounts } from '../store/contract/commands.js';
import type { Store } from '../store/contract/store.js';
import { noBatches } from '../store/contract/write-batch.js';

const DAY_MS = 86_400_000;

export type LifecycleSettings = Config['lifecycle'];

/** The stamp `days` before `now` (fractions of a day allowed). */
const before = (now: number, days: number) => formatStamp(now - Math.round(days * DAY_MS));

/** A lifecycle command writes no rows of its own: its plan is the whole of it. */

/**
 * Retires the threats not observed for `threatRetireDays` and ages out the indicators no source has
 * listed for `indicatorRetireDays` (by type, else `default`), as of `clock.now()`. A second run at
 * the same time changes nothing.
 */
export async function runLifecycle(store: Store, settings: LifecycleSettings, clock: Clock): Promise<LifecycleCounts> {
  const now = clock.now();
  const days = settings.indicatorRetireDays;
  const { default: fallback = 30, ...byTypeDays } = typeof days === 'number' ? { default: days } : days;
  const byType = Object.fromEntries(Object.entries(byTypeDays).map(([type, d]) => [type, before(now, d)]));
  const plan = {
    at: formatStamp(now),
    threatCutoff: before(now, settings.threatRetireDays),
    indicatorCutoffs: { byType, default: before(now, fallback) },
  };
  return (await store.applyWrite({ kind: 'lifecycle', plan }, noBatches(), clock)).lifecycle;
}

/** Retires (`retired` true) or reactivates a threat; false when it already was in that state. Throws when no threat has the tid. */
export async function setThreatRetired(store: Store, tid: number, retired: boolean, clock: Clock): Promise<boolean> {
  const plan = { tid, retired, at: formatStamp(clock.now()) };
  return (await store.applyWrite({ kind: 'threat-state', plan }, noBatches(), clock)).threatStateChanged;
}
