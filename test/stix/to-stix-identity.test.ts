// Identity SDOs for feed organizations and for threatgate itself.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stixIdForIdentity } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { THREATGATE_IDENTITY, toStixIdentity } from '../../src/stix/to-stix-identity.js';

describe('toStixIdentity', () => {
  describe('with an organization name', () => {
    it('builds an organization identity whose id follows the name', () => {
      assert.deepEqual(toStixIdentity('Example CERT', { modified: '2025-01-01T00:00:00.5Z' }), {
        type: 'identity',
        spec_version: '2.1',
        id: stixIdForIdentity('Example CERT'),
        created: '1970-01-01T00:00:00.000Z',
        modified: '2025-01-01T00:00:00.500Z',
        name: 'Example CERT',
        identity_class: 'organization',
      });
    });
  });

  describe('with a created time after the modified time', () => {
    it('raises modified to created', () => {
      const object = toStixIdentity('Example CERT', { created: '2025-02-01 00:00:00', modified: '2025-01-01T00:00:00Z' });
      assert.equal(object.created, '2025-02-01T00:00:00.000Z');
      assert.equal(object.modified, '2025-02-01T00:00:00.000Z');
    });
  });

  describe('with an empty name', () => {
    it('throws an invalid-record error', () => {
      assert.throws(() => toStixIdentity(' ', { modified: '2025-01-01T00:00:00Z' }), (error: unknown) =>
        error instanceof StixMappingError && error.code === 'invalid-record');
    });
  });
});

describe('THREATGATE_IDENTITY', () => {
  describe('as exported', () => {
    it('is a frozen system identity with fixed timestamps and no feed-organization id', () => {
      assert.ok(Object.isFrozen(THREATGATE_IDENTITY));
      assert.equal(THREATGATE_IDENTITY.identity_class, 'system');
      assert.equal(THREATGATE_IDENTITY.created, THREATGATE_IDENTITY.modified);
      assert.notEqual(THREATGATE_IDENTITY.id, stixIdForIdentity('threatgate'));
    });
  });
});
