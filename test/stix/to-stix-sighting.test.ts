// The Sighting SRO of an indicator (STIX 2.1 §5.2), as docs/stix-mapping.md ("Sightings") describes it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stixIdForIndicator, stixIdForSighting } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { versionHash } from '../../src/stix/project-records.js';
import { THREATGATE_IDENTITY } from '../../src/stix/to-stix-identity.js';
import { STIX_MAX_COUNT, toStixSighting } from '../../src/stix/to-stix-sighting.js';

const SUMMARY = { iid: 42, sightings: 7, firstSeen: '2026-01-02 03:04:05', lastSeen: '2026-01-10 00:00:00' };
const CTX = { modified: '2026-01-15T10:00:00.123456Z', created: '2026-01-03T00:00:00.000Z' };

describe('toStixSighting', () => {
  it('names the indicator, the service as the one that saw it and recorded it, the total and the period', () => {
    assert.deepEqual(toStixSighting(SUMMARY, CTX), {
      type: 'sighting',
      spec_version: '2.1',
      id: stixIdForSighting(42),
      created_by_ref: THREATGATE_IDENTITY.id,
      created: '2026-01-03T00:00:00.000Z',
      modified: '2026-01-15T10:00:00.123Z',
      first_seen: '2026-01-02T03:04:05.000Z',
      last_seen: '2026-01-10T00:00:00.000Z',
      count: 7,
      sighting_of_ref: stixIdForIndicator(42),
      where_sighted_refs: [THREATGATE_IDENTITY.id],
    });
  });

  it('has one id per indicator, whatever its sightings, and a different one for another indicator', () => {
    assert.match(stixIdForSighting(42), /^sighting--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(toStixSighting({ ...SUMMARY, sightings: 1 }, CTX).id, toStixSighting(SUMMARY, CTX).id);
    assert.notEqual(stixIdForSighting(43), stixIdForSighting(42));
    assert.notEqual(stixIdForSighting(42).slice('sighting--'.length), stixIdForIndicator(42).slice('indicator--'.length));
  });

  it('holds count at the STIX maximum, 999,999,999', () => {
    assert.equal(toStixSighting({ ...SUMMARY, sightings: 5_000_000_000 }, CTX).count, STIX_MAX_COUNT);
    assert.equal(STIX_MAX_COUNT, 999_999_999);
  });

  it('raises modified to created, as every version must be at or after it', () => {
    const object = toStixSighting(SUMMARY, { modified: '2026-01-01T00:00:00.000Z', created: CTX.created });
    assert.equal(object.modified, CTX.created);
  });

  it('is the same version when only modified differs, another when the count or the period does', () => {
    const hash = (summary: typeof SUMMARY, modified: string) => versionHash('sighting', JSON.stringify(toStixSighting(summary, { ...CTX, modified })));
    assert.equal(hash(SUMMARY, '2026-02-01T00:00:00.000Z'), hash(SUMMARY, '2026-03-01T00:00:00.000Z'));
    assert.notEqual(hash({ ...SUMMARY, sightings: 8 }, CTX.modified), hash(SUMMARY, CTX.modified));
    assert.notEqual(hash({ ...SUMMARY, lastSeen: '2026-01-11 00:00:00' }, CTX.modified), hash(SUMMARY, CTX.modified));
  });

  it('refuses a period that ends before it begins, and a negative count', () => {
    assert.throws(() => toStixSighting({ ...SUMMARY, lastSeen: '2026-01-01 00:00:00' }, CTX), StixMappingError);
    assert.throws(() => toStixSighting({ ...SUMMARY, sightings: -1 }, CTX), StixMappingError);
  });
});
