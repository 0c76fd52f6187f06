// The run-time allowlist (docs/interface.md section 13): entries added by `threatgate allowlist add` or the console live in
// the store, add to the config's with the same matching rules (allowlist.ts), retire the stored
// indicators they cover when added, and keep those values out of every later pull.
import { formatStamp, type Clock } from '../clock.js';
import { ConfigError, UsageError } from '../errors.js';
import type { IndicatorType } from '../indicator-types.js';
import type { AllowlistCounts, IndicatorCover } from '../store/contract/commands.js';
import type { AllowlistEntry, AllowlistPreview } from '../store/contract/records.js';
import type { Store } from '../store/contract/store.js';
import { noBatches } from '../store/contract/write-batch.js';
import { createAllowlist, type Allowlist } from './allowlist.js';
import { normalizeValue } from './normalize-value.js';

/** Stored types an address or block entry can cover, and those a domain suffix can (a URL by its host, an email by its domain). */
const ADDRESS_TYPES: readonly string[] = ['ip', 'ipv4', 'ipv6', 'cidr'];
const NAME_TYPES: readonly string[] = ['domain', 'hostname', 'url', 'uri', 'email'];
/** The longest entry accepted: the longest domain name (RFC 1035) with room for a URL's scheme and path. */
const MAX_ENTRY = 2048;
/** Indicators a dry run names. */
export const PREVIEW_SAMPLE = 20;

/** The entry as it is kept: trimmed, checked as the config's entries are; a UsageError names what is wrong. */
export function allowlistEntry(text: string): string {
  const entry = text.trim();
  if (entry === '') throw new UsageError('allowlist: give an ENTRY (an address, a CIDR block, a domain, or an exact value)');
  if (entry.length > MAX_ENTRY) throw new UsageError(`allowlist: an entry is at most ${MAX_ENTRY} characters`);
  try {
    createAllowlist([entry]);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
  return entry;
}

/** Which stored indicators a (checked) entry covers, for the dry run and the write: the types worth scanning, or the one exact value. */
export function indicatorCover(entry: string): IndicatorCover {
  const alone = createAllowlist([entry]);
  const covers = (value: string, type: string) => alone.allows(value, type as IndicatorType);
  const bare = entry.startsWith('.') ? entry.slice(1) : entry;
  const normalized = normalizeValue(bare);
  if (!normalized.ok || normalized.type === 'domain') return { types: NAME_TYPES, covers };
  if (normalized.type === 'ip' || normalized.type === 'ipv6') return { types: ADDRESS_TYPES, covers };
  return { exact: normalized.value, types: [normalized.type], covers };
}

/** The config's allowlist with the store's run-time entries after it: a value either keeps out is kept out. */
export function withRuntimeEntries(base: Allowlist, entries: readonly AllowlistEntry[]): Allowlist {
  if (entries.length === 0) return base;
  const runtime = createAllowlist(entries.map((e) => e.entry));
  return {
    allows: (value, type) => base.allows(value, type) || runtime.allows(value, type),
    entryFor: (value, type) => base.entryFor(value, type) ?? runtime.entryFor(value, type),
  };
}

/** The allowlist a pull uses now: the config's and the store's entries (read at each pull, so every instance sees an entry as soon as it is added). */
export async function currentAllowlist(base: Allowlist, store: Store): Promise<Allowlist> {
  return withRuntimeEntries(base, await store.listAllowlistEntries());
}

/** What adding `entry` would retire now (the dry run). */
export function previewEntry(store: Store, entry: string): Promise<AllowlistPreview> {
  return store.previewAllowlistEntry(indicatorCover(allowlistEntry(entry)), PREVIEW_SAMPLE);
}

/** Adds the entry and retires the indicators it covers, in one write; `added` false when the store had it already. */
export async function addEntry(store: Store, input: { entry: string; reason: string; addedBy: string }, clock: Clock): Promise<AllowlistCounts> {
  const entry = allowlistEntry(input.entry);
  const plan = { at: formatStamp(clock.now()), entry, reason: input.reason.trim(), addedBy: input.addedBy, cover: indicatorCover(entry) };
  const result = await store.applyWrite({ kind: 'allowlist', plan }, noBatches(), clock);
  return result.allowlisted;
}
