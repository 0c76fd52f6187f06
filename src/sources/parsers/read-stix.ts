// The `stix` format: a STIX 2.1 bundle read as it arrives, and the mapping of STIX objects to feed entries that `taxii` shares.
import { readStixPatternValues, riskForConfidence } from '../../stix/index.js';
import { decodeText } from '../../text/decode-text.js';
import type { FeedBody } from './feed-body.js';
import { hasContent, type FeedBatch, type FeedEntry, type FeedRelation, type ThreatRef } from './feed-entry.js';
import { StixBundleScanner, type StixObjectAt } from './stix-bundle-scanner.js';

export type { StixObjectAt } from './stix-bundle-scanner.js';

/** The SDO types that give threats, and the category a threat created for one gets (docs/stix-mapping.md, "Threats"). */
export const THREAT_CATEGORIES: Readonly<Record<string, string>> = {
  malware: 'malware',
  'intrusion-set': 'group',
  'threat-actor': 'threat-actor',
  campaign: 'campaign',
};

type StixObject = Record<string, unknown>;

function isObject(value: unknown): value is StixObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** The longest reason kept for a skipped object: a pattern's reason may quote an object path of any length. */
const MAX_REASON_LENGTH = 200;

/** The type part of a STIX id (`malware--<uuid>` → `malware`). */
function idType(id: string): string {
  const cut = id.indexOf('--');
  return cut < 0 ? '' : id.slice(0, cut);
}

/**
 * Maps STIX objects to feed entries and relations, across calls: one mapper per bundle or per TAXII
 * walk, fed its objects in order, a group (a chunk of a bundle, a page of a walk) at a time.
 *
 * - `indicator`: a pattern readStixPatternValues reads gives one entry per value (`ref` = the
 *   indicator's id), with the risk its `confidence` stands for (riskForConfidence; none without
 *   one, so the source's risk applies). One that is revoked, or whose `valid_until` is not after
 *   `now`, gives its values as withdrawn instead (FeedBatch `withdrawn`; docs/interface.md section 10, "Withdrawn values"): the upstream no
 *   longer asserts them. Skipped and counted: an unreadable `valid_until`, `pattern_type` other
 *   than `stix` (STIX 2.0 objects have none and are read), a pattern not read. `valid_from` is not
 *   looked at: a feed lists an indicator because it applies.
 * - `malware`, `intrusion-set`, `threat-actor`, `campaign`: a threat (name, `aliases`, category by
 *   THREAT_CATEGORIES), kept by id. A later version of the same id replaces it; a revoked or
 *   nameless one makes the id unusable.
 * - `relationship` of type `indicates` from an indicator to one of those SDOs gives a relation
 *   {ref: the indicator id, threat}: at once when the SDO has been read, else when it is, so the
 *   order of the objects does not matter (a relationship may come pages before its target).
 *   Revoked relationships and other relationship types are ignored.
 * - Anything else (identity, marking-definition, other SDOs and SCOs) is ignored, not counted.
 * - An object whose mapping throws (no input is known to, but an upstream is free to send anything)
 *   is skipped and counted with the error as its reason, and gives nothing: one object never fails
 *   a pull, and a TAXII source, which resumes from the same cursor, is never stuck behind it.
 *
 * Every skip is counted in the batch's `skipped`, its reason in `skipReasons`.
 *
 * Memory: the threat SDOs by id (thousands at most), and the relationships whose target has not
 * been read yet, grouped by target id. Indicators are never kept: a relation is emitted without
 * checking that its indicator gave values, and the pull joins relations to entries by `ref`.
 */
export class StixObjectMapper {
  private readonly threats = new Map<string, ThreatRef>();
  /** Threat SDO ids read but revoked or nameless: relationships to them give nothing. */
  private readonly unusable = new Set<string>();
  /** Indicator ids waiting for their target SDO, by the target's id. */
  private readonly waiting = new Map<string, string[]>();
  private waitingCount = 0;

  constructor(private readonly now: number) {}

