// Indicator SDOs: shape, timestamps, risk mapping, retirement and id stability.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Indicator, Risk } from '../../src/domain.js';
import { stixIdForIdentity, stixIdForIndicator } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { THREATGATE_IDENTITY } from '../../src/stix/to-stix-identity.js';
import { toStixIndicator } from '../../src/stix/to-stix-indicator.js';

const anIndicator = (overrides: Partial<Indicator> = {}): Indicator => ({
  iid: 42,
  indicator: '198.51.100.7',
  type: 'ip',
  risk: 'high',
  stamp_added: '2024-01-02 03:04:05',
  stamp_updated: '2024-02-03 04:05:06',
  stamp_seen: '2024-03-04 05:06:07',
  retired: false,
  attributes: { port: ['443'] },
  properties: {},
  ...overrides,
});
const ctx = { modified: '2025-06-01T10:00:00.123456Z', createdByRef: stixIdForIdentity('Example CERT') };

describe('toStixIndicator', () => {
  describe('with an active high-risk IP', () => {
    it('builds the indicator SDO with its properties in a fixed order', () => {
      assert.deepEqual(toStixIndicator(anIndicator(), ctx), {
        type: 'indicator',
        spec_version: '2.1',
        id: stixIdForIndicator(42),
        created_by_ref: stixIdForIdentity('Example CERT'),
        created: '2024-01-02T03:04:05.000Z',
        modified: '2025-06-01T10:00:00.123Z',
        confidence: 85,
        name: '198.51.100.7',
        description: 'ip indicator, risk high',
        indicator_types: ['malicious-activity'],
        pattern: "[ipv4-addr:value = '198.51.100.7']",
        pattern_type: 'stix',
        pattern_version: '2.1',
        valid_from: '2024-01-02T03:04:05.000Z',
        x_risk: 'high',
        x_threatgate_iid: 42,
        x_threatgate_type: 'ip',
        x_threatgate_attributes: { port: ['443'] },
      });
      assert.deepEqual(Object.keys(toStixIndicator(anIndicator(), ctx)).slice(0, 6), [
        'type', 'spec_version', 'id', 'created_by_ref', 'created', 'modified',
      ]);
    });
  });

  describe('when its value, risk, stamps and attributes change', () => {
    it('keeps its id', () => {
      const before = toStixIndicator(anIndicator(), ctx);
      const after = toStixIndicator(anIndicator({
        indicator: '2001:db8::1', risk: 'low', stamp_seen: null, retired: true, attributes: {},
      }), { ...ctx, modified: '2026-01-01T00:00:00Z' });
      assert.equal(after.id, before.id);
    });
  });

  describe('for each risk level', () => {
    const table: Array<[Risk, number | undefined, string]> = [
      ['none', 0, 'benign'],
      ['unknown', undefined, 'unknown'],
      ['low', 15, 'anomalous-activity'],
      ['medium', 50, 'malicious-activity'],
      ['high', 85, 'malicious-activity'],
      ['critical', 100, 'malicious-activity'],
      ['retired', 0, 'unknown'],
    ];
    for (const [risk, confidence, indicatorType] of table) {
      it(`maps ${risk} to confidence ${confidence ?? '(omitted)'} and indicator type ${indicatorType}`, () => {
        const object = toStixIndicator(anIndicator({ risk }), ctx);
        assert.equal(object.confidence, confidence);
        assert.equal('confidence' in object, confidence !== undefined);
        assert.deepEqual(object.indicator_types, [indicatorType]);
        assert.equal(object.x_risk, risk);
      });
    }
  });

  describe('without stamp_added', () => {
    it('uses the fixed epoch as created and valid_from', () => {
      const object = toStixIndicator(anIndicator({ stamp_added: null }), ctx);
      assert.equal(object.created, '1970-01-01T00:00:00.000Z');
      assert.equal(object.valid_from, object.created);
    });
  });

  describe('when the recorded modified time is before stamp_added', () => {
    it('raises modified to created and keeps created', () => {
      const object = toStixIndicator(anIndicator({ stamp_added: '2030-01-01 00:00:00' }), ctx);
      assert.equal(object.created, '2030-01-01T00:00:00.000Z');
      assert.equal(object.modified, '2030-01-01T00:00:00.000Z');
    });
  });

  describe('when it is retired by its flag', () => {
    it('expires at the modified time instead of being revoked', () => {
      const object = toStixIndicator(anIndicator({ retired: true }), ctx);
      assert.equal(object.valid_until, '2025-06-01T10:00:00.123Z');
      assert.equal('revoked' in object, false);
      assert.equal(object.description, 'ip indicator, risk high, retired');
    });
  });

  describe('when it is retired by its risk', () => {
    it('expires as well, with confidence 0', () => {
      const object = toStixIndicator(anIndicator({ risk: 'retired', retired: null }), ctx);
      assert.equal(object.valid_until, '2025-06-01T10:00:00.123Z');
      assert.equal(object.confidence, 0);
    });
  });

  describe('when it is retired in the same millisecond it was created', () => {
    it('sets valid_until one millisecond after valid_from, as it must be later', () => {
      const object = toStixIndicator(anIndicator({ retired: true, stamp_added: '2025-06-01 10:00:00' }), {
        ...ctx, modified: '2025-06-01T10:00:00Z',
      });
      assert.equal(object.valid_from, '2025-06-01T10:00:00.000Z');
      assert.equal(object.valid_until, '2025-06-01T10:00:00.001Z');
    });
  });

  describe('when it is active', () => {
    it('has no valid_until and no revoked', () => {
      const object = toStixIndicator(anIndicator(), ctx);
      assert.equal('valid_until' in object, false);
      assert.equal('revoked' in object, false);
    });
  });

  describe('with attributes in any order, empty lists and invalid keys', () => {
    it('exports the non-empty ones under sorted keys', () => {
      const object = toStixIndicator(anIndicator({
        attributes: { technology: ['nginx'], protocol: [], port: ['80', '443'], 'bad key': ['x'] },
      }), ctx);
      assert.deepEqual(object.x_threatgate_attributes, { port: ['80', '443'], technology: ['nginx'] });
      assert.deepEqual(Object.keys(object.x_threatgate_attributes ?? {}), ['port', 'technology']);
    });
  });

  describe('without attributes', () => {
    it('omits x_threatgate_attributes', () => {
      assert.equal('x_threatgate_attributes' in toStixIndicator(anIndicator({ attributes: { port: [] } }), ctx), false);
    });
  });

  describe('with a URL holding quotes and backslashes', () => {
    it('keeps the raw value as name and escapes it in the pattern', () => {
      const object = toStixIndicator(anIndicator({ type: 'url', indicator: "http://x.example/'\\" }), ctx);
      assert.equal(object.name, "http://x.example/'\\");
      assert.equal(object.pattern, "[url:value = 'http://x.example/\\'\\\\']");
    });
  });

  describe('with a type that has no pattern', () => {
    it('throws the StixMappingError of stixPattern', () => {
      assert.throws(() => toStixIndicator(anIndicator({ type: 'ja3' }), ctx), (error: unknown) =>
        error instanceof StixMappingError && error.code === 'unsupported-indicator-type');
    });
  });

  describe('with a createdByRef that is not an identity id', () => {
    it('throws an invalid-reference error', () => {
      assert.throws(() => toStixIndicator(anIndicator(), { ...ctx, createdByRef: stixIdForIndicator(1) }), (error: unknown) =>
        error instanceof StixMappingError && error.code === 'invalid-reference');
    });
  });

  describe('with threatgate as creator', () => {
    it('refers to THREATGATE_IDENTITY', () => {
      const object = toStixIndicator(anIndicator(), { ...ctx, createdByRef: THREATGATE_IDENTITY.id });
      assert.equal(object.created_by_ref, THREATGATE_IDENTITY.id);
    });
  });
});
