// Threat SDOs: shape, aliases, seen period, retirement and id stability.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NewsItem, Threat } from '../../src/domain.js';
import { stixIdForIdentity } from '../../src/stix/stix-id.js';
import { StixMappingError } from '../../src/stix/stix-mapping-error.js';
import { THREATGATE_IDENTITY } from '../../src/stix/to-stix-identity.js';
import { toStixThreat } from '../../src/stix/to-stix-threat.js';

const aThreat = (overrides: Partial<Threat> = {}): Threat => ({
  tid: 7,
  threat: 'Zeus',
  category: 'malware',
  risk: 'high',
  othernames: ['Zbot'],
  description: 'A banking trojan.',
  notes: null,
  wikisummary: 'Zeus is a trojan horse malware package.',
  wikireference: 'https://en.wikipedia.org/wiki/Zeus_(malware)',
  retired: false,
  stamp_added: '2020-01-01 00:00:00',
  stamp_updated: null,
  stamp_seen: '2024-05-06 07:08:09',
  stamp_retired: null,
  attributes: {},
  ttps: [],
  news: [],
  comments: [],
  related: [],
  ...overrides,
});
const news = (overrides: Partial<NewsItem> = {}): NewsItem => ({
  title: 'Zeus is back', channel: 'Example News', icon: '', link: 'https://news.example/zeus', stamp: '2024-01-01 00:00:00', primary: 1,
  ...overrides,
});
const ctx = { modified: '2025-06-01T10:00:00.000Z' };

describe('toStixThreat', () => {
  describe('for a malware family', () => {
    it('builds the SDO with its properties in a fixed order', () => {
      assert.deepEqual(Object.keys(toStixThreat(aThreat({ news: [news()] }), ctx)), [
        'type', 'spec_version', 'id', 'created_by_ref', 'created', 'modified', 'confidence', 'name', 'description',
        'malware_types', 'is_family', 'aliases', 'first_seen', 'last_seen', 'external_references',
        'x_risk', 'x_category', 'x_threatgate_tid',
      ]);
    });
  });

  describe('without createdByRef', () => {
    it('is created by THREATGATE_IDENTITY', () => {
      assert.equal(toStixThreat(aThreat(), ctx).created_by_ref, THREATGATE_IDENTITY.id);
    });
  });

  describe('with a createdByRef', () => {
    it('uses it', () => {
      const createdByRef = stixIdForIdentity('Example CERT');
      assert.equal(toStixThreat(aThreat(), { ...ctx, createdByRef }).created_by_ref, createdByRef);
    });
  });

  describe('with other names', () => {
    it('lists them as aliases without blanks, repeats or its own name', () => {
      const object = toStixThreat(aThreat({ category: 'apt', othernames: ['Zbot', '', 'zeus', 'Zbot', ' ', 'PRG'] }), ctx);
      assert.ok(object.type === 'intrusion-set');
      assert.deepEqual(object.aliases, ['Zbot', 'PRG']);
    });
  });

  describe('without other names', () => {
    it('omits aliases rather than emitting an empty list', () => {
      assert.equal('aliases' in toStixThreat(aThreat({ othernames: [] }), ctx), false);
    });
  });

  describe('without a description', () => {
    it('falls back to the wiki summary', () => {
      assert.equal(toStixThreat(aThreat({ description: ' ' }), ctx).description, 'Zeus is a trojan horse malware package.');
    });
  });

  describe('without description and wiki summary', () => {
    it('omits description', () => {
      assert.equal('description' in toStixThreat(aThreat({ description: null, wikisummary: null }), ctx), false);
    });
  });

  describe('with stamp_added and stamp_seen', () => {
    it('has first_seen and last_seen', () => {
      const object = toStixThreat(aThreat(), ctx);
      assert.ok(object.type === 'malware');
      assert.equal(object.first_seen, '2020-01-01T00:00:00.000Z');
      assert.equal(object.last_seen, '2024-05-06T07:08:09.000Z');
    });
  });

  describe('with stamp_seen before stamp_added', () => {
    it('omits last_seen, which must not precede first_seen', () => {
      const object = toStixThreat(aThreat({ stamp_seen: '2019-01-01 00:00:00' }), ctx);
      assert.ok(object.type === 'malware');
      assert.equal(object.first_seen, '2020-01-01T00:00:00.000Z');
      assert.equal('last_seen' in object, false);
    });
  });

  describe('without stamp_added', () => {
    it('uses the epoch as created and omits first_seen', () => {
      const object = toStixThreat(aThreat({ stamp_added: null, category: 'phishing' }), ctx);
      assert.ok(object.type === 'campaign');
      assert.equal(object.created, '1970-01-01T00:00:00.000Z');
      assert.equal('first_seen' in object, false);
      assert.equal(object.last_seen, '2024-05-06T07:08:09.000Z');
    });
  });

  describe('for an attack pattern or a vulnerability', () => {
    it('has no first_seen or last_seen, which those SDOs do not define', () => {
      for (const category of ['attack', 'vulnerability']) {
        const object = toStixThreat(aThreat({ category }), ctx);
        assert.equal('first_seen' in object || 'last_seen' in object, false, category);
      }
      assert.equal('aliases' in toStixThreat(aThreat({ category: 'vulnerability' }), ctx), false);
    });
  });

  describe('when it is retired by its flag or its risk', () => {
    it('is revoked', () => {
      assert.equal(toStixThreat(aThreat({ retired: true }), ctx).revoked, true);
      const byRisk = toStixThreat(aThreat({ risk: 'retired' }), ctx);
      assert.equal(byRisk.revoked, true);
      assert.equal(byRisk.confidence, 0);
    });
  });

  describe('when it is active', () => {
    it('has no revoked property', () => {
      assert.equal('revoked' in toStixThreat(aThreat({ retired: null }), ctx), false);
    });
  });

  describe('when the recorded modified time is before stamp_added', () => {
    it('raises modified to created', () => {
      const object = toStixThreat(aThreat({ stamp_added: '2030-01-01 00:00:00' }), ctx);
      assert.equal(object.modified, object.created);
    });
  });

  describe('with custom properties', () => {
    it('carries the risk, the raw category and the tid', () => {
      const object = toStixThreat(aThreat({ category: 'Exploit Kit' }), ctx);
      assert.equal(object.x_risk, 'high');
      assert.equal(object.x_category, 'Exploit Kit');
      assert.equal(object.x_threatgate_tid, 7);
    });
  });

  describe('when its name, description or risk change', () => {
    it('keeps its id', () => {
      const before = toStixThreat(aThreat(), ctx);
      const after = toStixThreat(aThreat({ threat: 'Zeus GameOver', description: null, risk: 'low' }), ctx);
      assert.equal(after.id, before.id);
    });
  });

  describe('with an empty name', () => {
    it('throws an invalid-record error', () => {
      assert.throws(() => toStixThreat(aThreat({ threat: '  ' }), ctx), (error: unknown) =>
        error instanceof StixMappingError && error.code === 'invalid-record');
    });
  });
});
