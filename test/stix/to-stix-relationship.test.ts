// Relationship SROs for the links of indicators to threats.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stixIdForIndicator } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { stixIdForThreat } from '../../src/stix/threat-sdo-type.js';
import { THREATGATE_IDENTITY } from '../../src/stix/to-stix-identity.js';
import { toStixRelationship } from '../../src/stix/to-stix-relationship.js';

const link = { iid: 3, tid: 9, stamp_linked: '2024-04-05 06:07:08' };
const contextFor = (category: string) => ({
  modified: '2025-01-01T00:00:00.000Z',
  sourceRef: stixIdForIndicator(3),
  targetRef: stixIdForThreat({ tid: 9, category }),
  createdByRef: THREATGATE_IDENTITY.id,
});

describe('toStixRelationship', () => {
  describe('for an indicator linked to a malware threat', () => {
    it('builds an indicates relationship created when the link was made', () => {
      const object = toStixRelationship(link, contextFor('malware'));
      assert.deepEqual(Object.keys(object), [
        'type', 'spec_version', 'id', 'created_by_ref', 'created', 'modified', 'relationship_type', 'source_ref', 'target_ref',
      ]);
      assert.equal(object.relationship_type, 'indicates');
      assert.equal(object.created, '2024-04-05T06:07:08.000Z');
      assert.equal(object.modified, '2025-01-01T00:00:00.000Z');
      assert.equal(object.source_ref, stixIdForIndicator(3));
      assert.equal(object.target_ref, stixIdForThreat({ tid: 9, category: 'malware' }));
      assert.match(object.id, /^relationship--/);
    });
  });

  describe('for every threat SDO type that indicates may target', () => {
    it('uses indicates', () => {
      for (const category of ['apt', 'phishing', 'scanner', 'attack', 'other']) {
        assert.equal(toStixRelationship(link, contextFor(category)).relationship_type, 'indicates', category);
      }
    });
  });

  describe('for a vulnerability, which indicates may not target', () => {
    it('uses related-to', () => {
      assert.equal(toStixRelationship(link, contextFor('vulnerability')).relationship_type, 'related-to');
    });
  });

  describe('when the link is exported again later', () => {
    it('keeps its id', () => {
      const first = toStixRelationship(link, contextFor('malware'));
      const again = toStixRelationship(link, { ...contextFor('malware'), modified: '2026-01-01T00:00:00Z' });
      assert.equal(again.id, first.id);
    });
  });

  describe('when the threat becomes another SDO type', () => {
    it('becomes a new relationship, like the threat', () => {
      assert.notEqual(toStixRelationship(link, contextFor('malware')).id, toStixRelationship(link, contextFor('apt')).id);
    });
  });

  describe('when modified is before the link time', () => {
    it('raises modified to created', () => {
      const object = toStixRelationship(link, { ...contextFor('malware'), modified: '2020-01-01T00:00:00Z' });
      assert.equal(object.modified, object.created);
    });
  });

  describe('with refs that are not STIX ids of the right type', () => {
    it('throws an invalid-reference error', () => {
      const isInvalidReference = (error: unknown) => error instanceof StixMappingError && error.code === 'invalid-reference';
      assert.throws(() => toStixRelationship(link, { ...contextFor('malware'), sourceRef: contextFor('malware').targetRef }), isInvalidReference);
      assert.throws(() => toStixRelationship(link, { ...contextFor('malware'), targetRef: 'malware--x' }), isInvalidReference);
      assert.throws(() => toStixRelationship(link, { ...contextFor('malware'), createdByRef: stixIdForIndicator(1) }), isInvalidReference);
    });
  });
});
