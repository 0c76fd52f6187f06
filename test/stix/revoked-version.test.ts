// toRevokedVersion: the final version of an object that leaves the export.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { THREATGATE_IDENTITY, toRevokedVersion, toStixIndicator, type StixIndicator } from '../../src/stix/index.js';

const indicator = (modified: string): StixIndicator =>
  toStixIndicator(
    { iid: 7, indicator: '192.0.2.7', type: 'ip', risk: 'high', stamp_added: '2025-02-01 00:00:00', retired: false, attributes: {} },
    { modified, createdByRef: THREATGATE_IDENTITY.id },
  );

describe('toRevokedVersion', () => {
  const held = indicator('2026-01-15T10:00:00.000Z');
  const final = toRevokedVersion(held, '2026-01-15T10:05:00.123456Z');

  it('keeps every property of the version clients hold but modified, and adds revoked: true', () => {
    const { modified, revoked, ...rest } = final;
    const { modified: _heldModified, ...heldRest } = held;
    assert.deepEqual(rest, heldRest);
    assert.equal(revoked, true);
    assert.equal(modified, '2026-01-15T10:05:00.123Z');
  });

  it('writes revoked right after modified, where the mappers write it', () => {
    const keys = Object.keys(final);
    assert.equal(keys[keys.indexOf('modified') + 1], 'revoked');
  });

  it('raises modified to created, never the other way', () => {
    assert.equal(toRevokedVersion(held, '2000-01-01T00:00:00Z').modified, held.created);
  });

  it('leaves the object it was given alone', () => {
    assert.equal(held.revoked, undefined);
    assert.equal(held.modified, '2026-01-15T10:00:00.000Z');
  });
});