  /** The batch of one group of objects: its entries, skipped indicators, and the relations it completes. */
  map(objects: Iterable<StixObjectAt>): FeedBatch {
    const batch: FeedBatch = { entries: [], skipped: 0 };
    const relations: FeedRelation[] = [];
    for (const { object, position } of objects) {
      if (!isObject(object)) continue;
      const entries = batch.entries.length;
      const withdrawn = batch.withdrawn?.length ?? 0;
      const related = relations.length;
      try {
        this.object(object, position, batch, relations);
      } catch (error) {
        // Skipped means nothing of it is kept, whatever it had given before it threw.
        batch.entries.length = entries;
        if (batch.withdrawn !== undefined) batch.withdrawn.length = withdrawn;
        relations.length = related;
        skip(batch, position, `not read: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
    }
    if (relations.length > 0) batch.relations = relations;
    return batch;
  }

  /** Ids of the threat SDOs that relationships point to and that have not been read: a TAXII walk may fetch them. */
  unresolvedTargets(): string[] {
    return [...this.waiting.keys()];
  }

  /** How many relationships still wait for their target; they give nothing if it never comes. */
  get unresolvedRelations(): number {
    return this.waitingCount;
  }

  private object(object: StixObject, position: string, batch: FeedBatch, relations: FeedRelation[]): void {
    const type = object.type;
    if (type === 'indicator') this.indicator(object, position, batch);
    else if (type === 'relationship') this.relationship(object, relations);
    else if (typeof type === 'string' && Object.hasOwn(THREAT_CATEGORIES, type)) this.threat(object, type, relations);
  }

  private indicator(object: StixObject, position: string, batch: FeedBatch): void {
    const expiry = this.expiry(object.valid_until);
    if (expiry === 'unreadable') return skip(batch, position, 'valid_until is unreadable');
    const patternType = object.pattern_type;
    if (patternType !== undefined && patternType !== 'stix') {
      return skip(batch, position, typeof patternType === 'string' ? `pattern_type ${JSON.stringify(patternType)}` : 'pattern_type is not a string');
    }
    if (typeof object.pattern !== 'string') return skip(batch, position, 'no pattern');
    const reading = readStixPatternValues(object.pattern);
    if (!reading.ok) return skip(batch, position, reading.reason);
    if (object.revoked === true || expiry === 'past') {
      const withdrawn = (batch.withdrawn ??= []);
      for (const { type, value } of reading.values) withdrawn.push({ value, type, position });
      return;
    }
    const ref = typeof object.id === 'string' ? object.id : undefined;
    const risk = riskForConfidence(object.confidence);
    for (const { type, value } of reading.values) {
      const entry: FeedEntry = { value, type, position };
      if (risk !== undefined) entry.risk = risk;
      if (ref !== undefined) entry.ref = ref;
      batch.entries.push(entry);
    }
  }

  /**
   * `valid_until` against now: none or later is `valid`, now or earlier `past`; one that is not a
   * time is `unreadable`, and its indicator is skipped, neither listed nor withdrawn on a guess.
   */
  private expiry(validUntil: unknown): 'valid' | 'past' | 'unreadable' {
    if (validUntil === undefined || validUntil === null) return 'valid';
    const time = typeof validUntil === 'string' ? Date.parse(validUntil) : Number.NaN;
    if (Number.isNaN(time)) return 'unreadable';
    return time > this.now ? 'valid' : 'past';
  }

  private threat(object: StixObject, type: string, relations: FeedRelation[]): void {
    const id = object.id;
    if (typeof id !== 'string') return;
    const name = text(object.name);
    if (object.revoked === true || name === undefined) {
      this.threats.delete(id);
      this.unusable.add(id);
      this.release(id);
      return;
    }
    const aliases: string[] = [];
    if (Array.isArray(object.aliases)) {
      for (const alias of object.aliases) {
        const other = text(alias);
        if (other !== undefined && other !== name && !aliases.includes(other)) aliases.push(other);
      }
    }
    const threat: ThreatRef = { name, aliases, category: THREAT_CATEGORIES[type]! };
    this.threats.set(id, threat);
    this.unusable.delete(id);
    for (const ref of this.release(id)) relations.push({ ref, threat });
  }

  private relationship(object: StixObject, relations: FeedRelation[]): void {
    if (object.revoked === true || object.relationship_type !== 'indicates') return;
    const { source_ref: source, target_ref: target } = object;
    if (typeof source !== 'string' || typeof target !== 'string' || idType(source) !== 'indicator') return;
    if (!Object.hasOwn(THREAT_CATEGORIES, idType(target)) || this.unusable.has(target)) return;
    const threat = this.threats.get(target);
    if (threat !== undefined) {
      relations.push({ ref: source, threat });
      return;
    }
    const refs = this.waiting.get(target);
    if (refs === undefined) this.waiting.set(target, [source]);
    else refs.push(source);
    this.waitingCount++;
  }

  /** The indicator ids that waited for `id`, no longer waiting. */
  private release(id: string): string[] {
    const refs = this.waiting.get(id);
    if (refs === undefined) return [];
    this.waiting.delete(id);
    this.waitingCount -= refs.length;
    return refs;
  }
}

function skip(batch: FeedBatch, position: string, reason: string): void {
  batch.skipped++;
  const kept = reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}...` : reason;
  (batch.skipReasons ??= []).push(`${position}: ${kept}`);
}

/**
 * The batches of STIX objects given a group at a time (see StixObjectMapper): one batch per group
 * that gives something. `now` (ms since the epoch) decides which `valid_until` is past.
 */
export async function* mapStixObjects(groups: AsyncIterable<Iterable<StixObjectAt>> | Iterable<Iterable<StixObjectAt>>, now: number): AsyncGenerator<FeedBatch> {
  const mapper = new StixObjectMapper(now);
  for await (const group of groups) {
    const batch = mapper.map(group);
    if (hasContent(batch)) yield batch;
  }
}

/** The bundle's `objects`, a chunk's completed elements at a time. */
async function* bundleObjects(body: FeedBody): AsyncGenerator<StixObjectAt[]> {
  const scanner = new StixBundleScanner();
  for await (const chunk of decodeText(body)) {
    const objects = scanner.push(chunk);
    if (objects.length > 0) yield objects;
  }
  scanner.end();
}

/**
 * The entries and relations of a STIX 2.1 bundle (`{"type": "bundle", "id": ..., "objects": [...]}`),
 * read as the body arrives: `objects` is cut into its elements by StixBundleScanner and each parsed
 * alone, so memory holds a chunk's objects, the threat SDOs and the waiting relationships (see
 * StixObjectMapper), never the whole body. Positions are `objects[N]`. Throws FeedFormatError while
 * iterating when the body is not a complete bundle (not JSON, not an object, `type` not "bundle",
 * `objects` not an array, an element that is not valid JSON, cut short); batches already yielded
 * are then to be dropped, as a pull does.
 */
export function readStixBundle(body: FeedBody, now: number = Date.now()): AsyncGenerator<FeedBatch> {
  return mapStixObjects(bundleObjects(body), now);
}
