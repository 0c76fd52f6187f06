// Identity SDOs for feed organizations and for threatgate itself.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { stixIdForIdentity } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { THREATGATE_IDENTITY, toStixIdentity } from '../../src/stix/to-stix-identity.js';
import { identitySources, storedIdentityCreated } from '../../src/stix/project-records.js';
import { STIX_EPOCH } from '../../src/stix/stix-time.js';

describe('toStixIdentity', () => {
  describe('with an organization name', () => {
    it('builds an organization identity whose id follows the name and whose created is the one given', () => {
      assert.deepEqual(toStixIdentity('Example CERT', { created: '2024-11-03T08:15:00Z', modified: '2025-01-01T00:00:00.5Z' }), {
        type: 'identity',
        spec_version: '2.1',
        id: stixIdForIdentity('Example CERT'),
        created: '2024-11-03T08:15:00.000Z',
        modified: '2025-01-01T00:00:00.500Z',
        name: 'Example CERT',
        identity_class: 'organization',
      });
    });
  });

  describe('as two versions of one organization', () => {
    it('differ in modified only, created kept from the first', () => {
      const created = '2026-01-15T10:00:00.000Z';
      const first = toStixIdentity('Example CERT', { created, modified: created });
      const second = toStixIdentity('Example CERT', { created, modified: '2026-03-01T12:00:00.001Z' });
      assert.equal(first.created, created);
      assert.equal(second.created, created);
      assert.deepEqual({ ...second, modified: first.modified }, first);
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
      assert.throws(() => toStixIdentity(' ', { created: '2025-01-01T00:00:00Z', modified: '2025-01-01T00:00:00Z' }), (error: unknown) =>
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

describe('identitySources', () => {
  it('renders each organization with its own created, and threatgate as the constant', () => {
    const sources = identitySources([
      { name: 'Example CERT', created: '2026-01-15T10:00:00.000Z' },
      { name: 'New Org', created: '2026-02-01T09:30:00.000Z' },
    ]);
    const modified = '2026-02-01T09:30:00.000Z';
    assert.deepEqual(sources[0]!.render(modified), THREATGATE_IDENTITY);
    assert.deepEqual(sources.slice(1).map((s) => [s.id, s.render(modified).created]), [
      [stixIdForIdentity('Example CERT'), '2026-01-15T10:00:00.000Z'],
      [stixIdForIdentity('New Org'), '2026-02-01T09:30:00.000Z'],
    ]);
  });
});

describe('storedIdentityCreated', () => {
  it('reads created from a stored identity, 1970 included (what an older store published)', () => {
    const body = (created: string) => JSON.stringify(toStixIdentity('Example CERT', { created, modified: '2026-01-15T10:00:00.000Z' }));
    assert.equal(storedIdentityCreated(body('2025-12-31T23:59:59.999Z')), '2025-12-31T23:59:59.999Z');
    assert.equal(storedIdentityCreated(body(STIX_EPOCH)), STIX_EPOCH);
  });

  it('gives STIX_EPOCH for a body without a readable created', () => {
    for (const body of ['', '{}', '{"created":"yesterday"}', '{"created":7}']) assert.equal(storedIdentityCreated(body), STIX_EPOCH, body);
  });
});
