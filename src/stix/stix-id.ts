// Deterministic STIX identifiers: UUIDv5 (RFC 9562 §5.5) of a record's identity, never of its content.

import { hash } from 'node:crypto';
import { StixMappingError } from './stix-mapping-error.js';
import type { StixIdentifier } from './stix-types.js';

/**
 * The UUIDv5 namespace of every threatgate STIX id. Generated once at random (a v4 UUID) and
 * fixed forever: changing it would give every exported object a new id, so TAXII clients would
 * see the whole store as new objects. Distinct from the STIX SCO namespace of STIX 2.1 §2.9.
 */
export const THREATGATE_STIX_NAMESPACE = '86ba3cb7-7488-4e6c-963d-a2e7e1b972fe';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// STIX 2.1 §2.9: `type--UUID`, type as in §3.1 (lowercase a-z, 0-9, single hyphens, 3-250 chars).
const STIX_TYPE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const STIX_ID = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*)--([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/**
 * A name-based UUID, version 5 (RFC 9562 §5.5, formerly RFC 4122 §4.3): the first 16 bytes of
 * SHA-1(namespace bytes || UTF-8 name), with the version nibble set to 5 and the variant to 10.
 */
export function uuidv5(name: string, namespace: string): string {
  // Hex out, not a Buffer: a new Buffer per id cost more than the hash itself.
  const hex = hash('sha1', hashInput(namespaceBytes(namespace), name), 'hex');
  // Byte 6's high nibble (hex digit 12) becomes the version, 5; byte 8's two high bits (of hex digit 16) the variant, 10.
  const variant = HEX_DIGITS[(Number.parseInt(hex[16]!, 16) & 0x3) | 0x8];
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const HEX_DIGITS = '0123456789abcdef';

/** Reused for namespace || name: ids are made for every object of an import, one at a time. */
let scratch = Buffer.alloc(1024);
/** Views of scratch's first n bytes, by n: names of one kind have a few lengths. */
let scratchViews = new Map<number, Buffer>();

function hashInput(namespace: Buffer, name: string): Buffer {
  const needed = 16 + Buffer.byteLength(name, 'utf8');
  if (needed > scratch.length) {
    scratch = Buffer.alloc(Math.max(needed, scratch.length * 2));
    scratchViews = new Map();
  }
  namespace.copy(scratch, 0);
  scratch.write(name, 16, 'utf8');
  let view = scratchViews.get(needed);
  if (view === undefined) scratchViews.set(needed, (view = scratch.subarray(0, needed)));
  return view;
}

/** The 16 bytes of a namespace UUID; threatgate's own is converted once (ids are made per object). */
const namespaceCache = new Map<string, Buffer>();
function namespaceBytes(namespace: string): Buffer {
  let bytes = namespaceCache.get(namespace);
  if (bytes === undefined) {
    if (!UUID.test(namespace)) {
      throw new StixMappingError('invalid-uuid', `namespace "${namespace}" is not a UUID`);
    }
    bytes = Buffer.from(namespace.replaceAll('-', ''), 'hex');
    if (namespaceCache.size < 16) namespaceCache.set(namespace, bytes);
  }
  return bytes;
}

/** `${type}--${uuidv5(name, THREATGATE_STIX_NAMESPACE)}`. */
export function stixId(type: string, name: string): StixIdentifier {
  // Made afresh each time: a cache of recent ids cost more than the hash (it kept every id alive
  // into the old generation). Callers that name one id twice in a row keep it (stixIdForIndicator).
  if (type !== lastValidType) {
    if (type.length < 3 || type.length > 250 || !STIX_TYPE.test(type)) {
      throw new StixMappingError('invalid-reference', `"${type}" is not a STIX object type`);
    }
    lastValidType = type;
  }
  return `${type}--${uuidv5(name, THREATGATE_STIX_NAMESPACE)}`;
}

/** Starts as a valid type: only a type that passed the test is ever remembered. */
let lastValidType = 'indicator';

/** The object type of a STIX identifier; throws unless `id` is `type--UUID` (and of `expected`). */
export function stixIdType(id: string, expected?: string): string {
  // The references of consecutive objects repeat (one creator, one threat for many links).
  let type = id === lastChecked.id ? lastChecked.type : undefined;
  if (type === undefined) {
    const match = STIX_ID.exec(id);
    if (match !== null) {
      type = match[1]!;
      lastChecked = { id, type };
    }
  }
  if (type === undefined || (expected !== undefined && type !== expected)) {
    const wanted = expected === undefined ? 'a STIX identifier' : `a STIX ${expected} identifier`;
    throw new StixMappingError('invalid-reference', `"${id}" is not ${wanted}`);
  }
  return type;
}

let lastChecked: { id: string; type: string | undefined } = { id: '', type: undefined };

/** `id` itself, after checking that it is a STIX identifier (of type `expected`, if given). */
export function checkedStixId(id: string, expected?: string): StixIdentifier {
  stixIdType(id, expected);
  return id;
}

// The names below are the record identities that ids derive from. They are part of the public
// contract of the export (an id must never change for the same record): never change them.

/** The indicator with this `iid`, whatever its value, risk or retirement. */
export function stixIdForIndicator(iid: number): StixIdentifier {
  // Asked for twice in a row for each indicator (its source, then its mapper): kept once.
  if (iid !== lastIndicator.iid) lastIndicator = { iid, id: stixId('indicator', `indicator:${recordNumber('iid', iid)}`) };
  return lastIndicator.id;
}

// NaN equals no iid, so the first call (and any bad iid) is checked and made.
let lastIndicator = { iid: Number.NaN, id: '' };

/** The sighting of the indicator with this `iid`: one object for all of its sightings, a version per change (docs/stix-mapping.md). */
export function stixIdForSighting(iid: number): StixIdentifier {
  return stixId('sighting', `sighting:${recordNumber('iid', iid)}`);
}

/** The organization identity, by exact name (feeds of one organization share one identity). */
export function stixIdForIdentity(organization: string): StixIdentifier {
  return stixId('identity', `organization:${organization}`);
}

/**
 * The threat with this `tid`, as an SDO of `type` (which follows from its category). `generation`
 * counts the threat's reactivations after a published retirement (revocation is final, so each
 * comes back under a new id); generation 0 names the id every threat had before.
 */
export function stixIdForThreatRecord(tid: number, type: string, generation = 0): StixIdentifier {
  return stixId(type, `threat:${recordNumber('tid', tid)}${generationSuffix(generation)}`);
}

function generationSuffix(generation: number): string {
  return generation === 0 ? '' : `:g${recordNumber('generation', generation)}`;
}

/** The `derived-from` relationship from a reactivated threat's object (generation `generation`) to the one it replaces. */
export function stixIdForReactivation(tid: number, generation: number): StixIdentifier {
  return stixId('relationship', `reactivation:${recordNumber('tid', tid)}${generationSuffix(generation)}`);
}

/**
 * The relationship of an indicator-to-threat link. The threat's SDO type is part of the name:
 * if a category change turns the threat into an SDO of another type (a new object, since a type
 * cannot change between versions), its relationships become new objects too.
 */
export function stixIdForIndicatorLink(iid: number, tid: number, targetType: string, generation = 0): StixIdentifier {
  const last = lastLink;
  if (iid === last.iid && tid === last.tid && targetType === last.targetType && generation === last.generation) return last.id;
  const id = stixId('relationship', `link:${recordNumber('iid', iid)}:${recordNumber('tid', tid)}:${targetType}${generationSuffix(generation)}`);
  lastLink = { iid, tid, targetType, generation, id };
  return id;
}

let lastLink = { iid: Number.NaN, tid: Number.NaN, targetType: '', generation: 0, id: '' };

/** The attack-pattern of an ATT&CK technique (upper-case id, as attackTechniqueId gives it): one object per technique, whichever threats cite it. */
export function stixIdForAttackPattern(technique: string): StixIdentifier {
  return stixId('attack-pattern', `attack-technique:${technique}`);
}

/**
 * The relationship from a threat's object to a technique's attack-pattern. Like an indicator
 * link's, it names the threat's SDO type and generation, so that the threat's new object gets new
 * relationships; `round` counts the times the threat dropped the technique from its ttps (the
 * relationship was then revoked, which is final, so a technique cited again needs a new id).
 */
export function stixIdForTechniqueUse(tid: number, sourceType: string, technique: string, generation = 0, round = 0): StixIdentifier {
  const rounds = round === 0 ? '' : `:r${recordNumber('round', round)}`;
  return stixId('relationship', `technique:${recordNumber('tid', tid)}:${technique}:${sourceType}${generationSuffix(generation)}${rounds}`);
}

function recordNumber(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StixMappingError('invalid-record', `${field} ${value} is not a non-negative integer`);
  }
  return value;
}
