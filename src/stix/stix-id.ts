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
  const bytes = hash('sha1', hashInput(namespaceBytes(namespace), name), 'buffer');
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Reused for namespace || name: ids are made for every object of an import, one at a time. */
let scratch = Buffer.alloc(1024);

function hashInput(namespace: Buffer, name: string): Buffer {
  const needed = 16 + Buffer.byteLength(name, 'utf8');
  if (needed > scratch.length) scratch = Buffer.alloc(Math.max(needed, scratch.length * 2));
  namespace.copy(scratch, 0);
  scratch.write(name, 16, 'utf8');
  return scratch.subarray(0, needed);
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
  const key = `${type}--${name}`;
  let id = recentIds.get(key);
  if (id === undefined) {
    if (type.length < 3 || type.length > 250 || !STIX_TYPE.test(type)) {
      throw new StixMappingError('invalid-reference', `"${type}" is not a STIX object type`);
    }
    id = `${type}--${uuidv5(name, THREATGATE_STIX_NAMESPACE)}`;
    if (recentIds.size >= RECENT_IDS) recentIds.clear();
    recentIds.set(key, id);
  }
  return id;
}

/**
 * The ids made last: an import names each object's id before building it, and the mapper names
 * it again (and an indicator's again as a relationship's source), a few thousand calls apart.
 */
const recentIds = new Map<string, StixIdentifier>();
const RECENT_IDS = 8192;

/** The object type of a STIX identifier; throws unless `id` is `type--UUID` (and of `expected`). */
export function stixIdType(id: string, expected?: string): string {
  const match = STIX_ID.exec(id);
  if (match === null || (expected !== undefined && match[1] !== expected)) {
    const wanted = expected === undefined ? 'a STIX identifier' : `a STIX ${expected} identifier`;
    throw new StixMappingError('invalid-reference', `"${id}" is not ${wanted}`);
  }
  return match[1]!;
}

/** `id` itself, after checking that it is a STIX identifier (of type `expected`, if given). */
export function checkedStixId(id: string, expected?: string): StixIdentifier {
  stixIdType(id, expected);
  return id;
}

// The names below are the record identities that ids derive from. They are part of the public
// contract of the export (an id must never change for the same record): never change them.

/** The indicator with this `iid`, whatever its value, risk or retirement. */
export function stixIdForIndicator(iid: number): StixIdentifier {
  return stixId('indicator', `indicator:${recordNumber('iid', iid)}`);
}

/** The organization identity, by exact name (feeds of one organization share one identity). */
export function stixIdForIdentity(organization: string): StixIdentifier {
  return stixId('identity', `organization:${organization}`);
}

/** The threat with this `tid`, as an SDO of `type` (which follows from its category). */
export function stixIdForThreatRecord(tid: number, type: string): StixIdentifier {
  return stixId(type, `threat:${recordNumber('tid', tid)}`);
}

/**
 * The relationship of an indicator-to-threat link. The threat's SDO type is part of the name:
 * if a category change turns the threat into an SDO of another type (a new object, since a type
 * cannot change between versions), its relationships become new objects too.
 */
export function stixIdForIndicatorLink(iid: number, tid: number, targetType: string): StixIdentifier {
  return stixId('relationship', `link:${recordNumber('iid', iid)}:${recordNumber('tid', tid)}:${targetType}`);
}

function recordNumber(field: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new StixMappingError('invalid-record', `${field} ${value} is not a non-negative integer`);
  }
  return value;
}
