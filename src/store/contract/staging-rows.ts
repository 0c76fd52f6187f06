// The rows a write hands the store (WriteBatch, write-batch.ts), one type per table they fill, named
// after the store's table (ingest/record-upserts.ts, ingest/pull-writer.ts, ingest/pull-attributes.ts,
// changes/staged-links.ts and changes/staged-keys.ts name the columns each element goes to). Typed tuples, not objects: a pull or an import of a
// million values makes one per row, and an import's batches cross a worker thread, where an array
// is cheaper to clone than an object that carries its field names (docs/architecture.md, "Writes").

/** A threat record as its upsert writes it: JSON text for its lists and objects, `retired` 0 or 1. */
export type ThreatUpsertRow = [
  tid: number, name: string, category: string, risk: string, description: string | null, notes: string | null, wikisummary: string | null,
  wikireference: string | null, retired: number | null, stampAdded: string | null, stampUpdated: string | null, stampSeen: string | null,
  stampRetired: string | null, othernames: string, attributes: string, ttps: string, news: string, comments: string, related: string,
  contentHash: string,
];

/** A feed record as its upsert writes it: its name and organization again lower-cased (the keys a pull finds it by). */
export type FeedUpsertRow = [
  fid: number, name: string, organization: string, nameKey: string, organizationKey: string, category: string, pricing: string,
  contact: string, website: string, schedule: string, stampAdded: string | null, stampUpdated: string | null, stampPulled: string | null,
  stampModified: string | null, description: string, accesslink: string, contentHash: string,
];

/** An indicator record as its upsert writes it. */
export type IndicatorUpsertRow = [
  iid: number, value: string, type: string, risk: string, stampAdded: string | null, stampUpdated: string | null, stampSeen: string | null,
  retired: number | null, attributes: string, properties: string, contentHash: string,
];

/**
 * A tid, fid or iid of the file at its first place (KEY_KIND), with a 52-bit prefix of its record's
 * content hash: a later record of the key with another prefix is a conflict (ingest/record-checks.ts).
 */
export type KeyStagingRow = [kind: number, id: number, content: number, ordinal: number, position: string];

/** A link of the file (LINK_KIND): its owner (fid or tid), indicator, stamp and place in the file. */
export type LinkStagingRow = [kind: number, owner: number, iid: number, stampLinked: string, ordinal: number, position: string];

/** A value a pull listed: type, normalized value, risk rank (RISK_RANKS) and its place in the source; a value may repeat. */
export type ValueStagingRow = [type: string, value: string, risk: number, ordinal: number];

/** A threat a listed value's row names. */
export type ValueThreatStagingRow = [type: string, value: string, name: string];

/** The upstream object (a STIX indicator id, a MISP event) a listed value came from. */
export type ValueRefStagingRow = [ref: string, type: string, value: string];

/** A value the source withdrew: type and normalized value. */
export type WithdrawnStagingRow = [type: string, value: string];

/** What a value's row said besides its value (ATTRIBUTE_LIMITS), JSON text, numbered in the source's order. */
export type ValueAttributeStagingRow = [type: string, value: string, seq: number, attributes: string];

/** An upstream object indicates a threat, by name. */
export type RefThreatStagingRow = [ref: string, name: string];

/** A threat the source describes, by its lower-cased name: the category and other names (JSON text) a threat created for it gets. */
export type ThreatDefStagingRow = [nameKey: string, name: string, category: string, aliases: string];
