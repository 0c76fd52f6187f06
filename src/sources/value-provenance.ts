// Why a value is (or is not) on the lists (docs/interface.md section 12.4): the store's facts about it,
// the allowlist entry that keeps it out, and the collections and exports it reaches. `why` and
// GET /admin/api/why answer with it.
import type { CollectionConfig } from '../config.js';
import type { Risk } from '../domain.js';
import type { IndicatorType } from '../indicator-types.js';
import { isRetired } from '../stix/is-retired.js';
import type { ProvenanceFeed, ProvenanceRejection, ProvenanceThreat, ValueFacts } from '../store/contract/runs.js';
import type { Store } from '../store/contract/store.js';
import type { Allowlist } from './allowlist.js';
import { currentAllowlist } from './runtime-allowlist.js';
import { readIndicatorValue } from './indicator-value.js';
import { refang } from './refang.js';
import { storedBlocksHolding } from './stored-blocks.js';

/** The provenance of one value, as `why --json` and GET /admin/api/why give it (a contract: docs/interface.md section 12.4). */
export interface Provenance {
  /** The value as asked. */
  value: string;
  /** The value as pulls normalize it, and its detected type; null when it is no indicator of any type. */
  normalized: { value: string; type: IndicatorType } | null;
  /** Why it is no indicator; null when it is one. */
  unparseable: string | null;
  indicator: ValueFacts['indicator'];
  feeds: ProvenanceFeed[];
  threats: ProvenanceThreat[];
  /** The feeds listing it now that give it the indicator's risk; empty when an import or a retirement set the risk. */
  risk_from: { fid: number; feed: string }[];
  /** The configured entry that keeps it out of every pull. */
  allowlist: { entry: string } | null;
  /** The last time a pull rejected it. */
  rejection: ProvenanceRejection | null;
  /** The configured collections whose STIX objects hold it now. */
  collections: { id: string; title: string; alias: string | null }[];
  /** The exports (docs/interface.md section 11) that list it: its collections while the indicator is not retired. */
  exports: { collection: string; url: string }[];
  /**
   * For an address or block: every stored block holding it, narrowest first, retired ones too
   * (docs/lookup-api.md, "An address inside a listed block"); empty for any other value.
   */
  blocks: { iid: number; value: string; risk: Risk; retired: boolean }[];
}

export interface ProvenanceDeps {
  store: Store;
  allowlist: Allowlist;
  collections: readonly CollectionConfig[];
}

export async function provenanceOf(raw: string, deps: ProvenanceDeps): Promise<Provenance> {
  // As pasted but refanged: an import's unnormalized value is found when pasted defanged too.
  const asGiven = refang(raw);
  const reading = readIndicatorValue(raw);
  // No indicator, but a pull may still have rejected exactly this text: with no type the store answers only that.
  const facts = await deps.store.findValueFacts(reading.ok ? { ...reading.lookup, asGiven } : { value: asGiven, types: [], asGiven });
  const normalized = reading.ok ? { value: reading.lookup.value, type: reading.type } : null;
  const blocks = normalized === null ? [] : await storedBlocksHolding(deps.store, normalized.value, normalized.type);
  // The config's entries and the run-time ones (docs/interface.md section 13), as a pull would use them now.
  const allowlist = normalized === null ? deps.allowlist : await currentAllowlist(deps.allowlist, deps.store);
  const entry = normalized === null ? undefined : allowlist.entryFor(normalized.value, normalized.type);

  const indicator = facts.indicator;
  const retired = indicator !== null && isRetired(indicator);
  const held = new Set(facts.collections);
  const collections = deps.collections.filter((c) => held.has(c.id)).map((c) => ({ id: c.id, title: c.title, alias: c.alias ?? null }));
  return {
    value: raw,
    normalized,
    unparseable: reading.ok ? null : reading.reason,
    indicator,
    feeds: facts.feeds,
    threats: facts.threats,
    // A retired risk is the lifecycle's, not a source's.
    risk_from:
      indicator === null || indicator.risk === 'retired'
        ? []
        : facts.feeds.filter((f) => f.listed_now && f.risk === indicator.risk).map((f) => ({ fid: f.fid, feed: f.feed })),
    allowlist: entry === undefined ? null : { entry },
    rejection: facts.rejection,
    collections,
    exports: retired ? [] : collections.map((c) => ({ collection: c.id, url: `/export/${c.id}.txt` })),
    blocks: blocks.map((b) => ({ iid: b.iid, value: b.indicator, risk: b.risk, retired: b.retired })),
  };
}
