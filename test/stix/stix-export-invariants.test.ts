// Properties every exported object keeps, checked over a sample of every mapper and case.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Indicator, Risk, Threat } from '../../src/domain.js';
import { stixIdForIdentity, stixIdForIndicator } from '../../src/stix/stix-id.js';
import type { StixObject } from '../../src/stix/stix-types.js';
import { stixIdForThreat } from '../../src/stix/threat-sdo-type.js';
import { THREATGATE_IDENTITY, toStixIdentity } from '../../src/stix/to-stix-identity.js';
import { toStixIndicator } from '../../src/stix/to-stix-indicator.js';
import { toStixRelationship } from '../../src/stix/to-stix-relationship.js';
import { toStixThreat } from '../../src/stix/to-stix-threat.js';
import { toStixAttackPattern, toStixTechniqueUse } from '../../src/stix/to-stix-attack-pattern.js';

const RISKS: Risk[] = ['unknown', 'none', 'low', 'medium', 'high', 'critical', 'retired'];
const CATEGORIES = ['malware', 'ransomware', 'botnet', 'rat', 'apt', 'group', 'phishing', 'spam', 'scanner', 'proxy',
  'attack', 'vulnerability', 'other'];
const INDICATOR_VALUES: Array<[string, string]> = [['ip', '192.0.2.1'], ['ipv6', '2001:db8::1'], ['domain', 'evil.example'],
  ['url', "http://evil.example/'\\"], ['email', 'a@evil.example'], ['md5', 'd41d8cd98f00b204e9800998ecf8427e']];
const MODIFIED = '2025-06-01T10:00:00.123456Z';

function indicators(): Indicator[] {
  return RISKS.flatMap((risk, r) => INDICATOR_VALUES.map(([type, value], v): Indicator => ({
    iid: r * 10 + v, indicator: value, type, risk, retired: v % 2 === 0 ? null : v === 1,
    stamp_added: r === 0 ? null : `202${r}-01-01 00:00:00`, stamp_updated: null, stamp_seen: null,
    attributes: { protocol: [], port: v % 2 === 0 ? ['443'] : [] }, properties: {},
  })));
}

function threats(): Threat[] {
  return CATEGORIES.map((category, c): Threat => ({
    tid: 100 + c, threat: `Threat ${c}`, category, risk: RISKS[c % RISKS.length]!, othernames: c % 2 ? [] : ['', 'Other'],
    description: c % 3 ? null : '', notes: null, wikisummary: c % 2 ? null : 'Summary', wikireference: c % 2 ? null : 'https://en.wikipedia.org/wiki/X',
    retired: c % 4 === 0, stamp_added: c % 5 ? '2021-01-01 00:00:00' : null, stamp_updated: null,
    stamp_seen: c % 3 ? '2020-01-01 00:00:00' : '2024-01-01 00:00:00', stamp_retired: null,
    attributes: {}, ttps: [], comments: [], related: [],
    news: c % 2 ? [] : [{ title: '', channel: '', icon: '', link: 'https://news.example/x', stamp: '2024-01-01 00:00:00', primary: 0 }],
  }));
}

function sample(): StixObject[] {
  const org = stixIdForIdentity('Example CERT');
  return [
    THREATGATE_IDENTITY,
    toStixIdentity('Example CERT', { modified: MODIFIED, created: MODIFIED }),
    ...indicators().map((indicator) => toStixIndicator(indicator, { modified: MODIFIED, createdByRef: org })),
    ...threats().map((threat) => toStixThreat(threat, { modified: MODIFIED })),
    ...threats().map((threat, n) => toStixRelationship({ iid: n, tid: threat.tid, stamp_linked: '2026-01-01 00:00:00' }, {
      modified: MODIFIED, sourceRef: stixIdForIndicator(n), targetRef: stixIdForThreat(threat), createdByRef: org,
    })),
    toStixAttackPattern({ technique: 'T1566.001', name: 'Phishing: Spearphishing Attachment', tactics: ['initial-access'], created: MODIFIED }, { modified: MODIFIED }),
    toStixAttackPattern({ technique: 'T1027', name: 'T1027', tactics: [], created: MODIFIED }, { modified: MODIFIED }),
    ...threats().map((threat) => toStixTechniqueUse({ tid: threat.tid, technique: 'T1027', generation: 0, round: 0, created: MODIFIED }, {
      modified: MODIFIED, sourceRef: stixIdForThreat(threat),
    })),
  ];
}

/** Paths of null, undefined, empty-list and blank-string values anywhere in `value`. */
function emptyValues(value: unknown, path: string): string[] {
  if (value === null || value === undefined) return [path];
  if (typeof value === 'string') return value.trim() === '' ? [path] : [];
  if (Array.isArray(value)) return value.length === 0 ? [path] : value.flatMap((item, i) => emptyValues(item, `${path}[${i}]`));
  if (typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => emptyValues(item, `${path}.${key}`));
  return [];
}

describe('the STIX export', () => {
  describe('for a sample of every mapper, type, category and risk', () => {
    it('never emits null, undefined, an empty list or a blank string', () => {
      for (const object of sample()) assert.deepEqual(emptyValues(object, object.id), []);
    });

    it('marks every object spec_version 2.1 with a type--UUID id of its type', () => {
      for (const object of sample()) {
        assert.equal(object.spec_version, '2.1');
        assert.match(object.id, new RegExp(`^${object.type}--[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`));
      }
    });

    it('has created and modified with millisecond precision and modified >= created', () => {
      for (const object of sample()) {
        assert.match(object.created, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.match(object.modified, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
        assert.ok(object.modified >= object.created, object.id);
      }
    });

    it('keeps valid_until after valid_from and last_seen at or after first_seen', () => {
      for (const object of sample() as unknown as Array<Record<string, string | undefined>>) {
        if (object.valid_until !== undefined) assert.ok(object.valid_until > object.valid_from!, object.id);
        if (object.last_seen !== undefined && object.first_seen !== undefined) assert.ok(object.last_seen >= object.first_seen, object.id);
      }
    });

    it('names custom properties x_ plus lowercase letters, digits and underscores (3-250 long)', () => {
      for (const object of sample()) {
        for (const key of Object.keys(object).filter((name) => name.startsWith('x_'))) {
          assert.match(key, /^[a-z0-9_]{3,250}$/);
        }
      }
    });

    it('includes every object type and both retirement forms', () => {
      const objects = sample();
      assert.deepEqual([...new Set(objects.map((object) => object.type))].sort(), [
        'attack-pattern', 'campaign', 'identity', 'indicator', 'infrastructure', 'intrusion-set', 'malware', 'relationship', 'vulnerability',
      ]);
      assert.ok(objects.some((object) => object.revoked === true));
      assert.ok(objects.some((object) => object.type === 'indicator' && object.valid_until !== undefined));
    });
  });

  describe('given the same input twice', () => {
    it('produces the same bytes', () => {
      assert.equal(JSON.stringify(sample()), JSON.stringify(sample()));
    });
  });

  describe('given a deep copy of the input with attributes in another order', () => {
    it('produces the same bytes', () => {
      const indicator = indicators()[1]!;
      const reordered: Indicator = structuredClone({ ...indicator, attributes: { port: ['443'], technology: ['nginx'] } });
      const original: Indicator = { ...indicator, attributes: { technology: ['nginx'], port: ['443'] } };
      const ctx = { modified: MODIFIED, createdByRef: THREATGATE_IDENTITY.id };
      assert.equal(JSON.stringify(toStixIndicator(reordered, ctx)), JSON.stringify(toStixIndicator(original, ctx)));
    });
  });
});
